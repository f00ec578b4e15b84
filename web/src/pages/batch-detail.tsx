import { Anchor, Button, Card, Group, Stack, Text } from '@mantine/core';
import { api, ok, type Schemas } from '../api/client';
import { batchFaulted, batchOutcome, BatchProgress } from '../components/batch-progress';
import { MessagesTable } from '../components/messages-table';
import { Page } from '../components/page';
import { StatusBadge } from '../components/status-badge';
import { FormError, Load } from '../components/states';
import { useConfirm } from '../components/confirm';
import { useState } from 'react';
import { count, plural, when } from '../lib/format';
import { realFailures } from '../lib/outcomes';
import { Link } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { estimate } from './batches';
import { EncryptedMark } from '../components/encrypted';
import { messageContent } from '../components/message-content';
import { CopyId } from '../components/copy-value';

/** A send can be cancelled while texts of it are still waiting (not yet taken by a phone). */
const CANCELLABLE = ['scheduled', 'queued', 'sending'];

export function BatchDetail({ id }: { id: string }) {
  const state = useLoad(() => ok(api.GET('/v1/batches/{id}', { params: { path: { id } } })), [id], LIVE_MS);
  const confirm = useConfirm();
  const [error, setError] = useState<unknown>(null);
  async function cancel(batch: Schemas['Batch']) {
    const yes = await confirm({
      title: 'Cancel this send?',
      message: `Its ${plural(batch.recipient_count, 'text')} not yet taken by a phone are not sent; texts already on a phone still go out.`,
      confirmLabel: 'Cancel the send',
    });
    if (!yes) return;
    setError(null);
    try {
      await ok(api.POST('/v1/batches/{id}/cancel', { params: { path: { id: batch.id } } }));
      state.reload();
    } catch (e) {
      setError(e);
    }
  }
  return (
    <Page title="Batch">
      <Anchor component={Link} href="/batches" size="sm">
        ← All batches
      </Anchor>
      <Load state={state}>
        {({ batch, messages }) => (
          <Stack>
            <Card withBorder>
              <Stack gap="xs">
                <Group justify="space-between">
                  <Text size="sm">Created {when(batch.created_at)}</Text>
                  <span data-testid="batch-status">
                    <StatusBadge status={batchOutcome(batch)} />
                  </span>
                </Group>
                {batch.encrypted ? (
                  <EncryptedMark what="text" />
                ) : (
                  <Text style={{ whiteSpace: 'pre-wrap' }}>{messageContent(batch)}</Text>
                )}
                <BatchProgress batch={batch} />
                {CANCELLABLE.includes(batch.status) && (
                  <Group>
                    <Button size="xs" color="red.9" variant="outline" onClick={() => void cancel(batch)}>
                      <span style={{ color: 'var(--pg-danger)' }}>Cancel the send</span>
                    </Button>
                  </Group>
                )}
                <FormError error={error} />
                <Text size="sm" data-testid="batch-counts">
                  {count(batch.delivered_count)} delivered of {count(batch.recipient_count)} · {count(batch.sent_count)}{' '}
                  sent · {count(realFailures(batch))} failed · {count(batch.unknown_count)} unknown
                  {batch.cancelled_count > 0 && ` · ${count(batch.cancelled_count)} cancelled`}
                  {batch.opted_out_count > 0 && ` · ${count(batch.opted_out_count)} opted out`}
                </Text>
                <Text size="sm" c="dimmed">
                  Completion: {estimate(batch)}
                </Text>
                <Group gap="xs" wrap="nowrap">
                  <Text size="sm" c="dimmed">
                    Batch ID
                  </Text>
                  <CopyId id={batch.id} of="the batch" testId="batch-id" />
                </Group>
                {batch.error && (
                  <Text size="sm" c={batchFaulted(batch) ? 'var(--pg-danger)' : 'dimmed'} data-testid="batch-error">
                    {batch.error}
                  </Text>
                )}
              </Stack>
            </Card>
            <MessagesTable messages={messages} label="Messages of this batch" />
          </Stack>
        )}
      </Load>
    </Page>
  );
}
