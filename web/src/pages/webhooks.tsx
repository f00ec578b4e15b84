import {
  Anchor,
  Button,
  Card,
  Checkbox,
  Group,
  Modal,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { useConfirm } from '../components/confirm';
import { Page } from '../components/page';
import { ShownOnce } from '../components/shown-once';
import { StatusBadge } from '../components/status-badge';
import { Empty, FormError, Load } from '../components/states';
import { CopyId } from '../components/copy-value';
import { deliveryAnswer } from '../lib/delivery-errors';
import { ago, plural, when } from '../lib/format';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';
import { Deliveries } from './deliveries';

export const EVENTS = [
  'message.received',
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.unknown',
  'device.online',
  'device.offline',
] as const;
type Event = Schemas['Webhook']['events'][number];

export function Webhooks() {
  const confirm = useConfirm();
  const state = useLoad(() => ok(api.GET('/v1/webhooks')).then((r) => r.data), [], LIVE_MS);
  const phones = useLoad(() => ok(api.GET('/v1/devices')).then((r) => r.data), []);
  // Until the phones have loaded, a tied webhook's phone is not yet known to be unpaired.
  const phoneName = (id: string | null) =>
    id === null
      ? 'All phones'
      : !phones.data
        ? 'One phone'
        : (phones.data.find((d) => d.id === id)?.name ?? 'A phone no longer paired');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Schemas['Webhook'] | null>(null);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [deliveriesTick, setDeliveriesTick] = useState(0);
  // After each action the webhooks and the delivery log are asked again.
  const actions = useSubmit({
    onDone: () => {
      state.reload();
      setDeliveriesTick((t) => t + 1);
    },
  });
  const path = (w: Schemas['Webhook']) => ({ params: { path: { id: w.id } } });
  const [pings, setPings] = useState<Record<string, string>>({});

  // Pausing fails every delivery still waiting (pending or retrying) and nothing missed is replayed
  // on resume, so it asks first, with the count.
  async function pause(w: Schemas['Webhook']) {
    const waiting = await Promise.all(
      (['pending', 'retrying'] as const).map((status) =>
        ok(api.GET('/v1/webhooks/deliveries', { params: { query: { webhook_id: w.id, status, limit: 200 } } })).then(
          (r) => r.data.length,
        ),
      ),
    ).then(([pending, retrying]) => pending + retrying);
    const yes = await confirm({
      title: `Pause ${w.name ?? w.url}?`,
      message:
        'No events are delivered while it is paused, and those it misses are not sent when it resumes.' +
        (waiting > 0
          ? ` ${plural(waiting, 'delivery', 'deliveries')} still waiting to be sent or retried ${waiting === 1 ? 'is' : 'are'} failed now.`
          : ''),
      confirmLabel: 'Pause',
    });
    if (yes) await actions.run(() => ok(api.PATCH('/v1/webhooks/{id}', { ...path(w), body: { enabled: false } })));
  }

  return (
    <Page title="Webhooks" actions={<Button onClick={() => setCreating(true)}>Add a webhook</Button>}>
      {secret && <ShownOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      <FormError error={actions.error} />
      <Load state={state}>
        {(hooks) =>
          hooks.length === 0 ? (
            <Empty title="No webhooks yet">
              Add one to hear about sends, deliveries and received texts as they happen.
            </Empty>
          ) : (
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              {hooks.map((w) => (
                <Card withBorder key={w.id} component="section" aria-label={w.name ?? w.url} data-testid="webhook">
                  <Stack gap="xs">
                    <Group justify="space-between" wrap="nowrap">
                      <Text fw={600} component="h2" style={{ wordBreak: 'break-all' }}>
                        {w.name ?? w.url}
                      </Text>
                      <StatusBadge status={w.enabled ? 'active' : 'paused'} />
                    </Group>
                    <Text size="sm" style={{ wordBreak: 'break-all' }}>
                      {w.url}
                    </Text>
                    {!w.enabled && w.disabled_reason && (
                      <Text size="sm" c="var(--pg-warn)" data-testid="pause-reason">
                        Paused: {w.disabled_reason}
                      </Text>
                    )}
                    <Group gap="xs" wrap="nowrap">
                      <Text size="xs" c="dimmed">
                        ID
                      </Text>
                      <CopyId id={w.id} of={`the webhook ${w.name ?? w.url}`} testId="webhook-id" />
                    </Group>
                    <Text size="xs" c="dimmed">
                      Events: {w.events.join(', ')}
                    </Text>
                    <Text size="xs" c="dimmed" data-testid="webhook-phone">
                      Phones: {phoneName(w.device_id)}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {w.success_count} delivered · {w.failure_count} failed · last attempt {ago(w.last_attempt_at)}
                    </Text>
                    <Switch
                      label={w.enabled ? 'Enabled' : 'Paused'}
                      checked={w.enabled}
                      // The box shows what the webhook is until the change is made (a pause may be
                      // cancelled): put it back at once, or React takes the next click for no change.
                      onChange={(e) => {
                        e.currentTarget.checked = w.enabled;
                        if (w.enabled) return void pause(w).catch(actions.setError);
                        void actions.run(() =>
                          ok(api.PATCH('/v1/webhooks/{id}', { ...path(w), body: { enabled: true } })),
                        );
                      }}
                    />
                    <Group gap="xs">
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() =>
                          void actions.run(async () => {
                            const { delivery } = await ok(api.POST('/v1/webhooks/{id}/test', path(w)));
                            setPings((p) => ({ ...p, [w.id]: delivery.id }));
                          })
                        }
                      >
                        Send test ping
                      </Button>
                      <Button size="xs" variant="default" onClick={() => setEditing(w)}>
                        Edit
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() =>
                          void (async () => {
                            const yes = await confirm({
                              title: 'Rotate the signing secret?',
                              message:
                                'Deliveries are signed with the new secret at once; receivers checking the old one will reject them.',
                              confirmLabel: 'Rotate',
                            });
                            if (yes)
                              await actions.run(async () => {
                                const { secret: value } = await ok(
                                  api.POST('/v1/webhooks/{id}/rotate-secret', path(w)),
                                );
                                setSecret({ label: `New signing secret of ${w.name ?? w.url}`, value });
                              });
                          })()
                        }
                      >
                        Rotate secret
                      </Button>
                      <Button
                        size="xs"
                        color="red"
                        variant="light"
                        onClick={() =>
                          void (async () => {
                            const yes = await confirm({
                              title: 'Delete this webhook?',
                              message: `${w.url} stops receiving events. Pending deliveries are abandoned.`,
                              confirmLabel: 'Delete',
                            });
                            if (yes) await actions.run(() => ok(api.DELETE('/v1/webhooks/{id}', path(w))));
                          })()
                        }
                      >
                        <span style={{ color: 'var(--pg-danger)' }}>Delete</span>
                      </Button>
                    </Group>
                    {pings[w.id] && <PingResult key={pings[w.id]} deliveryId={pings[w.id]} />}
                    <Text size="xs" c="dimmed">
                      Created {when(w.created_at)}
                    </Text>
                  </Stack>
                </Card>
              ))}
            </SimpleGrid>
          )
        }
      </Load>
      <Deliveries webhooks={state.data ?? []} tick={deliveriesTick} />
      {(creating || editing) && (
        <WebhookForm
          webhook={editing}
          phones={phones.data ?? []}
          onClose={() => {
            setCreating(false);
            setEditing(null);
          }}
          onSaved={(newSecret) => {
            if (newSecret) setSecret({ label: 'Signing secret', value: newSecret });
            setCreating(false);
            setEditing(null);
            state.reload();
          }}
        />
      )}
    </Page>
  );
}

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** What became of a test ping, beside its button: followed until it is delivered or given up. */
function PingResult({ deliveryId }: { deliveryId: string }) {
  const [final, setFinal] = useState(false);
  const state = useLoad(
    () =>
      ok(api.GET('/v1/webhooks/deliveries/{id}', { params: { path: { id: deliveryId } } })).then((r) => {
        if (r.delivery.status === 'delivered' || r.delivery.status === 'failed') setFinal(true);
        return r.delivery;
      }),
    [deliveryId],
    final ? undefined : 1000,
  );
  const d = state.data;
  // A redelivery that reaches the receiver ends this ping's retries; one that fails leaves them.
  const redelivered =
    d && d.redeliveries.length > 0
      ? ' Redelivered; until a redelivery reaches the receiver, this ping keeps its retries.'
      : '';
  const text = !d
    ? 'Ping sent; waiting for the answer…'
    : d.superseded_by
      ? 'Ping redelivered: the redelivery reached the receiver, so this ping is not retried.'
      : d.status === 'delivered'
        ? `Ping delivered: the receiver answered ${deliveryAnswer(d)}.`
        : d.status === 'retrying'
          ? `Ping not accepted: ${sentence(deliveryAnswer(d))}${redelivered} Retrying ${d.next_attempt_at ? ago(d.next_attempt_at) : 'soon'}.`
          : d.status === 'failed'
            ? `Ping failed: ${sentence(deliveryAnswer(d))}`
            : 'Ping sent; waiting for the answer…';
  return (
    <Text
      size="sm"
      role="status"
      c={d?.status === 'delivered' ? 'var(--pg-ok)' : d && d.status !== 'pending' ? 'var(--pg-danger)' : undefined}
      data-testid="ping-result"
    >
      {text}
    </Text>
  );
}

function WebhookForm({
  webhook,
  phones,
  onClose,
  onSaved,
}: {
  webhook: Schemas['Webhook'] | null;
  phones: Schemas['Device'][];
  onClose(): void;
  onSaved(secret?: string): void;
}) {
  const [url, setUrl] = useState(webhook?.url ?? 'https://');
  const [name, setName] = useState(webhook?.name ?? '');
  // '' is every phone of the account; a phone's id ties the webhook to that phone's events.
  const [phone, setPhone] = useState(webhook?.device_id ?? '');
  const [events, setEvents] = useState<string[]>(
    webhook?.events ?? ['message.received', 'message.delivered', 'message.failed'],
  );
  const form = useSubmit();
  const field = form.field;

  const submit = form.submit(async () => {
    const body = { url, name: name || null, events: events as Event[], device_id: phone || null };
    if (webhook) {
      await ok(api.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body }));
      onSaved();
    } else {
      const created = await ok(api.POST('/v1/webhooks', { body }));
      onSaved(created.secret);
    }
  });

  return (
    <Modal opened onClose={onClose} title={webhook ? 'Edit webhook' : 'Add a webhook'}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput
            label="URL"
            description="An https URL (under npm start, http://localhost or http://127.0.0.1 works too)"
            required
            value={url}
            error={field('url')}
            onChange={(e) => setUrl(e.currentTarget.value)}
          />
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Select
            label="Phones"
            description="Events of every phone, or only those of one phone (its messages, received texts, online and offline)"
            data={[
              { value: '', label: 'All phones' },
              ...phones.map((d) => ({ value: d.id, label: d.name })),
              ...(phone && !phones.some((d) => d.id === phone)
                ? [{ value: phone, label: 'A phone no longer paired' }]
                : []),
            ]}
            value={phone}
            allowDeselect={false}
            error={field('device_id')}
            onChange={(value) => setPhone(value ?? '')}
          />
          <Checkbox.Group label="Events" value={events} onChange={setEvents} error={field('events')} required>
            <Stack gap={6} mt={6}>
              {EVENTS.map((e) => (
                <Checkbox key={e} value={e} label={e} />
              ))}
            </Stack>
          </Checkbox.Group>
          <Text size="xs" c="dimmed">
            Deliveries are signed:{' '}
            <Anchor href="/docs" size="xs">
              see the API reference
            </Anchor>{' '}
            for checking the signature.
          </Text>
          <FormError error={form.error} fields={['url', 'device_id', 'events']} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={form.busy}>
              {webhook ? 'Save' : 'Create'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
