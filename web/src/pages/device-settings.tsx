import { Button, Chip, Group, Modal, NumberInput, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { FormError } from '../components/states';
import { simLabel, simsOf } from '../lib/sims';
import { useSubmit } from '../lib/use-submit';

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** An empty pace field is no pace (null). */
/** The fields this form shows beside their inputs (their errors are said there, not again above). */
const FIELDS = [
  'name',
  'send_delay_seconds',
  'send_delay_jitter_seconds',
  'max_sends_per_minute',
  'max_sends_per_hour',
  'max_sends_per_day',
  'sending_capacity',
  'sending_capacity_minutes',
  'send_window.timezone',
  'send_window.days',
  'send_window.start',
  'send_window.end',
  'heartbeat_interval_minutes',
  'sim_selection',
  'processing_order',
];
const paceOf = (value: string | number) => (value === '' ? null : Number(value));

/** Every setting of PATCH /v1/devices/{id}. */
export function DeviceSettings({
  device,
  onClose,
  onSaved,
}: {
  device: Schemas['Device'];
  onClose(): void;
  onSaved(device: Schemas['Device']): void;
}) {
  const [name, setName] = useState(device.name);
  const [enabled, setEnabled] = useState(device.enabled);
  const [receive, setReceive] = useState(device.receive_enabled);
  const [delay, setDelay] = useState<number>(device.send_delay_seconds);
  const [interval, setInterval] = useState<number>(device.heartbeat_interval_minutes);
  const [sim, setSim] = useState<string>(device.preferred_sim_subscription_id?.toString() ?? '');
  const [jitter, setJitter] = useState<number>(device.send_delay_jitter_seconds);
  const [perMinute, setPerMinute] = useState<string | number>(device.max_sends_per_minute ?? '');
  const [perHour, setPerHour] = useState<string | number>(device.max_sends_per_hour ?? '');
  const [perDay, setPerDay] = useState<string | number>(device.max_sends_per_day ?? '');
  const [simSelection, setSimSelection] = useState<string>(device.sim_selection);
  const [order, setOrder] = useState<string>(device.processing_order);
  const [capacity, setCapacity] = useState<string | number>(device.sending_capacity ?? '');
  const [capacityMinutes, setCapacityMinutes] = useState<number>(device.sending_capacity_minutes);
  const [windowOn, setWindowOn] = useState(device.send_window !== null);
  const [timezone, setTimezone] = useState(
    device.send_window?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  );
  const [days, setDays] = useState<string[]>((device.send_window?.days ?? [1, 2, 3, 4, 5]).map(String));
  const [start, setStart] = useState(device.send_window?.start ?? '09:00');
  const [end, setEnd] = useState(device.send_window?.end ?? '18:00');
  const form = useSubmit();
  const field = form.field;

  const save = form.submit(async () => {
    const body = {
      name,
      enabled,
      receive_enabled: receive,
      send_delay_seconds: delay,
      send_delay_jitter_seconds: jitter,
      max_sends_per_minute: paceOf(perMinute),
      max_sends_per_hour: paceOf(perHour),
      max_sends_per_day: paceOf(perDay),
      sim_selection: simSelection as Schemas['Device']['sim_selection'],
      processing_order: order as Schemas['Device']['processing_order'],
      sending_capacity: paceOf(capacity),
      sending_capacity_minutes: capacityMinutes,
      send_window: windowOn ? { timezone, days: days.map(Number), start, end } : null,
      heartbeat_interval_minutes: interval,
      ...(sim ? { preferred_sim_subscription_id: Number(sim) } : { clear_preferred_sim: true }),
    };
    const { device: saved } = await ok(api.PATCH('/v1/devices/{id}', { params: { path: { id: device.id } }, body }));
    onSaved(saved);
  });

  const sims = simsOf(device);
  return (
    <Modal opened onClose={onClose} title={`Settings of ${device.name}`}>
      <form onSubmit={save} noValidate>
        <Stack>
          <TextInput
            label="Name"
            required
            value={name}
            error={field('name')}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          <Switch
            label="Sends messages (enabled)"
            checked={enabled}
            onChange={(e) => setEnabled(e.currentTarget.checked)}
          />
          <Switch
            label="Forwards received texts"
            checked={receive}
            onChange={(e) => setReceive(e.currentTarget.checked)}
          />
          <NumberInput
            label="Delay between sends (seconds)"
            min={0}
            value={delay}
            error={field('send_delay_seconds')}
            onChange={(v) => setDelay(Number(v) || 0)}
          />
          <NumberInput
            label="Random extra pause, up to (seconds)"
            min={0}
            max={3600}
            value={jitter}
            error={field('send_delay_jitter_seconds')}
            onChange={(v) => setJitter(Number(v) || 0)}
          />
          <Group grow>
            <NumberInput
              label="Sends per minute, at most"
              placeholder="unlimited"
              min={1}
              value={perMinute}
              error={field('max_sends_per_minute')}
              onChange={setPerMinute}
            />
            <NumberInput
              label="Sends per hour, at most"
              placeholder="unlimited"
              min={1}
              value={perHour}
              error={field('max_sends_per_hour')}
              onChange={setPerHour}
            />
            <NumberInput
              label="Sends per day, at most"
              placeholder="unlimited"
              min={1}
              value={perDay}
              error={field('max_sends_per_day')}
              onChange={setPerDay}
            />
          </Group>
          <Group grow align="flex-start">
            <NumberInput
              label="Texts Android allows"
              description="Stock Android: 30 per 30 minutes. Raise it once the limit is lifted on the phone."
              placeholder="no limit known"
              min={1}
              value={capacity}
              error={field('sending_capacity')}
              onChange={setCapacity}
            />
            <NumberInput
              label="Per (minutes)"
              min={1}
              max={1440}
              value={capacityMinutes}
              error={field('sending_capacity_minutes')}
              onChange={(v) => setCapacityMinutes(Number(v) || 0)}
            />
          </Group>
          <Switch
            label="Sends only within set days and hours"
            checked={windowOn}
            onChange={(e) => setWindowOn(e.currentTarget.checked)}
          />
          {windowOn && (
            <>
              <TextInput
                label="Time zone"
                value={timezone}
                error={field('send_window.timezone')}
                onChange={(e) => setTimezone(e.currentTarget.value)}
              />
              <Chip.Group multiple value={days} onChange={setDays}>
                <Group gap="xs">
                  {DAYS.map((day, i) => (
                    <Chip key={day} value={String(i + 1)} size="xs">
                      {day}
                    </Chip>
                  ))}
                </Group>
              </Chip.Group>
              {field('send_window.days') && (
                <Text size="xs" c="var(--pg-danger)">
                  {field('send_window.days')}
                </Text>
              )}
              <Group grow>
                <TextInput
                  label="From (HH:MM)"
                  value={start}
                  error={field('send_window.start')}
                  onChange={(e) => setStart(e.currentTarget.value)}
                />
                <TextInput
                  label="Until (HH:MM)"
                  value={end}
                  error={field('send_window.end')}
                  onChange={(e) => setEnd(e.currentTarget.value)}
                />
              </Group>
            </>
          )}
          <NumberInput
            label="Heartbeat interval (minutes)"
            min={1}
            value={interval}
            error={field('heartbeat_interval_minutes')}
            onChange={(v) => setInterval(Number(v) || 0)}
          />
          <Select
            label="Preferred SIM"
            data={[
              { value: '', label: 'Phone default' },
              ...sims.map((s) => ({ value: String(s.subscription_id), label: simLabel(s) })),
            ]}
            value={sim}
            onChange={(v) => setSim(v ?? '')}
            allowDeselect={false}
          />
          <Select
            label="SIM for texts that name none"
            data={[
              { value: 'os_default', label: 'The preferred SIM (or the phone default)' },
              { value: 'round_robin', label: 'Each SIM in turn' },
              { value: 'random', label: 'Any SIM at random' },
            ]}
            value={simSelection}
            error={field('sim_selection')}
            onChange={(v) => setSimSelection(v ?? 'os_default')}
            allowDeselect={false}
          />
          <Select
            label="Order of sending"
            data={[
              { value: 'fifo', label: 'Oldest first' },
              { value: 'lifo', label: 'Newest first' },
            ]}
            value={order}
            error={field('processing_order')}
            onChange={(v) => setOrder(v ?? 'fifo')}
            allowDeselect={false}
          />
          <FormError error={form.error} fields={FIELDS} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={form.busy}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
