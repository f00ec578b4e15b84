import { Button, Collapse, Group, Select, SimpleGrid, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useState } from 'react';
import type { Schemas } from '../../api/client';
import type { paths } from '../../api/schema';
import { NARROW } from '../../components/data-table';
import { localInputToIso, timeZone } from '../../lib/format';
import { navigate } from '../../lib/router';

const STATUSES = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'unknown', 'received'] as const;
export type Query = NonNullable<paths['/v1/messages']['get']['parameters']['query']>;

const CLEARED = { direction: '', status: '', device: '', batch: '', q: '', from: '', to: '', order: 'desc' };
export type Filters = typeof CLEARED;

/** The filters in the URL (`?status=failed&q=…`), each empty when not set; newest first by default. */
export function filtersOf(search: URLSearchParams): Filters {
  return {
    direction: search.get('direction') ?? '',
    status: search.get('status') ?? '',
    device: search.get('device') ?? '',
    batch: search.get('batch') ?? '',
    q: search.get('q') ?? '',
    from: search.get('from') ?? '',
    to: search.get('to') ?? '',
    order: search.get('order') ?? 'desc',
  };
}

/** The filters as GET /v1/messages takes them, a page of 50. */
export function queryOf(filters: Filters): Query {
  return {
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
}

const isSet = (k: string, v: string) => v && !(k === 'order' && v === 'desc');

function apply(next: Filters) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(next)) if (isSet(k, v)) params.set(k, v);
  navigate(`/messages${params.size ? `?${params}` : ''}`);
}

/**
 * The form of every filter, applied to the URL; on a narrow screen in a panel that opens with a
 * button saying how many are on.
 */
export function MessageFilters({ filters, devices }: { filters: Filters; devices: Schemas['Device'][] }) {
  const [draft, setDraft] = useState(filters);
  const narrow = useMediaQuery(NARROW, false, { getInitialValueInEffect: false });
  const [filtersOpen, setFiltersOpen] = useState(false);
  const active = Object.entries(filters).filter(([k, v]) => isSet(k, v)).length;
  const set = (k: keyof Filters) => (v: string | null) => setDraft((d) => ({ ...d, [k]: v ?? '' }));
  return (
    <>
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
              data={[{ value: '', label: 'Any phone' }, ...devices.map((d) => ({ value: d.id, label: d.name }))]}
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
                setDraft(CLEARED);
                apply(CLEARED);
              }}
            >
              Clear
            </Button>
          </Group>
        </form>
      </Collapse>
    </>
  );
}
