import * as yup from '../lib/yup';
import { pageFields } from '../http/pagination';
import { int, text, timestamp, uuid } from '../lib/fields';

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
    .array(statusBody.shape({ id: uuid('${path} must be a message id').required() }))
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
