import { Anchor, Card, Group, Stack, Text } from '@mantine/core';
import { api, ok } from '../api/client';
import { batchOutcome, BatchProgress } from '../components/batch-progress';
import { MessagesTable } from '../components/messages-table';
import { Page } from '../components/page';
import { StatusBadge } from '../components/status-badge';
import { Load } from '../components/states';
import { count, when } from '../lib/format';
import { Link } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { estimate } from './batches';

export function BatchDetail({ id }: { id: string }) {
  const state = useLoad(() => ok(api.GET('/v1/batches/{id}', { params: { path: { id } } })), [id], 3000);
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
                <Text style={{ whiteSpace: 'pre-wrap' }}>{batch.body}</Text>
                <BatchProgress batch={batch} />
                <Text size="sm" data-testid="batch-counts">
                  {count(batch.delivered_count)} delivered of {count(batch.recipient_count)} · {count(batch.sent_count)}{' '}
                  sent · {count(batch.failed_count)} failed · {count(batch.unknown_count)} unknown
                </Text>
                <Text size="sm" c="dimmed">
                  Completion: {estimate(batch)}
                </Text>
                {batch.error && (
                  <Text size="sm" c="red.9">
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
