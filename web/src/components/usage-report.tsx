import { Button, Card, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { api, ApiFailure, ok, type Schemas } from '../api/client';
import { count, timeZone } from '../lib/format';
import { useLoad } from '../lib/use-load';
import { DataTable } from './data-table';
import { Load } from './states';

type Period = 'day' | 'month';
type Row = Schemas['UsageRow'];

// Asked without format=csv, the answer is the JSON report (the document lists the CSV too).
const usageIn = (period: Period, timezone: string) =>
  ok(api.GET('/v1/usage', { params: { query: { period, timezone } } })) as Promise<Schemas['UsageReport']>;

/** The usage in the browser's time zone, or in UTC when the server does not know that zone. */
async function usageOf(period: Period) {
  try {
    return await usageIn(period, timeZone);
  } catch (error) {
    if (!(error instanceof ApiFailure) || !error.field('timezone')) throw error;
    return usageIn(period, 'UTC');
  }
}

/** "Nov 28, 2026" for a day, "November 2026" for a month (calendar dates: no time zone shift). */
const periodLabel = (period: Period, value: string) =>
  new Date(`${period === 'month' ? `${value}-01` : value}T12:00:00Z`).toLocaleDateString(
    undefined,
    period === 'month'
      ? { month: 'long', year: 'numeric', timeZone: 'UTC' }
      : { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' },
  );

const COLUMNS: Array<{ key: Exclude<keyof Row, 'period'>; label: string }> = [
  { key: 'sent', label: 'Sent' },
  { key: 'delivered', label: 'Delivered' },
  { key: 'failed', label: 'Failed' },
  { key: 'received', label: 'Received' },
  { key: 'segments', label: 'Segments' },
];

/**
 * The account's texts per day (last 30 days) or per month (last 12), newest first, and the same
 * numbers as a CSV file from GET /v1/usage (the session's cookie goes with the link).
 */
export function UsageReport() {
  const [period, setPeriod] = useState<Period>('day');
  const state = useLoad(() => usageOf(period), [period]);
  return (
    <Card withBorder component="section" aria-labelledby="usage-title">
      <Stack>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Text fw={600} component="h2" id="usage-title">
            Usage
          </Text>
          <SegmentedControl
            aria-label="Usage per"
            value={period}
            onChange={(value) => setPeriod(value as Period)}
            data={[
              { value: 'day', label: 'Per day' },
              { value: 'month', label: 'Per month' },
            ]}
          />
        </Group>
        <Load state={state}>
          {(usage) => (
            <>
              <Group justify="space-between" wrap="wrap" gap="xs">
                <Text size="sm" data-testid="usage-totals">
                  {periodLabel(usage.period, usage.from.slice(0, usage.period === 'month' ? 7 : 10))} to{' '}
                  {periodLabel(usage.period, usage.to.slice(0, usage.period === 'month' ? 7 : 10))}:{' '}
                  {COLUMNS.map((c) => `${count(usage.totals[c.key])} ${c.label.toLowerCase()}`).join(', ')}
                  {usage.timezone === 'UTC' && timeZone !== 'UTC' ? ' (days in UTC)' : ''}
                </Text>
                <Button
                  component="a"
                  variant="default"
                  size="xs"
                  href={`/v1/usage?${new URLSearchParams({ period: usage.period, from: usage.from, to: usage.to, timezone: usage.timezone, format: 'csv' })}`}
                  download
                >
                  Download CSV
                </Button>
              </Group>
              <DataTable
                label={usage.period === 'day' ? 'Texts per day' : 'Texts per month'}
                rows={[...usage.periods].reverse()}
                rowKey={(r) => r.period}
                rowTestId="usage-row"
                minWidth={520}
                columns={[
                  {
                    label: usage.period === 'day' ? 'Day' : 'Month',
                    card: 'title',
                    cell: (r) => periodLabel(usage.period, r.period),
                  },
                  ...COLUMNS.map((c) => ({ label: c.label, cell: (r: Row) => count(r[c.key]) })),
                ]}
              />
            </>
          )}
        </Load>
      </Stack>
    </Card>
  );
}
