import { toCsv } from '../lib/csv';
import type { UsageCounts } from './usage.repository';
import type { UsagePeriod } from './usage.schemas';

interface Usage {
  period: UsagePeriod;
  timezone: string;
  from: string;
  to: string;
  rows: UsageCounts[];
}

const COUNTS = ['sent', 'delivered', 'failed', 'cancelled', 'opted_out', 'received', 'segments'] as const;

const rowView = (period: UsagePeriod, row: UsageCounts) => ({
  // A day as YYYY-MM-DD, a month as YYYY-MM.
  period: period === 'month' ? row.start.slice(0, 7) : row.start,
  sent: row.sent,
  delivered: row.delivered,
  failed: row.failed,
  cancelled: row.cancelled,
  opted_out: row.optedOut,
  received: row.received,
  segments: row.segments,
});

/** GET /v1/usage as JSON: each period, and the totals over them. */
export function usageView(usage: Usage) {
  const periods = usage.rows.map((row) => rowView(usage.period, row));
  const totals = Object.fromEntries(COUNTS.map((k) => [k, periods.reduce((sum, p) => sum + p[k], 0)]));
  return { period: usage.period, timezone: usage.timezone, from: usage.from, to: usage.to, periods, totals };
}

/** GET /v1/usage as CSV: a header, then a line per period. */
export function usageCsv(usage: Usage): string {
  const periods = usage.rows.map((row) => rowView(usage.period, row));
  return toCsv(
    [usage.period, ...COUNTS],
    periods.map((p) => [p.period, ...COUNTS.map((k) => p[k])]),
  );
}

/** The CSV file's name: usage-day-2026-11-01-to-2026-11-28.csv. */
export const usageFileName = (usage: Usage) => `usage-${usage.period}-${usage.from}-to-${usage.to}.csv`;
