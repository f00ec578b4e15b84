import type { EntityManager } from '@mikro-orm/postgresql';
import type { DevicesService } from '../../devices/devices.service';
import type { EventsService } from '../../events/events.service';
import { transaction } from '../../db/transaction';
import { badRequest, conflict, notFound, validationFailed } from '../../http/errors';
import type { Clock } from '../../lib/clock';
import { UUID } from '../../lib/fields';
import type { SecretBox } from '../../lib/secret-box';
import type { MessagesService } from '../../messages/messages.service';
import type { SendBody } from '../../messages/messages.schemas';
import { sendBodyFor } from '../../messages/plain-send-body';
import { fieldErrors } from '../../http/validate';
import { ValidationError } from '../../lib/yup';
import { messageView } from '../../messages/messages.views';
import type { WebhooksService } from '../../webhooks/webhooks.service';
import { integratorRepository as repo, type BatchFilter } from './integrator.repository';
import { unsupported, type SendMessageBody } from './integrator.schemas';
import type { IntegratorWebhooks } from './integrator.webhooks';
import { ownPart, settingsChange } from './integrator.settings';
import { logEntryView, messageStateView, settingsView } from './integrator.views';

export interface IntegratorDeps {
  em: () => EntityManager;
  clock: Clock;
  messages: MessagesService;
  devices: DevicesService;
  webhooks: WebhooksService;
  events: EventsService;
  secretBox: SecretBox;
  integratorWebhooks: IntegratorWebhooks;
}

/** What can name a message or webhook here: a client-chosen id (printable ASCII, at most 36) or a UUID. */
const NAMEABLE = /^[\x21-\x7e]{1,36}$/;

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
    return await sendBodyFor(input).validate(input, { abortEarly: false });
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
 * webhooks are ours in its format (integrator.webhooks.ts), its settings are our phones' settings. No rule lives here that /v1 does not share.
 */
export function createIntegratorService(deps: IntegratorDeps) {
  const { em, clock } = deps;

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

  return {
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
        await deps.integratorWebhooks.useKey(userId, newKey);
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
      const targets = (await deps.integratorWebhooks.ofAccount(userId)).filter(
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
