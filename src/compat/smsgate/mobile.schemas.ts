import * as yup from '../../lib/yup';
import { int } from '../../lib/fields';
import { base64Data } from '../../messages/messages.schemas';

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

/** The SIM slots a phone may have: slotIndex 0..15, simNumber (slot + 1) 1..16. */
export const MAX_SIM_SLOTS = 16;

// Any whole number is read: Android reports a SIM it cannot place in a slot with slotIndex -1
// (SubscriptionInfo.getSimSlotIndex, the app's SubscriptionsHelper.kt getActiveSimCards, where
// simNumber is slotIndex + 1). Such SIMs are dropped, not the registration (usableSims).
export const simCard = yup.object({
  slotIndex: int().required(),
  simNumber: int().required(),
  phoneNumber: optionalText(128),
  carrierName: optionalText(200),
  iccid: optionalText(64),
});
export type SimCard = yup.InferType<typeof simCard>;

const simCards = () => yup.array(simCard).max(16);

/** app:started (the app's AppStartedPayload.kt, emitted by OrchestratorService.kt at every start). */
export const appStartedPayload = yup.object({ simCards: simCards().default([]) });

/** The SIMs a send can select (their slot in range); the others, to be logged. */
export function usableSims(cards: SimCard[] | null | undefined): { usable: SimCard[]; dropped: SimCard[] } {
  const usable: SimCard[] = [];
  const dropped: SimCard[] = [];
  for (const card of cards ?? []) {
    const inRange =
      card.slotIndex >= 0 && card.slotIndex < MAX_SIM_SLOTS && card.simNumber >= 1 && card.simNumber <= MAX_SIM_SLOTS;
    (inRange ? usable : dropped).push(card);
  }
  return { usable, dropped };
}

/**
 * A time the app wrote with Gson (the app's extensions/GsonBuilder.kt): `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`
 * on Android 7 and later (`Z` or `±HH:MM`); on Android 5–6 the pattern is built from the zone's raw
 * offset: `…SSSZ` (RFC 822, `+0000`) at UTC, `+05:30` east of it, and `+-5:00` or `+-3:-30` west of
 * it, which no parser reads (and whose clock time follows summer time while the offset does not).
 * Null when it is not a time we can trust: the caller uses its own.
 */
export function phoneTime(raw: unknown): Date | null {
  if (raw instanceof Date) return isNaN(raw.getTime()) ? null : raw;
  if (typeof raw !== 'string') return null;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)(Z|[+-]\d{2}:?\d{2})$/.exec(raw);
  if (!match) return null;
  const zone = match[2] === 'Z' ? 'Z' : `${match[2].slice(0, 3)}:${match[2].slice(-2)}`;
  const at = new Date(`${match[1]}${zone}`);
  return isNaN(at.getTime()) ? null : at;
}

/** A phone's time as sent (kept as text: an unreadable one still names the same event on a retry). */
const phoneTimeText = () => yup.string().max(64);

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

/**
 * The state history `{state: time}`: each time as phoneTime reads it, null for one it cannot (the
 * report then uses the server's time rather than being refused).
 */
const stateHistory = yup
  .mixed<Record<string, Date | null>>()
  .default({})
  .transform((value: unknown) => {
    if (value === null || value === undefined) return {};
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([key, at]) => [key, phoneTime(at)]));
  })
  .test('states', '${path} must map states to timestamps', (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    return Object.keys(value).every((key) => (PROCESSING_STATES as readonly string[]).includes(key));
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

// A received text's sender and text have no length bound beyond the signed call's own: the app drops a
// text refused 15 times (WebhooksSettings.kt retry_count). The inbound service keeps them within
// src/messages/inbound-limits.ts, cutting what is longer and saying so.

/** sms:received (client-go dto_webhooks.go SmsReceivedPayload; the app's SmsEventPayload.SmsReceived). */
export const smsReceivedPayload = yup.object({
  messageId: yup.string().max(100).required(),
  phoneNumber: yup.string().nullable(),
  sender: yup.string().trim().nullable(),
  simNumber: yup.number().integer().min(0).max(16).nullable(),
  message: yup.string().required(),
  receivedAt: phoneTimeText().required(),
});

/** One part of an MMS (the app's MmsDownloadedPayload.Attachment: its bytes in standard base64, or none). */
const mmsAttachment = yup.object({
  partId: yup.number().integer().min(0).max(Number.MAX_SAFE_INTEGER).required(),
  contentType: yup.string().trim().max(255).default('application/octet-stream'),
  name: yup.string().max(255).nullable().default(null),
  size: yup.number().integer().min(0).max(Number.MAX_SAFE_INTEGER).nullable().default(null),
  data: yup
    .string()
    .matches(/^[A-Za-z0-9+/]*={0,2}$/, '${path} must be base64')
    .nullable()
    .default(null),
});

/**
 * The port the app receives data SMS on: it listens on this one alone (receiver/MessagesReceiver.kt's
 * DATA_SMS_RECEIVED_ACTION filter), and its sms:data-received payload does not repeat it.
 */
export const APP_DATA_PORT = 53739;

/** sms:data-received (client-go SmsDataReceivedPayload; the app's SmsEventPayload.SmsDataReceived). */
export const smsDataReceivedPayload = yup.object({
  messageId: yup.string().max(100).required(),
  phoneNumber: yup.string().nullable(),
  sender: yup.string().trim().nullable(),
  simNumber: yup.number().integer().min(0).max(16).nullable(),
  data: base64Data().required(),
  receivedAt: phoneTimeText().required(),
});

/** mms:downloaded (client-go MmsDownloadedPayload; the app's MmsDownloadedPayload.kt). */
export const mmsDownloadedPayload = yup.object({
  messageId: yup.string().max(100).required(),
  phoneNumber: yup.string().nullable(),
  sender: yup.string().trim().nullable(),
  simNumber: yup.number().integer().min(0).max(16).nullable(),
  subject: yup.string().nullable(),
  body: yup.string().nullable(),
  attachments: yup.array(mmsAttachment.required()).max(100).default([]),
  receivedAt: phoneTimeText().required(),
});

/** mms:received: the phone was told of an MMS it has not downloaded yet (the app's MmsReceivedPayload.kt). */
export const mmsReceivedPayload = yup.object({
  messageId: yup.string().max(100).required(),
  phoneNumber: yup.string().nullable(),
  sender: yup.string().trim().max(256).nullable(),
  recipient: yup.string().max(256).nullable(),
  simNumber: yup.number().integer().min(0).max(16).nullable(),
  transactionId: yup.string().max(256).required(),
  subject: yup.string().max(1000).nullable(),
  size: yup.number().integer().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  contentClass: yup.string().max(64).nullable(),
  receivedAt: phoneTimeText().required(),
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
