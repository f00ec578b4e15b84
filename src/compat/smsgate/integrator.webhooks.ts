import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sim } from '../../devices/device.entity';
import type { DevicesService } from '../../devices/devices.service';
import type { Event, EventName } from '../../events/event.entity';
import { badRequest, notFound } from '../../http/errors';
import type { Clock } from '../../lib/clock';
import { randomToken } from '../../lib/crypto';
import type { SecretBox } from '../../lib/secret-box';
import { messageView } from '../../messages/messages.views';
import type { WebhooksService } from '../../webhooks/webhooks.service';
import type { Target } from '../../webhooks/webhooks.repository';
import { mmsPayloadOf } from './integrator.mms';
import { integratorRepository as repo } from './integrator.repository';
import { unsupported } from './integrator.schemas';
import { webhookView } from './integrator.views';
import { simCardsOf } from './mobile.views';

export interface IntegratorWebhooksDeps {
  em: () => EntityManager;
  clock: Clock;
  devices: DevicesService;
  webhooks: WebhooksService;
  secretBox: SecretBox;
}

/** Their webhook events and ours. */
const OUR_EVENT: Record<string, EventName> = {
  'sms:received': 'message.received',
  'sms:data-received': 'message.data_received',
  'mms:received': 'mms.received',
  'mms:downloaded': 'mms.downloaded',
  'app:started': 'device.app_started',
  'sms:sent': 'message.sent',
  'sms:delivered': 'message.delivered',
  'sms:failed': 'message.failed',
  'system:ping': 'ping',
};
const THEIR_EVENT = Object.fromEntries(Object.entries(OUR_EVENT).map(([theirs, ours]) => [ours, theirs]));

/** A message's data as our events carry it (messages.views messageView). */
type MessageData = ReturnType<typeof messageView>;

/** The payload of their event (client-go dto_webhooks.go Sms*Payload) from our event's message. */
function payloadOf(event: Event, messageId: string): Record<string, unknown> {
  if (event.name === 'ping') return {};
  // The app's AppStartedPayload: the SIMs the phone has now, as the app lists them.
  if (event.name === 'device.app_started') return { simCards: simCardsOf((event.data as { sims?: Sim[] }).sims ?? []) };
  const m = event.data as MessageData;
  const base = {
    messageId,
    phoneNumber: (m.direction === 'inbound' ? m.sender : m.recipient) ?? '',
    ...(m.sim_subscription_id !== null && m.sim_subscription_id !== undefined
      ? { simNumber: m.sim_subscription_id }
      : {}),
  };
  if (event.name === 'mms.received' || event.name === 'mms.downloaded') return mmsPayloadOf(event, base);
  switch (event.name) {
    case 'message.received':
      return { ...base, sender: m.sender ?? '', message: m.body, receivedAt: m.received_at ?? m.created_at };
    case 'message.data_received':
      return { ...base, sender: m.sender ?? '', data: m.data?.base64 ?? '', receivedAt: m.received_at ?? m.created_at };
    case 'message.sent':
      return { ...base, sentAt: m.sent_at ?? event.createdAt.toISOString() };
    case 'message.delivered':
      return { ...base, deliveredAt: m.delivered_at ?? event.createdAt.toISOString() };
    default:
      return {
        ...base,
        failedAt: m.failed_at ?? event.createdAt.toISOString(),
        reason: m.error_message ?? m.error_code ?? 'failed',
      };
  }
}

/**
 * SMSGate-format webhooks: theirs are ours with `format: 'smsgate'`, named by the client's ids where
 * it chose them, signed with the account's SMSGate signing key, their bodies written by `writeBody`
 * (registered with the webhooks in src/services.ts).
 */
export function createIntegratorWebhooks(deps: IntegratorWebhooksDeps) {
  const { em, clock } = deps;

  async function signingKey(userId: string): Promise<string> {
    const sealed = await repo.sealedKey(em(), userId, () => deps.secretBox.seal(randomToken(24)), clock.now());
    return deps.secretBox.open(sealed);
  }

  async function smsgateWebhooks(userId: string) {
    const all = await deps.webhooks.list(userId);
    const ours = all.filter((webhook) => webhook.format === 'smsgate');
    const names = await repo.extIds(
      em(),
      ours.map((webhook) => webhook.id),
    );
    return ours.map((webhook) => ({ webhook, id: names.get(webhook.id) ?? webhook.id }));
  }

  /** Writes deliveries to SMSGate-format webhooks: the app's envelope (its WebHookEventDTO.kt). */
  async function writeBody(tx: EntityManager, event: Event, target: Target): Promise<string | null> {
    const data = event.data as Partial<MessageData>;
    // A received MMS is their mms:downloaded (our mms.downloaded), never an sms:received.
    if (event.name === 'message.received' && 'attachments' in data) return null;
    const sendId = data.batch_id ?? null;
    const names = await repo.extIds(tx, [target.id, ...(sendId ? [sendId] : [])]);
    const messageId = sendId ? (names.get(sendId) ?? sendId) : (event.messageId ?? data.id ?? '');
    return JSON.stringify({
      id: event.id,
      webhookId: names.get(target.id) ?? target.id,
      deviceId: event.deviceId ?? data.device_id ?? null,
      event: THEIR_EVENT[event.name] ?? event.name,
      payload: payloadOf(event, messageId),
    });
  }
  return {
    writeBody,
    ofAccount: smsgateWebhooks,

    /** A signing key the client chose: the account's SMSGate webhooks sign with it from their next delivery on (queued ones keep theirs). */
    async useKey(userId: string, key: string) {
      await repo.setKey(em(), userId, deps.secretBox.seal(key), clock.now());
      for (const { webhook } of await smsgateWebhooks(userId)) await deps.webhooks.rotateSecret(userId, webhook.id, key);
    },

    async list(userId: string) {
      const rows = await smsgateWebhooks(userId);
      return rows.map(({ webhook, id }) =>
        webhookView(id, THEIR_EVENT[webhook.events[0]] ?? webhook.events[0], webhook.url, webhook.deviceId ?? null),
      );
    },

    /** POST /webhooks: a webhook of ours in their format; the same id again replaces it (as theirs does). */
    async register(
      userId: string,
      input: { id?: string; url: string; event: string; deviceId?: string | null },
    ) {
      const ours = OUR_EVENT[input.event];
      if (!ours) throw unsupported(`${input.event} events are not sent by this server.`);
      // deviceId ties it to one phone; their server answers 400 unless it names a phone of the account.
      const deviceId = input.deviceId || null;
      if (deviceId && !(await deps.devices.list(userId)).some((phone) => phone.id === deviceId))
        throw badRequest('deviceId names no phone of this account.');
      const existing = input.id ? (await smsgateWebhooks(userId)).find((row) => row.id === input.id) : undefined;
      if (existing) {
        // A replacement, as theirs: without deviceId it is for every phone again.
        await deps.webhooks.update(userId, existing.webhook.id, { url: input.url, events: [ours], deviceId });
        return webhookView(existing.id, input.event, input.url, deviceId);
      }
      const { webhook } = await deps.webhooks.create(userId, {
        url: input.url,
        events: [ours],
        deviceId,
        name: `SMSGate ${input.event}`,
        format: 'smsgate',
        secret: await signingKey(userId),
      });
      if (input.id) await repo.name(em(), userId, 'webhook', input.id, webhook.id, clock.now());
      return webhookView(input.id || webhook.id, input.event, webhook.url, deviceId);
    },

    /**
     * DELETE /webhooks/{id}. Their server answers 204 whether or not the id named one; here, as on
     * /v1, an id that names none of the account's SMSGate webhooks is 404, so a typo is not taken
     * for a deletion.
     */
    async remove(userId: string, id: string) {
      const found = (await smsgateWebhooks(userId)).find((row) => row.id === id);
      if (!found) throw notFound('webhook');
      await deps.webhooks.remove(userId, found.webhook.id);
      await repo.forget(em(), found.webhook.id);
    },
  };
}

export type IntegratorWebhooks = ReturnType<typeof createIntegratorWebhooks>;
