import * as yup from '../lib/yup';
import { pageFields } from '../http/pagination';
import { int, text, timestamp } from '../lib/fields';
import { parseTimestamp } from '../lib/iso';

export const outboxQuery = yup.object({
  limit: int(1, 500).default(100),
});

export const statusBody = yup.object({
  status: text(16)
    .oneOf(['sent', 'delivered', 'failed'] as const, '${path} must be sent, delivered or failed')
    .required(),
  at: timestamp().nullable(),
  error_code: text(100).nullable(),
  error_message: text(1000).nullable(),
});

/** POST /v1/device/messages/status: many reports at once, each as the single report's body plus the message id. */
export const reportsBody = yup.object({
  reports: yup
    .array(statusBody.shape({ id: yup.string().uuid('${path} must be a message id').required() }))
    .min(1, '${path} must hold at least one report')
    .max(500, '${path} may hold at most 500 reports')
    .required(),
});

// No length bound on a received text or its sender beyond the request's own (BODY_LIMIT): a refusal
// would lose the text for good (./inbound-limits.ts). The service keeps them within that file's bounds.
export const inboundBody = yup.object({
  body: yup.string().required(),
  received_at: timestamp().required(),
  sender: yup
    .string()
    .transform((value: unknown) => (typeof value === 'string' ? value.trim() : value))
    .min(1)
    .required(),
  fingerprint: text(200).nullable(),
  sim_subscription_id: int(0).nullable(),
});

export const deviceMessagesQuery = yup.object({
  ...pageFields(),
  direction: yup.string().oneOf(['outbound', 'inbound']),
});

// A phone reports a page of up to 500 texts at once; yup checks each item as an object of its own,
// which cost more CPU than the rest of the report (`npm run bench:profile`). An item in the plain
// shape every phone sends is read here instead; anything else (a problem, an odd type, a timestamp
// that does not parse) goes through reportsBody, so every error is yup's, word for word.
// yup's uuid test without its nil-uuid alternative: a nil id goes the long way.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const REPORTED = new Set(['sent', 'delivered', 'failed']);
type ReportItem = yup.InferType<typeof reportsBody>['reports'][number];

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
export function plainReports(body: unknown): yup.InferType<typeof reportsBody> | undefined {
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
