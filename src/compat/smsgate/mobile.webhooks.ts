import { ApiError, badRequest } from '../../http/errors';
import type { Logger } from '../../lib/logger';
import type { Metrics } from '../../metrics/metrics';
import {
  appStartedPayload,
  mmsDownloadedPayload,
  mmsReceivedPayload,
  pingPayload,
  smsDataReceivedPayload,
  smsReceivedPayload,
  APP_DATA_PORT,
} from './mobile.schemas';
import type { MobileService, Phone, ReceivedText } from './mobile.service';

/** A signed webhook call of the app, its envelope validated (mobile.schemas webhookEnvelope). */
export interface AppWebhookCall {
  event: string;
  payload: Record<string, unknown>;
  userAgent: string;
}

/** What the call did: a received text kept (new or already held), or nothing to answer with. */
export type AppWebhookResult = Awaited<ReturnType<MobileService['receive']>> | null;

interface Schema<T> {
  validate(value: unknown, options: object): Promise<T>;
}

/**
 * The webhooks the app is given (mobile.routes GET /webhooks) calling back: each event to the mobile
 * service's operation for it. Events the app may add later are accepted and ignored, as the app
 * drops a call refused 15 times (WebhooksSettings.kt retry_count).
 */
export function createMobileWebhooks(deps: { mobile: MobileService; metrics: Metrics['phone']; logger: Logger }) {
  const { mobile, metrics, logger } = deps;

  async function payloadOf<T>(call: AppWebhookCall, schema: Schema<T>): Promise<T> {
    try {
      return await schema.validate(call.payload, { abortEarly: false, stripUnknown: true });
    } catch {
      throw badRequest(`The ${call.event} payload is not one the app sends.`);
    }
  }

  function senderOf(call: AppWebhookCall, payload: { sender?: string | null; phoneNumber?: string | null }) {
    const sender = payload.sender || payload.phoneNumber;
    if (!sender) throw badRequest(`The ${call.event} payload names no sender.`);
    return sender;
  }

  /** The text an event carries, after doing what an event without one asks. */
  async function textOf(phone: Phone, call: AppWebhookCall): Promise<ReceivedText | null> {
    switch (call.event) {
      case 'sms:received': {
        const payload = await payloadOf(call, smsReceivedPayload);
        return { ...payload, sender: senderOf(call, payload), body: payload.message };
      }
      case 'sms:data-received': {
        const payload = await payloadOf(call, smsDataReceivedPayload);
        return { ...payload, sender: senderOf(call, payload), body: payload.data, dataPort: APP_DATA_PORT };
      }
      case 'mms:downloaded': {
        const payload = await payloadOf(call, mmsDownloadedPayload);
        const body = [payload.subject, payload.body].filter((part) => part && part.trim()).join('\n');
        const mms = { subject: payload.subject ?? null, attachments: payload.attachments };
        return { ...payload, sender: senderOf(call, payload), body, mms };
      }
      case 'mms:received': {
        const payload = await payloadOf(call, mmsReceivedPayload);
        await mobile.mmsNotice(phone, { ...payload, sender: senderOf(call, payload) });
        return null;
      }
      case 'app:started': {
        const payload = await payloadOf(call, appStartedPayload);
        await mobile.appStarted(phone, { simCards: payload.simCards, userAgent: call.userAgent });
        return null;
      }
      case 'system:ping': {
        const payload = await payloadOf(call, pingPayload);
        const telemetry = payload.health ? { telemetry: { smsgate_health: payload.health } } : {};
        await mobile.seen(phone, { userAgent: call.userAgent, ...telemetry });
        return null;
      }
      default:
        return null;
    }
  }

  return {
    async handle(phone: Phone, call: AppWebhookCall): Promise<AppWebhookResult> {
      const text = await textOf(phone, call);
      if (!text) return null;
      try {
        return await mobile.receive(phone, call.event, text);
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'receive_disabled')) throw error;
        // Receiving was turned off after the app last synced its webhooks: the text is not wanted. A
        // refusal would only be retried 15 times (WebhooksSettings.kt retry_count), then dropped there.
        metrics.inbound.inc({ result: 'receive_disabled' });
        logger.info(
          { deviceId: phone.deviceId, event: call.event },
          'smsgate: a received text dropped: receiving is turned off for this phone',
        );
        return null;
      }
    },
  };
}

export type MobileWebhooks = ReturnType<typeof createMobileWebhooks>;
