import * as yup from '../../lib/yup';
import { booleanQuery, int, text, timestamp } from '../../lib/fields';
import { base64Data } from '../../messages/messages.schemas';
import { ApiError } from '../../http/errors';

/** What their API has and this server does not do: 400 not_supported, named. */
export const unsupported = (message: string) => new ApiError(400, 'not_supported', message);

// The wire shapes of SMSGate's integrator API (its server's internal/sms-gateway/handlers/*/3rdparty.go,
// with the types and validator tags of client-go smsgateway/domain_*.go and requests_*.go).

/** The processing states of client-go domain_messages.go. */
export const PROCESSING_STATES = ['Pending', 'Processed', 'Sent', 'Delivered', 'Failed'] as const;
export type ProcessingState = (typeof PROCESSING_STATES)[number];

/** The events a webhook may name (client-go domain_webhooks.go). */
export const WEBHOOK_EVENTS = [
  'sms:received',
  'sms:data-received',
  'sms:sent',
  'sms:delivered',
  'sms:failed',
  'system:ping',
  'mms:received',
  'mms:downloaded',
  'app:started',
] as const;

/** A client-chosen id: their `max=36`, printable ASCII (it is also the idempotency key). */
const clientId = () =>
  text(36).matches(/^[\x21-\x7e]+$/, {
    message: '${path} must be printable ASCII without spaces',
    excludeEmptyString: true,
  });

/** POST /message(s) (client-go Message). */
export const sendMessageBody = yup.object({
  id: clientId(),
  deviceId: text(64),
  message: text(65_535),
  textMessage: yup.object({ text: text(65_535).required() }).default(undefined),
  // client-go DataMessage: data base64 of 4..65535 characters, port 1..65535 (both required).
  dataMessage: yup
    .object({ data: base64Data().required(), port: int(1, 65_535).required() })
    .default(undefined)
    .nullable(),
  mmsMessage: yup.mixed().nullable(),
  phoneNumbers: yup
    .array(text(128).required())
    .min(1, '${path} must name at least one phone number')
    .max(100, '${path} must have at most ${max} entries')
    .required(),
  isEncrypted: yup.boolean(),
  simNumber: int(1, 3).nullable(),
  withDeliveryReport: yup.boolean().nullable(),
  priority: int(-128, 127).nullable(),
  ttl: int(5).nullable(),
  validUntil: timestamp().nullable(),
  scheduleAt: timestamp().nullable(),
});
export type SendMessageBody = yup.InferType<typeof sendMessageBody>;

/** The query of POST /message(s) (client-go SendOptions). */
export const sendQuery = yup.object({
  skipPhoneValidation: booleanQuery(),
  deviceActiveWithin: int(0),
});

/** GET /messages (client-go ListMessagesOptions; the server's params.go bounds). */
export const listQuery = yup.object({
  from: timestamp(),
  to: timestamp(),
  state: yup.string().oneOf([...PROCESSING_STATES], '${path} must be one of ' + PROCESSING_STATES.join(', ')),
  deviceId: text(64),
  limit: int().default(50),
  offset: int().default(0),
  includeContent: booleanQuery().default(false),
  sort: yup
    .string()
    .oneOf(['created_at', '-created_at'], '${path} must be created_at or -created_at')
    .default('-created_at'),
});

/** The types of SMSGate's received messages (client-go IncomingMessageType). */
export const INCOMING_TYPES = ['SMS', 'DATA_SMS', 'MMS', 'MMS_DOWNLOADED'] as const;

/** A flag as the Python client writes it too (True, False). */
const FLAGS: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };
const pythonFlag = () =>
  yup
    .boolean()
    .transform((value: unknown) => (typeof value === 'string' ? (FLAGS[value.toLowerCase()] ?? value) : value))
    .typeError('${path} must be true or false');

/** GET /inbox (client-go ListInboxOptions; the server's bounds: limit 1..500, offset from 0). */
export const inboxQuery = yup.object({
  type: yup.string().oneOf([...INCOMING_TYPES], '${path} must be one of ' + INCOMING_TYPES.join(', ')),
  from: timestamp(),
  to: timestamp(),
  deviceId: text(64),
  limit: int(1, 500).default(50),
  offset: int(0).default(0),
  includeAttachments: pythonFlag(),
});
export type InboxQuery = yup.InferType<typeof inboxQuery>;

/** POST /webhooks (client-go Webhook). */
export const webhookBody = yup.object({
  id: clientId(),
  deviceId: text(64).nullable(),
  url: text(2048).required(),
  event: yup
    .string()
    .oneOf([...WEBHOOK_EVENTS], '${path} must be one of ' + WEBHOOK_EVENTS.join(', '))
    .required(),
});

const isValidDate = (value: unknown): value is Date => value instanceof Date && !Number.isNaN(value.getTime());

/** POST /inbox/export and /inbox/refresh (client-go MessagesExportRequest, InboxRefreshRequest). */
export const exportBody = yup.object({
  deviceId: text(64),
  since: timestamp().required(),
  until: timestamp()
    .required()
    .test('order', '${path} must not be before since', function (value) {
      // `since` as the client sent it when it is not a valid timestamp (a number, an object, "x"):
      // then its own error is the one to report, not this one.
      const since: unknown = (this.parent as { since?: unknown }).since;
      if (!isValidDate(since) || !isValidDate(value)) return true;
      return value.getTime() >= since.getTime();
    }),
  messageTypes: yup.array(yup.string().oneOf(['SMS', 'MMS'], '${path} must be SMS or MMS')),
});

/** GET /logs. */
export const logsQuery = yup.object({ from: timestamp(), to: timestamp() });

/** The settings an account can change here (client-go domain_settings.go), each section open. */
const section = () =>
  yup
    .mixed<Record<string, unknown>>()
    .nullable()
    .test(
      'section',
      '${path} must be an object',
      (value) => value == null || (typeof value === 'object' && !Array.isArray(value)),
    );
export const settingsBody = yup
  .object({
    encryption: section(),
    messages: section(),
    ping: section(),
    logs: section(),
    webhooks: section(),
    gateway: section(),
    receiver: section(),
  })
  .noUnknown('${path} has a section SMSGate settings do not have: ${unknown}');
