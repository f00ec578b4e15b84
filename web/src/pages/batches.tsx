import { Anchor, Stack, Text } from '@mantine/core';
import { DataTable } from '../components/data-table';
import { api, ok, type Schemas } from '../api/client';
import { batchOutcome, BatchProgress } from '../components/batch-progress';
import { Page } from '../components/page';
import { StatusBadge } from '../components/status-badge';
import { Empty, FormError, Load } from '../components/states';
import { when } from '../lib/format';
import { Link } from '../lib/router';
import { LIVE_MS } from '../lib/use-load';
import { usePagedList } from '../lib/use-paged-list';
import { LoadMore } from '../components/load-more';
import { EncryptedMark } from '../components/encrypted';
import { messageContent } from '../components/message-content';

const batchesFrom = (cursor: string | undefined) =>
  ok(api.GET('/v1/batches', { params: { query: { limit: 25, cursor } } }));

/** Newest first (the API's order), one progress bar per batch, "Load more" through next_cursor. */
export function Batches() {
  const list = usePagedList(batchesFrom, [], { pollMs: LIVE_MS });

  return (
    <Page title="Batches">
      <Load state={list}>
        {({ rows }) => {
          if (rows.length === 0)
            return (
              <Empty title="No batches yet">
                Every send is a batch.{' '}
                <Anchor component={Link} href="/send">
                  Send a text
                </Anchor>
                .
              </Empty>
            );
          return (
            <Stack>
              <DataTable
                label="Batches"
                rows={rows}
                rowKey={(b) => b.id}
                rowTestId="batch-row"
                minWidth={640}
                columns={[
                  {
                    label: 'Created',
                    card: 'title',
                    cell: (b) => (
                      <Anchor component={Link} href={`/batches/${b.id}`} size="sm">
                        {when(b.created_at)}
                      </Anchor>
                    ),
                  },
                  {
                    label: 'Message',
                    maw: 240,
                    cell: (b) => (
                      <>
                        {b.encrypted ? (
                          <EncryptedMark what="text" />
                        ) : (
                          <Text size="sm" truncate component="span" display="block">
                            {messageContent(b)}
                          </Text>
                        )}
                        <Text size="xs" c="dimmed" component="span" display="block">
                          {b.recipient_preview}
                        </Text>
                      </>
                    ),
                  },
                  { label: 'Status', card: 'status', cell: (b) => <StatusBadge status={batchOutcome(b)} /> },
                  { label: 'Progress', miw: 160, cell: (b) => <BatchProgress batch={b} /> },
                  { label: 'Done by', cell: (b) => estimate(b) },
                ]}
              />
              <FormError error={list.moreError} />
              <LoadMore list={list} />
            </Stack>
          );
        }}
      </Load>
    </Page>
  );
}

export function estimate(b: Schemas['Batch']): string {
  if (b.completed_at) return `done ${when(b.completed_at)}`;
  if (b.scheduled_at && new Date(b.scheduled_at).getTime() > Date.now()) return `scheduled ${when(b.scheduled_at)}`;
  if (b.estimated_completion_at) return `about ${when(b.estimated_completion_at)}`;
  return '—';
}
