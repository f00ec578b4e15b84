import { Anchor, Button, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../api/client';
import { LoadMore } from '../components/load-more';
import { MessagesTable } from '../components/messages-table';
import { Page } from '../components/page';
import { Empty, FormError, Load } from '../components/states';
import { plural } from '../lib/format';
import { Link, useLocation } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';
import { usePagedList } from '../lib/use-paged-list';
import { useSubmit } from '../lib/use-submit';
import { exportMessages } from './messages/export-csv';
import { filtersOf, MessageFilters, queryOf } from './messages/filters';

/** Every filter of GET /v1/messages, kept in the URL so a filtered view can be shared and reloaded. */
export function Messages() {
  const { search } = useLocation();
  const filters = filtersOf(search);
  const devices = useLoad(() => ok(api.GET('/v1/devices')).then((r) => r.data), []);
  const query = queryOf(filters);
  const key = search.toString();
  // One place for what went wrong: a page that would not load, or the export.
  const actions = useSubmit();
  const list = usePagedList(
    (cursor) => ok(api.GET('/v1/messages', { params: { query: { ...query, cursor } } })),
    [key],
    { pollMs: LIVE_MS, onError: actions.setError },
  );
  const [exporting, setExporting] = useState<string | null>(null);

  const exportCsv = () =>
    actions.run(
      async () => {
        setExporting('Exporting…');
        try {
          const { count, file } = await exportMessages(query, (read) =>
            setExporting(`Exporting… ${plural(read, 'message')}`),
          );
          setExporting(`${plural(count, 'message')} exported to ${file}.`);
        } catch (e) {
          setExporting(null);
          throw e;
        }
      },
      { busy: false },
    );

  return (
    <Page
      title="Messages"
      actions={
        <Button variant="default" onClick={() => void exportCsv()} loading={exporting === 'Exporting…'}>
          Export CSV
        </Button>
      }
    >
      {exporting && exporting !== 'Exporting…' && (
        <Text size="sm" role="status">
          {exporting}
        </Text>
      )}
      <MessageFilters filters={filters} devices={devices.data ?? []} />
      <Load state={list}>
        {({ rows }) => {
          if (rows.length === 0 && key === '')
            return (
              <Empty title="No messages yet">
                Texts you{' '}
                <Anchor component={Link} href="/send">
                  send
                </Anchor>{' '}
                and texts your phones receive are listed here.
              </Empty>
            );
          if (rows.length === 0) return <Empty title="No messages match">Change or clear the filters.</Empty>;
          return (
            <Stack>
              <MessagesTable messages={rows} label="Messages" />
              <FormError error={actions.error} />
              <LoadMore list={list} />
            </Stack>
          );
        }}
      </Load>
    </Page>
  );
}
