import { Button, Group, Modal, NumberInput, Select, Stack, Switch, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, ok, type Schemas } from '../api/client';
import { FormError } from '../components/states';
import { simsOf } from './phones';

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
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = (n: string) => (error instanceof ApiFailure ? error.field(n) : undefined);

  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = {
        name,
        enabled,
        receive_enabled: receive,
        send_delay_seconds: delay,
        heartbeat_interval_minutes: interval,
        ...(sim ? { preferred_sim_subscription_id: Number(sim) } : { clear_preferred_sim: true }),
      };
      const { device: saved } = await ok(api.PATCH('/v1/devices/{id}', { params: { path: { id: device.id } }, body }));
      onSaved(saved);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

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
          <FormError error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export function simLabel(s: { subscription_id: number; carrier?: string; slot?: number }) {
  return `SIM ${s.slot !== undefined ? s.slot + 1 : s.subscription_id}${s.carrier ? ` · ${s.carrier}` : ''}`;
}
