import * as yup from '../../lib/yup';
import { timestamp } from '../../lib/fields';

// The wire shapes of the SMSGate app's mobile API (github.com/android-sms-gateway/client-go,
// smsgateway/requests_mobile.go and domain_*.go; the app's GatewayApi.kt), with the bounds their
// validator tags give. Unknown fields are dropped: newer app versions may send more.

/** The processing states the app reports (client-go domain_messages.go, plus the app's Cancelled). */
export const PROCESSING_STATES = [
  'Pending',
  'Processed',
  'Sent',
  'Delivered',
  'Failed',
  'Cancelling',
  'Cancelled',
] as const;
export type ProcessingState = (typeof PROCESSING_STATES)[number];

const state = () =>
  yup
    .string()
    .oneOf(PROCESSING_STATES, '${path} must be one of ' + PROCESSING_STATES.join(', '))
    .required();

const optionalText = (max: number) => yup.string().max(max).nullable();

export const simCard = yup.object({
  slotIndex: yup.number().integer().min(0).max(16).required(),
  simNumber: yup.number().integer().min(1).max(16).required(),
  phoneNumber: optionalText(128),
  carrierName: optionalText(200),
  iccid: optionalText(64),
});
export type SimCard = yup.InferType<typeof simCard>;

const simCards = () => yup.array(simCard).max(16);

/** POST /device (MobileRegisterRequest). */
export const registerBody = yup.object({
  name: yup.string().trim().max(128).nullable(),
  pushToken: yup.string().max(256).nullable(),
  simCards: simCards(),
});

/** PATCH /device (MobileUpdateRequest). */
export const updateBody = yup.object({
  id: yup.string().max(64).required(),
  pushToken: yup.string().max(256).nullable(),
  simCards: simCards().nullable(),
});

/** GET /message?order= (server handlers/messages/params.go mobileGetQueryParams). */
export const pendingQuery = yup.object({
  order: yup.string().oneOf(['lifo', 'fifo'], '${path} must be lifo or fifo').default('lifo'),
});

const stateHistory = yup
  .mixed<Record<string, Date>>()
  .default({})
  .transform((value: unknown) => {
    if (value === null || value === undefined) return {};
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, at]) => [key, typeof at === 'string' ? new Date(at) : at]),
    );
  })
  .test('states', '${path} must map states to timestamps', (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    return Object.entries(value).every(
      ([key, at]) =>
        (PROCESSING_STATES as readonly string[]).includes(key) && at instanceof Date && !isNaN(at.getTime()),
    );
  });

/** PATCH /message (MobilePatchMessageRequest: an array of MobilePatchMessageItem). */
export const patchMessagesBody = yup
  .array(
    yup.object({
      id: yup.string().max(36).required(),
      state: state(),
      recipients: yup
        .array(
          yup.object({
            phoneNumber: yup.string().min(1).max(128).required(),
            state: state(),
            error: optionalText(10_000),
          }),
        )
        .min(1)
        .required(),
      states: stateHistory,
    }),
  )
  .max(1000)
  .required();
export type PatchMessagesBody = yup.InferType<typeof patchMessagesBody>;

/** What the app POSTs to a webhook (the app's WebHookEventDTO.kt). */
export const webhookEnvelope = yup.object({
  id: yup.string().max(100).required(),
  webhookId: yup.string().max(100).required(),
  event: yup.string().max(64).required(),
  deviceId: yup.string().max(64).required(),
  payload: yup.mixed<Record<string, unknown>>().required(),
});

/** sms:received (client-go dto_webhooks.go SmsReceivedPayload; the app's SmsEventPayload.SmsReceived). */
export const smsReceivedPayload = yup.object({
  messageId: yup.string().max(100).required(),
  phoneNumber: yup.string().max(64).nullable(),
  sender: yup.string().trim().max(64).nullable(),
  simNumber: yup.number().integer().min(0).max(16).nullable(),
  message: yup.string().max(10_000).required(),
  receivedAt: timestamp().required(),
});

/** mms:downloaded (client-go MmsDownloadedPayload; the app's MmsDownloadedPayload.kt): only its text is kept. */
export const mmsDownloadedPayload = yup.object({
  messageId: yup.string().max(100).required(),
  phoneNumber: yup.string().max(64).nullable(),
  sender: yup.string().trim().max(64).nullable(),
  simNumber: yup.number().integer().min(0).max(16).nullable(),
  subject: yup.string().max(1000).nullable(),
  body: yup.string().max(10_000).nullable(),
  receivedAt: timestamp().required(),
});

/** system:ping (the app's webhooks EventsReceiver: `{health: HealthResponse}`). */
export const pingPayload = yup.object({
  health: yup
    .object({
      status: yup.string().max(16),
      version: yup.string().max(100),
      releaseId: yup.number().integer().min(0).max(2_147_483_647),
      checks: yup.mixed<Record<string, unknown>>(),
    })
    .default(undefined),
});
