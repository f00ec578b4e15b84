import { Button, Checkbox, Group, Modal, Stack, TextInput } from '@mantine/core';
import { DataTable } from '../components/data-table';
import { useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { useConfirm } from '../components/confirm';
import { Page } from '../components/page';
import { ShownOnce } from '../components/shown-once';
import { StatusBadge } from '../components/status-badge';
import { Empty, FormError, Load } from '../components/states';
import { CopyId } from '../components/copy-value';
import { ago, localInputToIso, timeZone, when } from '../lib/format';
import { useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';
import { LiveTokens } from './live-tokens';

const SCOPES = [
  { value: 'send', label: 'send: send texts' },
  { value: 'read', label: 'read: read messages, batches and stats' },
  { value: 'devices', label: 'devices: pair and manage phones' },
  { value: 'webhooks', label: 'webhooks: manage webhooks' },
] as const;
type Scope = Schemas['APIKey']['scopes'][number];

function keyStatus(k: Schemas['APIKey']): string {
  if (k.revoked_at) return 'revoked';
  if (k.expires_at && new Date(k.expires_at).getTime() <= Date.now()) return 'expired';
  return 'active';
}

export function ApiKeys() {
  const confirm = useConfirm();
  const state = useLoad(
    () => ok(api.GET('/v1/api-keys', { params: { query: { include_revoked: true } } })).then((r) => r.data),
    [],
  );
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<Schemas['APIKey'] | null>(null);
  const [shown, setShown] = useState<string | null>(null);
  const actions = useSubmit({ onDone: state.reload });
  const path = (k: Schemas['APIKey']) => ({ params: { path: { id: k.id } } });

  return (
    <Page title="API keys" actions={<Button onClick={() => setCreating(true)}>Create a key</Button>}>
      {shown && <ShownOnce label="API key" value={shown} onDone={() => setShown(null)} />}
      <FormError error={actions.error} />
      <Load state={state}>
        {(keys) =>
          keys.length === 0 ? (
            <Empty title="No API keys yet">Create one to send texts from your own code.</Empty>
          ) : (
            <DataTable
              label="API keys"
              rows={keys}
              rowKey={(k) => k.id}
              rowTestId="api-key-row"
              minWidth={640}
              columns={[
                { label: 'Name', card: 'title', cell: (k) => k.name },
                { label: 'Key', cell: (k) => <code>{k.prefix}…</code> },
                { label: 'ID', miw: 200, cell: (k) => <CopyId id={k.id} of={`the key ${k.name}`} testId="key-id" /> },
                { label: 'Scopes', cell: (k) => k.scopes.join(', ') },
                { label: 'Used', cell: (k) => `${k.use_count}× · ${ago(k.last_used_at)}` },
                { label: 'Expires', cell: (k) => (k.expires_at ? when(k.expires_at) : 'never') },
                { label: 'Status', card: 'status', cell: (k) => <StatusBadge status={keyStatus(k)} /> },
                {
                  label: 'Actions',
                  card: 'actions',
                  cell: (k) => (
                    <>
                      <Button
                        size="compact-xs"
                        variant="default"
                        onClick={() => setRenaming(k)}
                        aria-label={`Rename ${k.name}`}
                      >
                        Rename
                      </Button>
                      {!k.revoked_at && (
                        <Button
                          size="compact-xs"
                          variant="default"
                          aria-label={`Revoke ${k.name}`}
                          onClick={() =>
                            void (async () => {
                              const yes = await confirm({
                                title: `Revoke ${k.name}?`,
                                message: 'Requests with this key are refused from now on. It stays listed as revoked.',
                                confirmLabel: 'Revoke',
                              });
                              if (yes) await actions.run(() => ok(api.POST('/v1/api-keys/{id}/revoke', path(k))));
                            })()
                          }
                        >
                          Revoke
                        </Button>
                      )}
                      <Button
                        size="compact-xs"
                        variant="light"
                        color="red"
                        aria-label={`Delete ${k.name}`}
                        onClick={() =>
                          void (async () => {
                            const yes = await confirm({
                              title: `Delete ${k.name}?`,
                              message: 'The key stops working and disappears from this list.',
                              confirmLabel: 'Delete',
                            });
                            if (yes) await actions.run(() => ok(api.DELETE('/v1/api-keys/{id}', path(k))));
                          })()
                        }
                      >
                        <span style={{ color: 'var(--pg-danger)' }}>Delete</span>
                      </Button>
                    </>
                  ),
                },
              ]}
            />
          )
        }
      </Load>
      {/* Keyed by the keys' state: revoking or deleting a key ends its tokens, so the list reloads. */}
      {state.data && (
        <LiveTokens key={state.data.map((k) => `${k.id}:${k.revoked_at ?? ''}`).join()} keys={state.data} />
      )}
      {creating && (
        <CreateKey
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setShown(key);
            state.reload();
          }}
        />
      )}
      {renaming && (
        <RenameKey
          apiKey={renaming}
          onClose={() => setRenaming(null)}
          onSaved={() => {
            setRenaming(null);
            state.reload();
          }}
        />
      )}
    </Page>
  );
}

function CreateKey({ onClose, onCreated }: { onClose(): void; onCreated(key: string): void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(SCOPES.map((s) => s.value));
  const [expires, setExpires] = useState('');
  const form = useSubmit();
  const field = form.field;
  const submit = form.submit(async () => {
    const created = await ok(
      api.POST('/v1/api-keys', { body: { name, scopes: scopes as Scope[], expires_at: localInputToIso(expires) } }),
    );
    onCreated(created.key);
  });

  return (
    <Modal opened onClose={onClose} title="Create an API key">
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput
            label="Name"
            required
            value={name}
            error={field('name')}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          <Checkbox.Group label="Scopes" value={scopes} onChange={setScopes} error={field('scopes')}>
            <Stack gap={6} mt={6}>
              {SCOPES.map((s) => (
                <Checkbox key={s.value} value={s.value} label={s.label} />
              ))}
            </Stack>
          </Checkbox.Group>
          <TextInput
            type="datetime-local"
            label={`Expires (${timeZone}, optional)`}
            value={expires}
            error={field('expires_at')}
            onChange={(e) => setExpires(e.currentTarget.value)}
          />
          <FormError error={form.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={form.busy}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RenameKey({ apiKey, onClose, onSaved }: { apiKey: Schemas['APIKey']; onClose(): void; onSaved(): void }) {
  const [name, setName] = useState(apiKey.name);
  const form = useSubmit();
  const submit = form.submit(async () => {
    await ok(api.PATCH('/v1/api-keys/{id}', { params: { path: { id: apiKey.id } }, body: { name } }));
    onSaved();
  });
  return (
    <Modal opened onClose={onClose} title={`Rename ${apiKey.name}`}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput
            label="New name"
            required
            value={name}
            error={form.field('name')}
            onChange={(e) => setName(e.currentTarget.value)}
            data-autofocus
          />
          <FormError error={form.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit">Save</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
