import { Anchor, Button, Card, Group, Stack, Text } from '@mantine/core';
import { api, ok, type Schemas } from '../api/client';
import { batchFaulted, batchOutcome, BatchProgress } from '../components/batch-progress';
import { MessagesTable } from '../components/messages-table';
import { Page } from '../components/page';
import { StatusBadge } from '../components/status-badge';
import { FormError, Load } from '../components/states';
import { useConfirm } from '../components/confirm';
import { count, plural, when } from '../lib/format';
import { realFailures } from '../lib/outcomes';
import { Link, navigate } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { useSubmit } from '../lib/use-submit';
import { estimate } from './batches';
import { EncryptedMark } from '../components/encrypted';
import { dataLabel, messageContent } from '../components/message-content';
import { CopyId } from '../components/copy-value';

/** A send can be cancelled while texts of it are still waiting (not yet taken by a phone). */
const CANCELLABLE = ['scheduled', 'queued', 'sending'];

export function BatchDetail({ id }: { id: string }) {
  const state = useLoad(() => ok(api.GET('/v1/batches/{id}', { params: { path: { id } } })), [id], LIVE_MS);
  const confirm = useConfirm();
  const actions = useSubmit();
  /** A new send of the failed texts (not the cancelled ones, nor to opted-out numbers), linked to this one. */
  async function retry(batch: Schemas['Batch']) {
    const failed = realFailures(batch);
    const yes = await confirm({
      title: `Retry ${plural(failed, 'failed text')}?`,
      message: `A new send of ${failed === 1 ? 'it' : 'them'}, each with the text it had, from the same phone. Cancelled texts and opted-out numbers are left out. It counts against the plan as any send.`,
      confirmLabel: 'Retry',
    });
    if (!yes) return;
    await actions.run(async () => {
      // One key per batch: a second click, or a retried request, is answered with the same new send.
      const made = await ok(
        api.POST('/v1/batches/{id}/retry-failed', {
          params: { path: { id: batch.id }, header: { 'Idempotency-Key': `retry-failed-${batch.id}` } },
        }),
      );
      navigate(`/batches/${made.batch.id}`);
    });
  }

  async function cancel(batch: Schemas['Batch']) {
    const yes = await confirm({
      title: 'Cancel this send?',
      message:
        batch.recipient_count === 1
          ? 'Its text is not sent if no phone has taken it yet; once on a phone, it still goes out.'
          : `Its ${plural(batch.recipient_count, 'text')} not yet taken by a phone are not sent; texts already on a phone still go out.`,
      confirmLabel: 'Cancel send',
      // Two buttons named "Cancel" would leave a person guessing which one stops the send.
      cancelLabel: 'Keep sending',
    });
    if (!yes) return;
    await actions.run(async () => {
      await ok(api.POST('/v1/batches/{id}/cancel', { params: { path: { id: batch.id } } }));
      state.reload();
    });
  }
  return (
    <Page title={state.data ? batchTitle(state.data.batch) : 'Batch'}>
      <Anchor component={Link} href="/batches" size="sm">
        ← All batches
      </Anchor>
      <Load state={state} missing="No batch has this id in this account. It may be a mistyped link.">
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
                    <Button size="xs" variant="default" onClick={() => void cancel(batch)}>
                      Cancel the send
                    </Button>
                  </Group>
                )}
                {(batch.retry_of || batch.retried_by) && (
                  <Group gap="md" data-testid="batch-retries">
                    {batch.retry_of && (
                      <Anchor component={Link} href={`/batches/${batch.retry_of}`} size="sm">
                        Retries the failed texts of an earlier send
                      </Anchor>
                    )}
                    {batch.retried_by && (
                      <Anchor component={Link} href={`/batches/${batch.retried_by}`} size="sm">
                        Its failed texts were retried: see that send
                      </Anchor>
                    )}
                  </Group>
                )}
                {realFailures(batch) > 0 && !batch.retried_by && !CANCELLABLE.includes(batch.status) && (
                  <Group>
                    <Button size="xs" variant="outline" onClick={() => void retry(batch)}>
                      Retry {plural(realFailures(batch), 'failed text')}
                    </Button>
                  </Group>
                )}
                <FormError error={actions.error} />
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

/** A batch's title says which send it is: its first words (or its kind) and how many it went to. */
export function batchTitle(batch: Schemas['Batch']): string {
  const to = `to ${plural(batch.recipient_count, 'recipient')}`;
  if (batch.encrypted) return `Encrypted send ${to}`;
  if (batch.data) return `${dataLabel(batch.data)}, ${to}`;
  const words = batch.body.trim().split(/\s+/).filter(Boolean);
  const start = words.slice(0, 6).join(' ');
  return start ? `“${start}${words.length > 6 ? '…' : ''}” ${to}` : `Send ${to}`;
}
