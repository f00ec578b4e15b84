import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DevicesService } from '../../devices/devices.service';
import type { PairingService } from '../../devices/pairing.service';
import { transaction } from '../../db/transaction';
import { ApiError, forbidden, unauthenticated } from '../../http/errors';
import type { Clock } from '../../lib/clock';
import { UUID } from '../../lib/fields';
import { randomToken, safeEqual } from '../../lib/crypto';
import type { SecretBox } from '../../lib/secret-box';
import type { OutcomesService, Report } from '../../messages/outcomes.service';
import type { PhoneMessagesService } from '../../messages/phone-messages.service';
import { messageView } from '../../messages/messages.views';
import { deviceView } from '../../devices/devices.views';
import type { EventsService } from '../../events/events.service';
import type { IncomingMms, MmsService } from '../../mms/mms.service';
import { mmsNoticeView, type MmsNotice } from '../../mms/mms.views';
import { phoneTime, type PatchMessagesBody, type ProcessingState, type SimCard } from './mobile.schemas';
import { mobileRepository } from './mobile.repository';
import { simsFromCards } from './mobile.views';

/** How far a webhook's X-Timestamp may be from our clock (the interface's rule for our own receivers). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface SmsGateDeps {
  em: () => EntityManager;
  clock: Clock;
  pairing: PairingService;
  devices: DevicesService;
  phoneMessages: PhoneMessagesService;
  outcomes: OutcomesService;
  secretBox: SecretBox;
  mms: MmsService;
  events: EventsService;
}

/** A text the app forwarded (sms:received, or the text of mms:downloaded), its time as the app wrote it. */
export interface ReceivedText {
  messageId: string;
  sender: string;
  receivedAt: string;
  body: string;
  simNumber?: number | null;
  /** mms:downloaded: its subject and attachments, kept with the message. */
  mms?: IncomingMms;
  /** A data SMS (sms:data-received): the port it came to; `body` is its bytes, base64. */
  dataPort?: number | null;
}

export interface Phone {
  userId: string;
  deviceId: string;
}

/** The app names itself in its User-Agent: `me.capcom.smsgateway/<version name>` (GatewayApi.kt). */
export function appVersionOf(userAgent: string | undefined): string | undefined {
  const match = /^me\.capcom\.smsgateway\/(\S{1,100})/.exec(userAgent ?? '');
  return match?.[1];
}

/**
 * What stock Android lets one app send: SmsUsageMonitor's sms_outgoing_check_max_count (30) in
 * sms_outgoing_check_interval_ms (30 minutes); the next text asks the owner on the phone. A phone
 * paired through the app starts there; its owner raises it once the limit is lifted.
 */
export const ANDROID_SMS_LIMIT = { count: 30, minutes: 30 };

/** An RIL result name inside the app's error text ("Send result: RESULT_ERROR_NO_SERVICE (…)"). */
function errorCodeOf(error: string | null | undefined): string | null {
  if (!error) return null;
  const ril = /\b(RESULT_[A-Z_]+)\b/.exec(error);
  if (ril) return ril[1];
  if (/TTL expired/i.test(error)) return 'ttl_expired';
  return 'send_failed';
}

/**
 * The SMSGate app's mobile API on our services: registration is pairing with a code, its reports are
 * our outcome reports, its webhook calls are our inbound path and heartbeats. No rule lives here
 * that the native phone endpoints do not share.
 */
export function createMobileService(deps: SmsGateDeps) {
  const { em, clock, devices, outcomes } = deps;

  /** The key the phone signs its webhook calls with, created with the phone's first settings. */
  async function signingKey(deviceId: string): Promise<string> {
    const sealed = await mobileRepository.sealedKey(
      em(),
      deviceId,
      () => deps.secretBox.seal(randomToken(24)),
      clock.now(),
    );
    return deps.secretBox.open(sealed);
  }

  /** The phone was heard from: its pings, device updates, pulls and stream connections are heartbeats. */
  function seen(
    phone: Phone,
    facts: { simCards?: SimCard[] | null; userAgent?: string; telemetry?: Record<string, unknown> } = {},
  ) {
    const version = appVersionOf(facts.userAgent);
    return devices.heartbeat(phone.userId, phone.deviceId, {
      ...(facts.simCards ? { sims: simsFromCards(facts.simCards) } : {}),
      ...(version ? { appVersionName: version } : {}),
      ...(facts.telemetry ? { telemetry: facts.telemetry } : {}),
    });
  }

  return {
    signingKey,

    /**
     * POST /device: the private token (or the one-time code of their "sign in by code") is one of our
     * pairing codes. The app sends nothing stable about the handset (a name, SIMs redacted to their
     * last digits, a push token that changes and is absent in SSE mode), so every registration is a
     * new handset: re-registering after an unpair makes a new device.
     */
    async register(
      input: { code: string; name?: string | null; simCards?: SimCard[]; userAgent?: string },
      ip: string,
    ) {
      const name = input.name?.trim() || undefined;
      const { device, token } = await deps.pairing.pair(
        {
          code: input.code,
          hardwareKey: `smsgate:${randomUUID()}`,
          // The app names itself `${Build.MANUFACTURER}/${Build.PRODUCT}` (GatewayService.kt).
          name: name?.slice(0, 100),
          manufacturer: name?.includes('/') ? name.split('/')[0].slice(0, 200) : undefined,
          appVersionName: appVersionOf(input.userAgent),
        },
        ip,
      );
      const phone = { userId: device.userId, deviceId: device.id };
      // Before its signing key: the key's row is what says the phone was registered already.
      await mobileRepository.startAtCapacity(em(), device.id, ANDROID_SMS_LIMIT);
      const registered =
        input.simCards && input.simCards.length > 0
          ? await devices.heartbeat(phone.userId, phone.deviceId, { sims: simsFromCards(input.simCards) })
          : device;
      await signingKey(device.id);
      return { device: registered, token };
    },

    seen,

    /** PATCH /device names the device it updates; another id is 403 (server handlers/mobile.go). */
    async update(phone: Phone, input: { id: string; simCards?: SimCard[] | null; userAgent?: string }) {
      if (input.id !== phone.deviceId) throw forbidden('forbidden', 'The device id is not this phone’s.');
      return seen(phone, input);
    },

    /**
     * GET /message: our outbox (which marks them dispatched) in the order asked, as SMSGate's server
     * orders it: newest first unless asked for fifo. The app asks for the phone's processing_order.
     */
    pending: (phone: Phone, order: 'lifo' | 'fifo') => deps.phoneMessages.outbox(phone.deviceId, 100, order),

    /**
     * PATCH /message: each item's recipient state becomes our report. Processed is what the outbox
     * fetch already recorded (dispatched); Delivered with a Sent time in its history reports sent
     * first, so sent_at and message.sent are not lost when the phone reports both at once.
     */
    /**
     * The app's states as our reports. Every item must name a message of this phone: the others are
     * applied, then the call answers 404 (as /v1 does for another phone's message, or none), so a
     * phone is never told that a state it sent was taken when nothing changed.
     */
    async patchStates(phone: Phone, items: PatchMessagesBody) {
      const ids = items.map((item) => item.id.toLowerCase()).filter((id) => UUID.test(id));
      const owned = await mobileRepository.ownedOf(em(), phone.deviceId, [...new Set(ids)]);
      const unknown = items.filter((item) => !owned.has(item.id.toLowerCase())).length;
      const reports: Report[] = [];
      for (const item of items) {
        const messageId = owned.get(item.id.toLowerCase());
        if (!messageId) continue;
        // The id the app knows this attempt by: the message's, or a new attempt's (pendingMessageView).
        const ids = { id: messageId, sendId: item.id.toLowerCase() };
        const recipient = item.recipients[0];
        const state: ProcessingState = recipient?.state ?? item.state;
        // A time the phone wrote unreadably (phoneTime) is null: the report keeps our time instead.
        const history = item.states as Record<string, Date | null>;
        const at = (key: ProcessingState) => history[key] ?? clock.now();
        if (state === 'Sent') {
          reports.push({ ...ids, status: 'sent', at: at('Sent') });
        } else if (state === 'Delivered') {
          if ('Sent' in history) reports.push({ ...ids, status: 'sent', at: at('Sent') });
          reports.push({ ...ids, status: 'delivered', at: at('Delivered') });
        } else if (state === 'Failed' || state === 'Cancelled') {
          const error = recipient?.error ?? (state === 'Cancelled' ? 'Cancelled on the phone.' : null);
          reports.push({
            ...ids,
            status: 'failed',
            at: at(state),
            errorCode: state === 'Cancelled' ? 'cancelled' : errorCodeOf(error),
            errorMessage: error ? error.slice(0, 1000) : null,
          });
        }
      }
      // One set, as our batched report; another phone's message is left alone and the rest count.
      if (reports.length > 0) await outcomes.report(phone.deviceId, reports);
      if (unknown > 0) {
        throw new ApiError(
          404,
          'not_found',
          unknown === items.length
            ? 'The message does not exist.'
            : `${unknown} of the ${items.length} messages do not exist; the others were applied.`,
        );
      }
    },

    /**
     * Checks a webhook call the app made with the signing key from its settings (the app's
     * PayloadSingingPlugin.kt: X-Signature is the hex HMAC-SHA256 of the raw body followed by the
     * X-Timestamp value, in unix seconds). An unknown or unpaired phone, a bad signature and a stale
     * timestamp are all the same 401.
     */
    async verify(deviceId: string, raw: string, signature: string, timestamp: string): Promise<Phone> {
      const row = await mobileRepository.keyOfPaired(em(), deviceId);
      const refused = unauthenticated('The webhook call is not signed with this phone’s signing key.');
      if (!row || !/^\d{1,12}$/.test(timestamp) || !/^[0-9a-f]{64}$/i.test(signature)) throw refused;
      if (Math.abs(clock.now().getTime() / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) throw refused;
      const expected = createHmac('sha256', deps.secretBox.open(row.signingKey))
        .update(raw + timestamp)
        .digest('hex');
      if (!safeEqual(expected, signature.toLowerCase())) throw refused;
      return { userId: row.userId, deviceId };
    },

    /**
     * A received text through our inbound path. The app repeats a webhook until it is answered, and
     * re-sends old texts on an export; its messageId is a hash of sender, date, SIM and text, so the
     * fingerprint is built from it and the fields themselves. A receive time it wrote unreadably
     * (phoneTime) becomes ours, and the fingerprint keeps its text, the same on every retry.
     */
    async receive(phone: Phone, event: string, input: ReceivedText) {
      const read = phoneTime(input.receivedAt);
      const fingerprint =
        'smsgate:' +
        createHash('sha256')
          .update(
            [event, input.messageId, input.sender, read?.toISOString() ?? input.receivedAt, input.body].join('\n'),
          )
          .digest('hex');
      const mms = input.mms;
      const result = await deps.phoneMessages.inbound(
        phone.deviceId,
        {
          body: input.body,
          receivedAt: read ?? clock.now(),
          sender: input.sender,
          fingerprint,
          simSubscriptionId: input.simNumber ?? null,
          dataPort: input.dataPort ?? null,
        },
        mms &&
          (async (tx, message) => {
            const extra = await deps.mms.store(tx, message, mms);
            await deps.events.emit(tx, {
              userId: message.userId,
              name: 'mms.downloaded',
              data: { ...messageView(message), ...extra },
              messageId: message.id,
              deviceId: message.deviceId,
            });
            return extra;
          }),
      );
      return result;
    },

    /**
     * app:started: the app (re)started on the phone. Its SIMs as it reports them now are the phone's,
     * and the account's subscribers are told (device.app_started; SMSGate's app:started).
     */
    async appStarted(phone: Phone, input: { simCards: SimCard[]; userAgent?: string }) {
      const device = await seen(phone, input);
      await transaction(em(), (tx) =>
        deps.events.emit(tx, {
          userId: phone.userId,
          name: 'device.app_started',
          data: deviceView(device),
          deviceId: phone.deviceId,
        }),
      );
    },

    /**
     * mms:received: told to the account's subscribers (mms.received), nothing stored; the MMS itself
     * arrives as mms:downloaded. A repeat of the call is told again, as their server relays it.
     */
    async mmsNotice(phone: Phone, notice: MmsNotice) {
      const read = phoneTime(notice.receivedAt);
      await transaction(em(), (tx) =>
        deps.events.emit(tx, {
          userId: phone.userId,
          name: 'mms.received',
          data: mmsNoticeView(phone.deviceId, notice, (read ?? clock.now()).toISOString()),
          deviceId: phone.deviceId,
        }),
      );
    },
  };
}

export type MobileService = ReturnType<typeof createMobileService>;
