// The plain-report reader: the fast path of POST /v1/device/messages/status. Its slow path, which it
// must equal, is yup's `reportsBody` (./phone-messages.schemas.ts) as the route's validate() applies it:
// for a body this reader accepts it returns exactly yup's value, and it accepts nothing yup refuses.
// Anything else (a problem, an odd type, a timestamp that does not parse) it leaves to yup
// (undefined), so every error a phone sees is yup's, word for word.
//
// Why it exists: a phone reports a page of up to 500 texts at once, and yup checks each item as an
// object of its own, which cost more CPU than the rest of the report (`npm run bench:profile`,
// docs/performance.md: a fetch and a report of 100 took 15.5-15.7 ms of CPU with it, 18.5-18.9
// without).
// test/messages/plain-report-reader.test.ts runs both on the same bodies.
import type { InferType } from 'yup';
import { UUID } from '../lib/fields';
import { parseTimestamp } from '../lib/iso';
import type { reportsBody } from './phone-messages.schemas';

const REPORTED = new Set(['sent', 'delivered', 'failed']);
type ReportItem = InferType<typeof reportsBody>['reports'][number];

const optionalText = (value: unknown, max: number) =>
  value === undefined || value === null || (typeof value === 'string' && value.length <= max);

function plainReport(item: unknown): ReportItem | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const { id, status, at, error_code, error_message } = item as Record<string, unknown>;
  if (typeof id !== 'string' || !UUID.test(id) || typeof status !== 'string' || !REPORTED.has(status)) return undefined;
  if (!optionalText(error_code, 100) || !optionalText(error_message, 1000)) return undefined;
  let when: Date | null | undefined;
  if (typeof at === 'string') {
    when = parseTimestamp(at) ?? undefined;
    if (!when) return undefined;
  } else if (at === null || at === undefined) when = at;
  else return undefined;
  const report: Record<string, unknown> = { id, status };
  // An absent field stays absent, as in yup's value.
  if (at !== undefined) report.at = when;
  if (error_code !== undefined) report.error_code = error_code;
  if (error_message !== undefined) report.error_message = error_message;
  return report as ReportItem;
}

/** reportsBody's value when every item is in the plain shape (see above); undefined: validate it with yup. */
export function plainReports(body: unknown): InferType<typeof reportsBody> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { reports } = body as Record<string, unknown>;
  if (!Array.isArray(reports) || reports.length < 1 || reports.length > 500) return undefined;
  const items: ReportItem[] = [];
  for (const item of reports) {
    const report = plainReport(item);
    if (!report) return undefined;
    items.push(report);
  }
  return { reports: items };
}
