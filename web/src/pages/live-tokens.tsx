import { Button, Card, Stack, Text } from '@mantine/core';
import { api, ok, type Schemas } from '../api/client';
import { useConfirm } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { Empty, FormError, Load } from '../components/states';
import { when } from '../lib/format';
import { useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';

/**
 * The account's live short-lived tokens (POST /v1/tokens, or SMSGate's /auth/token), each with a
 * revoke button: a revoked token is refused from the next request on.
 */
export function LiveTokens({ keys }: { keys: Schemas['APIKey'][] }) {
  const confirm = useConfirm();
  const state = useLoad(() => ok(api.GET('/v1/tokens', { params: { query: { limit: 200 } } })).then((r) => r.data), []);
  const actions = useSubmit({ onDone: state.reload });
  const minter = (t: Schemas['Token']) =>
    t.api_key_id ? (keys.find((k) => k.id === t.api_key_id)?.name ?? 'an API key') : 'the dashboard';

  async function revoke(t: Schemas['Token']) {
    const yes = await confirm({
      title: `Revoke ${t.prefix}…?`,
      message: 'Requests with this token are refused from now on.',
      confirmLabel: 'Revoke',
    });
    if (yes) await actions.run(() => ok(api.DELETE('/v1/tokens/{id}', { params: { path: { id: t.id } } })));
  }

  return (
    <Card withBorder component="section" aria-label="Live tokens">
      <Stack>
        <Text fw={600} component="h2">
          Live tokens
        </Text>
        <FormError error={actions.error} />
        <Load state={state}>
          {(tokens) =>
            tokens.length === 0 ? (
              <Empty title="No live tokens">Short-lived tokens minted with POST /v1/tokens are listed here.</Empty>
            ) : (
              <DataTable
                label="Live tokens"
                rows={tokens}
                rowKey={(t) => t.id}
                rowTestId="token-row"
                minWidth={560}
                columns={[
                  { label: 'Token', card: 'title', cell: (t) => <code>{t.prefix}…</code> },
                  { label: 'Scopes', cell: (t) => t.scopes.join(', ') },
                  { label: 'Minted by', cell: minter },
                  { label: 'Expires', cell: (t) => when(t.expires_at) },
                  {
                    label: 'Actions',
                    card: 'actions',
                    cell: (t) => (
                      <Button
                        size="compact-xs"
                        variant="default"
                        aria-label={`Revoke token ${t.prefix}`}
                        onClick={() => void revoke(t)}
                      >
                        Revoke
                      </Button>
                    ),
                  },
                ]}
              />
            )
          }
        </Load>
      </Stack>
    </Card>
  );
}
