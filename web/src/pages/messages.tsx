import { Anchor, Button, Collapse, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { NARROW } from '../components/data-table';
import { MessagesTable } from '../components/messages-table';
import { Page } from '../components/page';
import { Empty, FormError, Load } from '../components/states';
import { toCsv } from '../lib/csv';
import { localInputToIso, plural, timeZone } from '../lib/format';
import { Link, navigate, useLocation } from '../lib/router';
import { LIVE_MS, useLoad } from '../lib/use-load';
import type { paths } from '../api/schema';

const STATUSES = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'unknown', 'received'] as const;
const EXPORT_COLUMNS = [
  'id',
  'created_at',
  'direction',
  'status',
  'sender',
  'recipient',
  'body',
  'encrypted',
  'segments',
  'encoding',
  'device_id',
  'sim_subscription_id',
  'batch_id',
  'sent_at',
  'delivered_at',
  'failed_at',
  'received_at',
  'error_code',
  'error_message',
] as const satisfies ReadonlyArray<keyof Schemas['Message']>;
type Query = NonNullable<paths['/v1/messages']['get']['parameters']['query']>;

/** Every filter of GET /v1/messages, kept in the URL so a filtered view can be shared and reloaded. */
export function Messages() {
  const { search } = useLocation();
  const filters = {
    direction: search.get('direction') ?? '',
    status: search.get('status') ?? '',
    device: search.get('device') ?? '',
    batch: search.get('batch') ?? '',
    q: search.get('q') ?? '',
    from: search.get('from') ?? '',
    to: search.get('to') ?? '',
    order: search.get('order') ?? 'desc',
  };
  const [draft, setDraft] = useState(filters);
  const devices = useLoad(() => ok(api.GET('/v1/devices')).then((r) => r.data), []);
  const query: Query = {
    limit: 50,
    direction: (filters.direction || undefined) as 'inbound' | 'outbound' | undefined,
    status: (filters.status || undefined) as (typeof STATUSES)[number] | undefined,
    device_ids: filters.device || undefined,
    batch_id: filters.batch || undefined,
    q: filters.q || undefined,
    from: localInputToIso(filters.from) ?? undefined,
    to: localInputToIso(filters.to) ?? undefined,
    order: filters.order as 'asc' | 'desc',
  };
  const key = search.toString();
  const first = useLoad(() => ok(api.GET('/v1/messages', { params: { query } })), [key], LIVE_MS);
  const [more, setMore] = useState<{ key: string; rows: Schemas['Message'][]; cursor?: string }>({ key, rows: [] });
  const [error, setError] = useState<unknown>(null);
  const narrow = useMediaQuery(NARROW, false, { getInitialValueInEffect: false });
  const [filtersOpen, setFiltersOpen] = useState(false);
  const active = Object.entries(filters).filter(([k, v]) => v && !(k === 'order' && v === 'desc')).length;
  const [exporting, setExporting] = useState<string | null>(null);
  const extra = more.key === key ? more : { key, rows: [], cursor: undefined };

  function apply(next: typeof filters) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v && !(k === 'order' && v === 'desc')) params.set(k, v);
    navigate(`/messages${params.size ? `?${params}` : ''}`);
  }

  async function loadMore(cursor: string) {
    try {
      const page = await ok(api.GET('/v1/messages', { params: { query: { ...query, cursor } } }));
      setMore({ key, rows: [...extra.rows, ...page.data], cursor: page.next_cursor ?? undefined });
    } catch (e) {
      setError(e);
    }
  }

  /** Every message the filters match, page after page of the API's list, saved as a CSV file. */
  async function exportCsv() {
    setError(null);
    setExporting('Exporting…');
    try {
      const all: Schemas['Message'][] = [];
      let cursor: string | undefined;
      do {
        const page = await ok(api.GET('/v1/messages', { params: { query: { ...query, limit: 200, cursor } } }));
        all.push(...page.data);
        cursor = page.next_cursor ?? undefined;
        setExporting(`Exporting… ${plural(all.length, 'message')}`);
      } while (cursor);
      const csv = toCsv(
        EXPORT_COLUMNS,
        all.map((m) => EXPORT_COLUMNS.map((c) => m[c])),
      );
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      link.download = `messages-${new Date().toISOString().slice(0, 10)}.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
      setExporting(`${plural(all.length, 'message')} exported to ${link.download}.`);
    } catch (e) {
      setExporting(null);
      setError(e);
    }
  }

  const set = (k: keyof typeof filters) => (v: string | null) => setDraft((d) => ({ ...d, [k]: v ?? '' }));
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
      {narrow && (
        <Group>
          <Button
            variant="default"
            aria-expanded={filtersOpen}
            aria-controls="message-filters"
            onClick={() => setFiltersOpen((o) => !o)}
          >
            {filtersOpen ? 'Hide filters' : 'Filters'}
            {active > 0 && ` (${active} on)`}
          </Button>
        </Group>
      )}
      <Collapse expanded={!narrow || filtersOpen} id="message-filters">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            apply(draft);
          }}
          aria-label="Filters"
        >
          <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
            <Select
              label="Direction"
              data={[
                { value: '', label: 'Both' },
                { value: 'outbound', label: 'Outbound' },
                { value: 'inbound', label: 'Inbound' },
              ]}
              value={draft.direction}
              onChange={set('direction')}
              allowDeselect={false}
            />
            <Select
              label="Status"
              data={[{ value: '', label: 'Any' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
              value={draft.status}
              onChange={set('status')}
              allowDeselect={false}
            />
            <Select
              label="Phone"
              data={[
                { value: '', label: 'Any phone' },
                ...(devices.data ?? []).map((d) => ({ value: d.id, label: d.name })),
              ]}
              value={draft.device}
              onChange={set('device')}
              allowDeselect={false}
            />
            <TextInput
              label="Search text or number"
              value={draft.q}
              onChange={(e) => set('q')(e.currentTarget.value)}
            />
            <TextInput
              type="datetime-local"
              label={`From (${timeZone})`}
              value={draft.from}
              onChange={(e) => set('from')(e.currentTarget.value)}
            />
            <TextInput
              type="datetime-local"
              label={`To (${timeZone})`}
              value={draft.to}
              onChange={(e) => set('to')(e.currentTarget.value)}
            />
            <TextInput
              label="Batch id"
              value={draft.batch}
              onChange={(e) => set('batch')(e.currentTarget.value.trim())}
            />
            <Select
              label="Order"
              data={[
                { value: 'desc', label: 'Newest first' },
                { value: 'asc', label: 'Oldest first' },
              ]}
              value={draft.order}
              onChange={set('order')}
              allowDeselect={false}
            />
          </SimpleGrid>
          <Group mt="sm">
            <Button type="submit">Apply filters</Button>
            <Button
              variant="default"
              onClick={() => {
                const cleared = {
                  direction: '',
                  status: '',
                  device: '',
                  batch: '',
                  q: '',
                  from: '',
                  to: '',
                  order: 'desc',
                };
                setDraft(cleared);
                apply(cleared);
              }}
            >
              Clear
            </Button>
          </Group>
        </form>
      </Collapse>
      <Load state={first}>
        {(page) => {
          const rows = [...page.data, ...extra.rows];
          const next = extra.rows.length ? extra.cursor : (page.next_cursor ?? undefined);
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
              <FormError error={error} />
              {next && (
                <Group>
                  <Button variant="default" onClick={() => void loadMore(next)}>
                    Load more
                  </Button>
                </Group>
              )}
            </Stack>
          );
        }}
      </Load>
    </Page>
  );
}
