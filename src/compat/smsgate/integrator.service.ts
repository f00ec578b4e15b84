import type { EntityManager } from '@mikro-orm/postgresql';
import type { DevicesService } from '../../devices/devices.service';
import type { Event, EventName } from '../../events/event.entity';
import type { EventsService } from '../../events/events.service';
import { transaction } from '../../db/transaction';
import { ApiError, badRequest, conflict, notFound, validationFailed } from '../../http/errors';
import type { Clock } from '../../lib/clock';
import { randomToken } from '../../lib/crypto';
import type { SecretBox } from '../../lib/secret-box';
import type { MessagesService } from '../../messages/messages.service';
import { sendBody, type SendBody } from '../../messages/messages.schemas';
import { fieldErrors } from '../../http/validate';
import { ValidationError } from '../../lib/yup';
import { messageView } from '../../messages/messages.views';
import { mmsPayloadOf } from './integrator.mms';
import type { WebhooksService } from '../../webhooks/webhooks.service';
import type { Target } from '../../webhooks/webhooks.repository';
import { integratorRepository as repo, type BatchFilter } from './integrator.repository';
import type { SendMessageBody } from './integrator.schemas';
import { ownPart, settingsChange } from './integrator.settings';
import { logEntryView, messageStateView, settingsView, webhookView } from './integrator.views';
import { simCardsOf } from './mobile.views';
import type { Sim } from '../../devices/device.entity';

export interface IntegratorDeps {
  em: () => EntityManager;
  clock: Clock;
  messages: MessagesService;
  devices: DevicesService;
  webhooks: WebhooksService;
  events: EventsService;
  secretBox: SecretBox;
}

export const unsupported = (message: string) => new ApiError(400, 'not_supported', message);

/** What can name a message or webhook here: a client-chosen id (printable ASCII, at most 36) or a UUID. */
const NAMEABLE = /^[\x21-\x7e]{1,36}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** Their names of POST /v1/messages's fields, for the errors of a send made here. */
const THEIR_FIELD: Record<string, string> = {
  body: 'message',
  data: 'dataMessage',
  to: 'phoneNumbers',
  device_id: 'deviceId',
  sim_subscription_id: 'simNumber',
  ttl_seconds: 'ttl',
  scheduled_at: 'scheduleAt',
};

/** A send made here meets every rule of POST /v1/messages (length, horizon, ttl), named as theirs. */
async function ourSend(input: Record<string, unknown>): Promise<SendBody> {
  try {
    return await sendBody.validate(input, { abortEarly: false });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw validationFailed(
      fieldErrors(error, 'body').map(({ field, message }) => {
        const ours = /^body\.([a-z_]+)/.exec(field)?.[1] ?? '';
        const theirs = THEIR_FIELD[ours];
        return theirs
          ? { field: `body.${theirs}${field.slice(`body.${ours}`.length)}`, message: message.replace(ours, theirs) }
          : { field, message };
      }),
    );
  }
}

/**
 * SMSGate's integrator API on our services: one SMSGate message is one of our sends (batch), its
 * webhooks are ours in its format (`writeBody`, registered with the webhooks in src/services.ts),
 * its settings are our phones' settings. No rule lives here that /v1 does not share.
 */
export function createIntegratorService(deps: IntegratorDeps) {
  const { em, clock } = deps;

  async function signingKey(userId: string): Promise<string> {
    const sealed = await repo.sealedKey(em(), userId, () => deps.secretBox.seal(randomToken(24)), clock.now());
    return deps.secretBox.open(sealed);
  }

  /** Our send that an SMSGate message id names: a client-chosen id, or the send's own. */
  async function batchIdOf(userId: string, id: string): Promise<string> {
    // Neither a client's id nor ours (a NUL, which Postgres refuses, or anything else): nothing by that name.
    if (!NAMEABLE.test(id)) throw notFound('message');
    const named = await repo.ourId(em(), userId, 'message', id);
    if (named) return named;
    if (UUID.test(id)) return id;
    throw notFound('message');
  }

  async function stateOf(userId: string, id: string, withContent = true) {
    const batchId = await batchIdOf(userId, id);
    const { batch, messages } = await deps.messages.getBatch(userId, batchId);
    return messageStateView(id, batch, messages, withContent);
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
    signingKey,
    writeBody,

    /**
     * POST /message(s): one send (batch) to every phone number. A client-chosen `id` names it from
     * now on; the route runs this under that id as its idempotency key.
     */
    async send(userId: string, body: SendMessageBody) {
      if (body.mmsMessage) throw unsupported('MMS (mmsMessage) are not supported: send a textMessage.');
      const text = body.textMessage?.text ?? body.message;
      const data = body.dataMessage ? { base64: body.dataMessage.data, port: body.dataMessage.port } : null;
      // Their Message.Validate: exactly one of message, textMessage and dataMessage.
      if (data && text) throw badRequest('Specify exactly one of textMessage (or message) and dataMessage.');
      if (!text && !data) throw badRequest('No message content provided: set textMessage.text (or message).');
      if (body.ttl != null && body.validUntil != null) throw badRequest('ttl and validUntil conflict: set one.');
      if (body.deviceId && !UUID.test(body.deviceId)) throw badRequest('deviceId names no phone of this account.');
      // A repeat within the idempotency window got the first answer already; later, it is theirs: 409.
      if (body.id && (await repo.ourId(em(), userId, 'message', body.id))) {
        throw conflict('message_exists', 'A message with this id already exists.');
      }
      const ttl =
        body.ttl ?? (body.validUntil ? Math.ceil((body.validUntil.getTime() - clock.now().getTime()) / 1000) : null);
      if (ttl !== null && ttl < 1) throw badRequest('validUntil must be in the future.');
      const input = await ourSend({
        ...(data ? { data } : { body: text }),
        // Ciphertext in the app's format: stored as given, for the phone to decrypt.
        encrypted: body.isEncrypted === true,
        to: body.phoneNumbers,
        device_id: body.deviceId || null,
        sim_subscription_id: body.simNumber ?? null,
        ttl_seconds: ttl,
        scheduled_at: body.scheduleAt?.toISOString() ?? null,
        // Their priority ≥ 100 skips the phone's limits and delays; ours puts it first in the queue.
        priority: (body.priority ?? 0) >= 100 ? 'high' : 'normal',
      });
      const { batch } = await deps.messages.send(userId, input);
      if (body.id) await repo.name(em(), userId, 'message', body.id, batch.id, clock.now());
      return stateOf(userId, body.id || batch.id, false);
    },

    state: (userId: string, id: string) => stateOf(userId, id),

    /** DELETE /messages/{id}: its pending messages cancelled as the send's cancel does; 409 when none is. */
    async cancel(userId: string, id: string) {
      await deps.messages.cancel(userId, await batchIdOf(userId, id), { onlyPending: true });
      return stateOf(userId, id);
    },

    async list(
      userId: string,
      query: Omit<BatchFilter, 'userId' | 'order'> & { includeContent: boolean; sort: string },
    ) {
      const { ids, total } = await repo.batches(em(), {
        userId,
        from: query.from,
        to: query.to,
        state: query.state,
        deviceId: query.deviceId,
        // Their bounds (server params.go): 1..100, offset from 0.
        limit: Math.max(1, Math.min(query.limit, 100)),
        offset: Math.max(0, query.offset),
        order: query.sort === 'created_at' ? 'asc' : 'desc',
      });
      // One after another: they share the request's connection.
      const batches = await repo.sendsOf(em(), userId, ids);
      const messages = await repo.messagesOf(em(), userId, ids);
      const names = await repo.extIds(em(), ids);
      const byId = new Map(batches.map((batch) => [batch.id, batch]));
      const items = ids.map((id) =>
        messageStateView(
          names.get(id) ?? id,
          byId.get(id)!,
          messages.filter((m) => m.batchId === id),
          query.includeContent,
        ),
      );
      return { items, total };
    },

    /** GET /devices: paired phones (client-go Device). */
    devices: (userId: string) => deps.devices.list(userId),

    async removeDevice(userId: string, id: string) {
      if (!UUID.test(id)) throw notFound('device');
      await deps.devices.unpair(userId, id);
    },

    async listWebhooks(userId: string) {
      const rows = await smsgateWebhooks(userId);
      return rows.map(({ webhook, id }) =>
        webhookView(id, THEIR_EVENT[webhook.events[0]] ?? webhook.events[0], webhook.url, webhook.deviceId ?? null),
      );
    },

    /** POST /webhooks: a webhook of ours in their format; the same id again replaces it (as theirs does). */
    async registerWebhook(
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
    async removeWebhook(userId: string, id: string) {
      const found = (await smsgateWebhooks(userId)).find((row) => row.id === id);
      if (!found) throw notFound('webhook');
      await deps.webhooks.remove(userId, found.webhook.id);
      await repo.forget(em(), found.webhook.id);
    },

    /** GET /settings: the default phone's settings (their settings are the account's). */
    async settings(userId: string) {
      const [device] = await deps.devices.list(userId);
      return settingsView(device);
    },

    /**
     * PATCH/PUT /settings: what maps onto our phone settings is applied to every paired phone of the
     * account; anything else is refused with its name, nothing applied.
     */
    async changeSettings(userId: string, body: Record<string, unknown>) {
      const { patch, interval, limitAlone, newKey } = settingsChange(body);
      const phones = await deps.devices.list(userId);
      // Every phone's change is worked out before any is applied: one refused, none changed.
      const changes = phones.map((phone) => ({ phone, patch: { ...patch, ...ownPart(phone, interval, limitAlone) } }));
      for (const change of changes) await deps.devices.update(userId, change.phone.id, change.patch, 'api');
      if (newKey) {
        // The account's SMSGate webhooks sign with it from their next delivery on (queued ones keep theirs).
        await repo.setKey(em(), userId, deps.secretBox.seal(newKey), clock.now());
        for (const { webhook } of await smsgateWebhooks(userId))
          await deps.webhooks.rotateSecret(userId, webhook.id, newKey);
      }
      return this.settings(userId);
    },

    /**
     * POST /inbox/export: the phone's received texts in the range, sent again to the account's
     * SMSGate sms:received webhooks as new deliveries (logged and retried like any other).
     */
    async exportInbox(userId: string, input: { deviceId?: string; since: Date; until: Date }) {
      const [first] = await deps.devices.list(userId);
      const deviceId = input.deviceId ?? first?.id;
      if (!deviceId || !UUID.test(deviceId)) throw badRequest('deviceId names no phone of this account.');
      await deps.devices.get(userId, deviceId);
      const texts = await repo.received(em(), userId, deviceId, input.since, input.until);
      const targets = (await smsgateWebhooks(userId)).filter(
        ({ webhook }) => webhook.events.includes('message.received') && (webhook.deviceId ?? deviceId) === deviceId,
      );
      if (texts.length === 0 || targets.length === 0) return;
      await transaction(em(), (tx) =>
        deps.events.emitMany(
          tx,
          targets.flatMap(({ webhook }) =>
            texts.map((text) => ({
              userId,
              name: 'message.received' as const,
              data: messageView(text),
              messageId: text.id,
              deviceId: text.deviceId,
              webhookId: webhook.id,
            })),
          ),
        ),
      );
    },

    /** GET /logs: the account's events in the range (the last 24 hours unless given), 500 at most. */
    async logs(userId: string, range: { from?: Date; to?: Date }) {
      const to = range.to ?? clock.now();
      const from = range.from ?? new Date(to.getTime() - 86_400_000);
      const events = await repo.events(em(), userId, from, to, 500);
      return events.map(logEntryView);
    },
  };
}

export type IntegratorService = ReturnType<typeof createIntegratorService>;
