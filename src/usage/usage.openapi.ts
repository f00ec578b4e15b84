import { int, object, ref, str } from '../openapi/json-parts';
import { type Operation, op, read, tagged } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import { usageQuery } from './usage.schemas';

// The OpenAPI document's part of usage.routes.ts, and the resources of usage.views.ts.
export const usageOperations: Operation[] = tagged('Messages', [
  op(
    'GET /v1/usage',
    read,
    'Texts per day or per month, as JSON or CSV',
    { 200: ref('UsageReport') },
    {
      query: usageQuery,
      alsoAs: { 'text/csv': { type: 'string', description: 'A header line, then a line per period.' } },
      description:
        'Every day (or month) from `from` to `to` in `timezone`, oldest first, empty ones included; `to` ' +
        'defaults to today, `from` to 30 days or 12 months before it. A month period covers the whole ' +
        'months `from` and `to` fall in. Texts count in the period they were created in. At most 366 days ' +
        'or 120 months. CSV with `format=csv`, or with `Accept: text/csv` when `format` is not given ' +
        '(as an attachment named after the span). Errors: validation_failed (422) for a date that does ' +
        'not exist, `from` after `to` or a longer span.',
    },
  ),
]);

/** GET /v1/usage's counts of a period. */
const usageCounts = {
  sent: { ...int, description: 'Outbound texts created in the period that reached the carrier.' },
  delivered: { ...int, description: 'Of those created in the period, texts with a delivery report.' },
  failed: { ...int, description: 'Outbound texts that failed, cancelled and opted-out ones included.' },
  cancelled: { ...int, description: 'Of failed, texts cancelled before they were sent.' },
  opted_out: { ...int, description: 'Of failed, texts to numbers that opted out, never sent.' },
  received: { ...int, description: 'Inbound texts stored in the period.' },
  segments: { ...int, description: 'The SMS parts of the sent texts.' },
};

export const usageResources: Record<string, JsonSchema> = {
  UsageRow: object({
    period: { ...str, description: 'The day (YYYY-MM-DD) or the month (YYYY-MM).' },
    ...usageCounts,
  }),
  UsageReport: object({
    period: { ...str, enum: ['day', 'month'] },
    timezone: str,
    from: { ...str, format: 'date' },
    to: { ...str, format: 'date' },
    periods: { type: 'array', items: ref('UsageRow') },
    totals: object(usageCounts, 'The sums over the periods.'),
  }),
};
