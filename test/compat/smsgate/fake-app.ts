import { createHmac, randomBytes } from 'node:crypto';
import { decrypt } from './encryption';

// A stand-in for the SMSGate Android app ("SMS Gateway for Android", capcom6/android-sms-gateway)
// speaking its cloud protocol exactly as the app does. Sources, read at these commits:
//   app    capcom6/android-sms-gateway@0cdc5d86  app/src/main/java/me/capcom/smsgateway/…
//   wire   android-sms-gateway/client-go@9b599876  smsgateway/…
//   server android-sms-gateway/server@22074dda  internal/sms-gateway/handlers/…
// Every request below names the file it was taken from.

export const APP_VERSION = '1.42.0';

/** The app serialises with Gson, which leaves null fields out (no serializeNulls in GsonBuilder.kt). */
export function gson(value: unknown): string {
  return JSON.stringify(value, (_key, field) => (field === null ? undefined : field));
}

/** modules/gateway/GatewayApi.kt: `install(UserAgent) { agent = "me.capcom.smsgateway/" + VERSION_NAME }`. */
const USER_AGENT = `me.capcom.smsgateway/${APP_VERSION}`;

/**
 * extensions/GsonBuilder.kt on Android 7 and later: every date the app sends is
 * `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` in the phone's time zone; a +03:00 phone unless told (gsonDateOn).
 */
export function gsonDate(date: Date, offsetMinutes = 180): string {
  const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** GatewayApi.kt SimCard (the app redacts numbers to their last four characters: GatewayService.kt redact()). */
export interface SimCard {
  slotIndex: number;
  simNumber: number;
  phoneNumber: string | null;
  carrierName: string | null;
  iccid: string | null;
}

/** GatewayApi.kt DeviceRegisterResponse. */
export interface Registration {
  id: string;
  token: string;
  login: string;
  password?: string | null;
}

/** GatewayApi.kt Message (what GET /message returns, client-go responses_mobile.go MobileMessage). */
export interface PendingMessage {
  id: string;
  message?: string;
  textMessage?: { text: string };
  /** GatewayApi.kt MessageContent.Data(data, port: UShort). */
  dataMessage?: { data: string; port: number };
  phoneNumbers: string[];
  /** Text and numbers are ciphertext, for the owner's passphrase (EncryptionService.kt). */
  isEncrypted?: boolean;
  simNumber?: number;
  withDeliveryReport?: boolean;
  validUntil?: string;
  state?: string;
  createdAt?: string;
}

/** GatewayApi.kt MessagePatchRequest / RecipientState (client-go requests_mobile.go MobilePatchMessageItem). */
export interface MessagePatch {
  id: string;
  state: string;
  recipients: { phoneNumber: string; state: string; error: string | null }[];
  states: Record<string, string>;
}

/** One Server-Sent Event as okhttp-sse hands it to the app (helpers/SSEManager.kt onEvent(type, data)). */
export interface StreamEvent {
  type: string | null;
  data: string;
}

export function createFakeApp(options: {
  apiUrl: string;
  name?: string;
  simCards?: SimCard[];
  now?: () => Date;
  /** What a reverse proxy on the way adds (X-Forwarded-For), so per-address limits count this test's phone. */
  via?: Record<string, string>;
}) {
  const now = options.now ?? (() => new Date());
  const base = options.apiUrl;
  // GatewayService.kt registerDevice: `val deviceName = "${Build.MANUFACTURER}/${Build.PRODUCT}"`.
  const name = options.name ?? 'Google/sdk_gphone64_x86_64';
  const simCards = options.simCards ?? [
    { slotIndex: 0, simNumber: 1, phoneNumber: '*******4567', carrierName: 'T-Mobile', iccid: '****************1234' },
  ];
  const state = { registration: null as Registration | null, signingKey: null as string | null };
  const bearer = () => {
    if (!state.registration) throw new Error('not registered');
    return { Authorization: `Bearer ${state.registration.token}` };
  };
  const appHeaders = { 'User-Agent': USER_AGENT, ...options.via };
  const json = { 'Content-Type': 'application/json', ...appHeaders };

  return {
    state,
    name,
    simCards,

    /**
     * GatewayApi.kt deviceRegister(request, credentials=null): `privateToken != null -> bearerAuth(privateToken)`,
     * POST "$baseUrl/device" with DeviceRegisterRequest(name, pushToken, simCards). In SSE-only mode
     * (services/PushService.kt register) the push token is null.
     */
    register(privateToken: string, pushToken: string | null = null) {
      return fetch(`${base}/device`, {
        method: 'POST',
        headers: { ...json, Authorization: `Bearer ${privateToken}` },
        body: gson({ name, pushToken, simCards }),
      });
    },

    /** GatewayApi.kt deviceRegister(request, code): `header("Authorization", "Code $code")` ("sign in by code"). */
    registerWithCode(code: string) {
      return fetch(`${base}/device`, {
        method: 'POST',
        headers: { ...json, Authorization: `Code ${code}` },
        body: gson({ name, pushToken: null, simCards }),
      });
    },

    /** GatewayApi.kt deviceRegister(request, credentials): `basicAuth(login, password)`. */
    registerWithCredentials(login: string, password: string) {
      return fetch(`${base}/device`, {
        method: 'POST',
        headers: { ...json, Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` },
        body: gson({ name, pushToken: null, simCards }),
      });
    },

    /** GatewayApi.kt getUserCode: GET "$baseUrl/user/code" with basic auth. */
    getUserCode(login: string, password: string) {
      return fetch(`${base}/user/code`, {
        headers: {
          ...appHeaders,
          Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
        },
      });
    },

    /** GatewayApi.kt getDevice(token?): GET "$baseUrl/device", bearer only when registered (public IP). */
    getDevice(withToken = true) {
      return fetch(`${base}/device`, {
        headers: { ...appHeaders, ...(withToken && state.registration ? bearer() : {}) },
      });
    },

    /** GatewayService.kt updateDevice → GatewayApi.kt devicePatch: PATCH "$baseUrl/device" DevicePatchRequest(id, pushToken, simCards). */
    patchDevice(body: { id?: string; pushToken?: string | null; simCards?: SimCard[] } = {}) {
      return fetch(`${base}/device`, {
        method: 'PATCH',
        headers: { ...json, ...bearer() },
        body: gson({ id: state.registration?.id, pushToken: null, simCards, ...body }),
      });
    },

    /** GatewayApi.kt getMessages: GET "$baseUrl/message" with `parameter("order", processingOrder)` (lifo|fifo). */
    getMessages(order: 'lifo' | 'fifo' = 'fifo') {
      return fetch(`${base}/message?order=${order}`, { headers: { ...appHeaders, ...bearer() } });
    },

    /** GatewayService.kt sendState → GatewayApi.kt patchMessages: PATCH "$baseUrl/message" with a list of one. */
    patchMessages(patches: MessagePatch[]) {
      return fetch(`${base}/message`, {
        method: 'PATCH',
        headers: { ...json, ...bearer() },
        body: gson(patches),
      });
    },

    /** GatewayApi.kt getWebHooks: GET "$baseUrl/webhooks" → List<WebHook(id, url, event)>. */
    getWebhooks() {
      return fetch(`${base}/webhooks`, { headers: { ...appHeaders, ...bearer() } });
    },

    /** GatewayApi.kt getSettings: GET "$baseUrl/settings" → Map<String, *>, imported by SettingsService.kt update. */
    async getSettings() {
      const res = await fetch(`${base}/settings`, { headers: { ...appHeaders, ...bearer() } });
      if (res.ok) {
        const settings = (await res.clone().json()) as { webhooks?: { signing_key?: string } };
        // WebhooksSettings.kt import: SIGNING_KEY is stored and used by PayloadSingingPlugin.
        state.signingKey = settings?.webhooks?.signing_key ?? state.signingKey;
      }
      return res;
    },

    /**
     * SSEForegroundService.kt: SSEManager("${settings.serverUrl}/events", token) with
     * `header("Authorization", "Bearer $authToken")`; events are parsed as okhttp-sse does.
     */
    async openEvents() {
      const controller = new AbortController();
      const res = await fetch(`${base}/events`, {
        headers: { ...appHeaders, Accept: 'text/event-stream', ...bearer() },
        signal: controller.signal,
      });
      const events: StreamEvent[] = [];
      const comments: string[] = [];
      const listeners: (() => void)[] = [];
      let ended = false;
      const reading = (async () => {
        if (!res.ok || !res.body) return;
        const decoder = new TextDecoder();
        let buffer = '';
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            buffer += decoder.decode(chunk, { stream: true });
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              let type: string | null = null;
              const data: string[] = [];
              for (const line of block.split('\n')) {
                if (line.startsWith(':')) comments.push(line.slice(1));
                else if (line.startsWith('event:')) type = line.slice(6).trim();
                else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
              }
              if (type !== null || data.length > 0) events.push({ type, data: data.join('\n') });
            }
            for (const listener of listeners) listener();
          }
        } catch {
          // aborted
        } finally {
          ended = true;
        }
      })();
      return {
        res,
        events,
        comments,
        ended: () => ended,
        /** Called after each chunk read (new events or comments). */
        onData(listener: () => void) {
          listeners.push(listener);
        },
        /** Settles when the stream has ended, however. */
        done: reading,
        async close() {
          controller.abort();
          await reading;
        },
      };
    },

    /**
     * modules/webhooks: WebHooksService.kt emit builds WebHookEventDTO(id = nanoid, webhookId, event,
     * deviceId, payload); WebhookQueueProcessorWorker.kt POSTs it as JSON, and PayloadSingingPlugin.kt
     * adds X-Timestamp (unix seconds) and X-Signature = hex HMAC-SHA256(signing key, body + timestamp).
     */
    sendWebhook(
      hook: { id: string; url: string; event: string },
      payload: Record<string, unknown>,
      overrides: { signingKey?: string; timestamp?: number; deviceId?: string } = {},
    ) {
      const body = gson({
        id: randomBytes(16).toString('base64url').slice(0, 21),
        webhookId: hook.id,
        event: hook.event,
        deviceId: overrides.deviceId ?? state.registration?.id,
        payload,
      });
      const timestamp = String(overrides.timestamp ?? Math.floor(now().getTime() / 1000));
      const key = overrides.signingKey ?? state.signingKey;
      if (!key) throw new Error('no signing key: load the settings first');
      const signature = createHmac('sha256', key)
        .update(body + timestamp)
        .digest('hex');
      return fetch(hook.url, {
        method: 'POST',
        headers: { ...json, 'X-Timestamp': timestamp, 'X-Signature': signature },
        body,
      });
    },
  };
}

export type FakeApp = ReturnType<typeof createFakeApp>;

/**
 * modules/receiver/ReceiverService.kt process(): the sms:received payload (webhooks/payload/SmsEventPayload.kt
 * SmsReceived: messageId = InboxMessage.hashCode() as unsigned hex, sender, recipient, simNumber,
 * phoneNumber = sender, message, receivedAt).
 */
export function smsReceived(
  input: { sender: string; text: string; receivedAt: Date; simNumber?: number },
  dates: (date: Date) => string = gsonDate,
) {
  let hash = 0;
  for (const char of `${input.sender}|${input.receivedAt.getTime()}|${input.text}`)
    hash = (Math.imul(31, hash) + char.charCodeAt(0)) | 0;
  return {
    messageId: (hash >>> 0).toString(16),
    sender: input.sender,
    recipient: '*******4567',
    simNumber: input.simNumber ?? 1,
    phoneNumber: input.sender,
    message: input.text,
    receivedAt: dates(input.receivedAt),
  };
}

/**
 * What the app sends for a pending message: GatewayApi.kt Message.content is `_dataMessage ?:
 * _textMessage ?: _message` (else "Invalid message content"); messages/MessagesService.kt sends a
 * MessageContent.Data with smsManager.sendDataMessage(phoneNumber, null, port.toShort(),
 * Base64.decode(data, DEFAULT), …), one part, and throws on data that is no base64.
 */
export function contentToSend(
  message: PendingMessage,
): { kind: 'data'; bytes: Buffer; port: number } | { kind: 'text'; text: string } {
  if (message.dataMessage) {
    const { data, port } = message.dataMessage;
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw new Error(`Invalid Base64 data for message ${message.id}`);
    // Gson reads `port` into a UShort: a whole number 0..65535.
    if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`port ${port} is no UShort`);
    return { kind: 'data', bytes: Buffer.from(data, 'base64'), port };
  }
  const text = message.textMessage?.text ?? message.message;
  if (text === undefined) throw new Error('Invalid message content');
  return { kind: 'text', text };
}

/**
 * modules/receiver/ReceiverService.kt process() for an InboxMessage.Data (receiver/MessagesReceiver.kt:
 * DATA_SMS_RECEIVED_ACTION on port 53739, the first PDU's userData): the sms:data-received payload
 * (webhooks/payload/SmsEventPayload.kt SmsDataReceived: messageId = hashCode() as unsigned hex,
 * data = Base64.encodeToString(bytes, NO_WRAP), simNumber, receivedAt, sender, recipient; phoneNumber
 * = sender).
 */
export function smsDataReceived(
  input: { sender: string; bytes: Buffer; receivedAt: Date; simNumber?: number },
  dates: (date: Date) => string = gsonDate,
) {
  const data = input.bytes.toString('base64');
  let hash = 0;
  for (const char of `${input.sender}|${input.receivedAt.getTime()}|${data}`)
    hash = (Math.imul(31, hash) + char.charCodeAt(0)) | 0;
  return {
    messageId: (hash >>> 0).toString(16),
    sender: input.sender,
    recipient: '*******4567',
    simNumber: input.simNumber ?? 1,
    phoneNumber: input.sender,
    data,
    receivedAt: dates(input.receivedAt),
  };
}

/**
 * modules/receiver/ReceiverService.kt process() for InboxMessage.MMS (MmsContentObserver.kt: messageId
 * is the MMS's row id in content://mms): webhooks/payload/MmsDownloadedPayload.kt, each non-text part
 * read by MmsContentReader.kt (partId its content://mms/part _id, contentType its `ct`, name from
 * name/fn/cl, size its stat size, data its bytes in Base64.NO_WRAP). Gson leaves nulls out.
 */
export function mmsDownloaded(input: {
  mmsId: number;
  sender: string;
  receivedAt: Date;
  subject?: string | null;
  body?: string | null;
  parts: { partId: number; contentType: string; name?: string | null; bytes: Buffer | null }[];
  simNumber?: number;
}) {
  return {
    messageId: String(input.mmsId),
    sender: input.sender,
    recipient: '*******4567',
    simNumber: input.simNumber ?? 1,
    phoneNumber: input.sender,
    body: input.body ?? null,
    subject: input.subject ?? null,
    attachments: input.parts.map((part) => ({
      partId: part.partId,
      contentType: part.contentType,
      name: part.name ?? null,
      size: part.bytes?.length ?? null,
      data: part.bytes && part.bytes.length > 0 ? part.bytes.toString('base64') : null,
    })),
    // MMS dates are whole seconds (MmsContentReader.kt: `date` * 1000).
    receivedAt: gsonDate(new Date(Math.floor(input.receivedAt.getTime() / 1000) * 1000)),
  };
}

/** InboxMessage.MmsHeaders (MmsReceiver.kt, the WAP push): webhooks/payload/MmsReceivedPayload.kt. */
export function mmsReceived(input: { transactionId: string; sender: string; receivedAt: Date; subject?: string; size: number }) {
  return {
    messageId: input.transactionId,
    sender: input.sender,
    recipient: '*******4567',
    simNumber: 1,
    phoneNumber: input.sender,
    transactionId: input.transactionId,
    subject: input.subject ?? null,
    size: input.size,
    contentClass: null,
    receivedAt: gsonDate(input.receivedAt),
  };
}

/**
 * modules/orchestrator/OrchestratorService.kt start(): after its services start, the app emits
 * app:started with webhooks/payload/AppStartedPayload.kt, the active SIMs as
 * SubscriptionsHelper.getActiveSimCards lists them (localserver/domain/SimCard.kt).
 */
export function appStarted(simCards: { slotIndex: number; simNumber: number; carrierName?: string }[]) {
  return { simCards };
}

/**
 * modules/webhooks/EventsReceiver.kt: on a PingEvent the app emits system:ping with
 * `mapOf("health" to HealthResponse(...))` (domain/HealthResponse.kt: status, checks, version, releaseId).
 */
export function systemPing() {
  return {
    health: {
      version: APP_VERSION,
      releaseId: 42,
      status: 'pass',
      checks: {
        'battery:level': {
          status: 'pass',
          observedValue: 87,
          observedUnit: 'percent',
          description: 'Battery level in percent',
        },
        'connection:status': {
          status: 'pass',
          observedValue: 1,
          observedUnit: 'boolean',
          description: 'Internet connection status',
        },
      },
    },
  };
}

/**
 * modules/gateway/workers/SendStateWorker.kt: the patch for one message from its local state:
 * state, per-recipient states (RecipientState(phoneNumber, state, error)) and the state history
 * `message.states.associate { it.state to Date(it.updatedAt) }`.
 */
export function statePatch(
  message: PendingMessage,
  state: 'Processed' | 'Sent' | 'Delivered' | 'Failed',
  history: Partial<Record<'Pending' | 'Processed' | 'Sent' | 'Delivered' | 'Failed', Date>>,
  error: string | null = null,
  dates: (date: Date) => string = gsonDate,
): MessagePatch {
  return {
    id: message.id,
    state,
    recipients: message.phoneNumbers.map((phoneNumber) => ({ phoneNumber, state, error })),
    states: Object.fromEntries(Object.entries(history).map(([key, at]) => [key, dates(at!)])),
  };
}

/**
 * MessagesService.kt sendSMS: the text and numbers the app hands SmsManager. An encrypted message's
 * text and each number are decrypted with the passphrase set in the app (encryption.passphrase);
 * its states are still reported under the numbers as received (updateState(id, sourcePhoneNumber)).
 */
export function textToSend(message: PendingMessage, passphrase?: string): { text: string; phoneNumbers: string[] } {
  const text = message.textMessage?.text ?? message.message ?? '';
  if (!message.isEncrypted) return { text, phoneNumbers: message.phoneNumbers };
  if (!passphrase) throw new Error('Passphrase is not set');
  return {
    text: decrypt(passphrase, text),
    phoneNumbers: message.phoneNumbers.map((number) => decrypt(passphrase, number)),
  };
}

/** The phone's Android version and time zone, as Gson's date format depends on both. */
export interface Android {
  /** Build.VERSION.SDK_INT: the app supports 21 (Android 5.0) and later (app/build.gradle minSdk). */
  sdk: number;
  /** TimeZone.getDefault().rawOffset, in minutes. */
  rawOffsetMinutes: number;
  /** Summer time in effect now, in minutes (0 outside it). */
  dstMinutes?: number;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * extensions/GsonBuilder.kt setDateFormatISO8601: on Android 7+ (SDK 24) `…SSSXXX`, the true offset;
 * on Android 5–6 a pattern built from the zone's raw offset: `…SSSZ` when it is 0 (SimpleDateFormat's
 * RFC 822 zone, `+0000`, or `+0100` in British summer time), else `"+" + hours.padStart(2, '0') + ":" +
 * minutes.padStart(2, '0')` written as literal text, so west of UTC `+-5:00` (and `+-3:-30` in
 * Newfoundland). The clock time is the zone's, summer time included, whatever the suffix says.
 */
export function gsonDateOn(date: Date, android: Android): string {
  const dst = android.dstMinutes ?? 0;
  const offset = android.rawOffsetMinutes + dst;
  const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, 23);
  const sign = (minutes: number) => (minutes >= 0 ? '+' : '-');
  if (android.sdk >= 24) {
    const abs = Math.abs(offset);
    return `${local}${offset === 0 ? 'Z' : `${sign(offset)}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`}`;
  }
  if (android.rawOffsetMinutes === 0) {
    return `${local}${sign(offset)}${pad(Math.floor(Math.abs(offset) / 60))}${pad(Math.abs(offset) % 60)}`;
  }
  const raw = android.rawOffsetMinutes * 60_000;
  // Kotlin's Int `/` and `%` truncate toward zero, as JavaScript's Math.trunc and `%` do.
  const hours = Math.trunc(raw / 3_600_000)
    .toString()
    .padStart(2, '0');
  const minutes = Math.trunc((raw % 3_600_000) / 60_000)
    .toString()
    .padStart(2, '0');
  return `${local}+${hours}:${minutes}`;
}
