import {
  Anchor,
  Button,
  Card,
  Checkbox,
  Group,
  Modal,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, ok, type Schemas } from '../api/client';
import { useConfirm } from '../components/confirm';
import { Page } from '../components/page';
import { ShownOnce } from '../components/shown-once';
import { StatusBadge } from '../components/status-badge';
import { Empty, FormError, Load } from '../components/states';
import { ago, when } from '../lib/format';
import { useLoad } from '../lib/use-load';
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
  const state = useLoad(() => ok(api.GET('/v1/webhooks')).then((r) => r.data), []);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Schemas['Webhook'] | null>(null);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [deliveriesTick, setDeliveriesTick] = useState(0);

  async function act(run: () => Promise<unknown>) {
    setError(null);
    try {
      await run();
      state.reload();
      setDeliveriesTick((t) => t + 1);
    } catch (e) {
      setError(e);
    }
  }
  const path = (w: Schemas['Webhook']) => ({ params: { path: { id: w.id } } });

  return (
    <Page title="Webhooks" actions={<Button onClick={() => setCreating(true)}>Add a webhook</Button>}>
      {secret && <ShownOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      <FormError error={error} />
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
                      <Text size="sm" c="orange.9" data-testid="pause-reason">
                        Paused: {w.disabled_reason}
                      </Text>
                    )}
                    <Text size="xs" c="dimmed">
                      Events: {w.events.join(', ')}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {w.success_count} delivered · {w.failure_count} failed · last attempt {ago(w.last_attempt_at)}
                    </Text>
                    <Switch
                      label={w.enabled ? 'Enabled' : 'Paused'}
                      checked={w.enabled}
                      onChange={(e) => {
                        const enabled = e.currentTarget.checked;
                        void act(() => ok(api.PATCH('/v1/webhooks/{id}', { ...path(w), body: { enabled } })));
                      }}
                    />
                    <Group gap="xs">
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() => void act(() => ok(api.POST('/v1/webhooks/{id}/test', path(w))))}
                      >
                        Send test ping
                      </Button>
                      <Button size="xs" variant="default" onClick={() => setEditing(w)}>
                        Edit
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        onClick={async () => {
                          const yes = await confirm({
                            title: 'Rotate the signing secret?',
                            message:
                              'Deliveries are signed with the new secret at once; receivers checking the old one will reject them.',
                            confirmLabel: 'Rotate',
                          });
                          if (yes)
                            await act(async () => {
                              const { secret: value } = await ok(api.POST('/v1/webhooks/{id}/rotate-secret', path(w)));
                              setSecret({ label: `New signing secret of ${w.name ?? w.url}`, value });
                            });
                        }}
                      >
                        Rotate secret
                      </Button>
                      <Button
                        size="xs"
                        color="red"
                        variant="light"
                        onClick={async () => {
                          const yes = await confirm({
                            title: 'Delete this webhook?',
                            message: `${w.url} stops receiving events. Pending deliveries are abandoned.`,
                            confirmLabel: 'Delete',
                          });
                          if (yes) await act(() => ok(api.DELETE('/v1/webhooks/{id}', path(w))));
                        }}
                      >
                        <span style={{ color: 'var(--mantine-color-red-9)' }}>Delete</span>
                      </Button>
                    </Group>
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

function WebhookForm({
  webhook,
  onClose,
  onSaved,
}: {
  webhook: Schemas['Webhook'] | null;
  onClose(): void;
  onSaved(secret?: string): void;
}) {
  const [url, setUrl] = useState(webhook?.url ?? 'https://');
  const [name, setName] = useState(webhook?.name ?? '');
  const [events, setEvents] = useState<string[]>(
    webhook?.events ?? ['message.received', 'message.delivered', 'message.failed'],
  );
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = (n: string) => (error instanceof ApiFailure ? error.field(n) : undefined);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { url, name: name || null, events: events as Event[] };
      if (webhook) {
        await ok(api.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body }));
        onSaved();
      } else {
        const created = await ok(api.POST('/v1/webhooks', { body }));
        onSaved(created.secret);
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal opened onClose={onClose} title={webhook ? 'Edit webhook' : 'Add a webhook'}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput
            label="URL"
            description="Must be https"
            required
            value={url}
            error={field('url')}
            onChange={(e) => setUrl(e.currentTarget.value)}
          />
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
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
          <FormError error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              {webhook ? 'Save' : 'Create'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
