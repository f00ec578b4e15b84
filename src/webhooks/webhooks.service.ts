import { newId } from '../lib/ids';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { StartKind, Starter } from '../../temporal/starter';
import type { DeliveryStart } from './delivery-starts';
import { ABANDONED } from './attempt-rules';
import { afterCommit, transaction } from '../db/transaction';
import type { Event, EventName } from '../events/event.entity';
import type { Emitted, EventsService } from '../events/events.service';
import { conflict, notFound, validationFailed } from '../http/errors';
import type { Page } from '../http/pagination';
import type { Clock } from '../lib/clock';
import type { PlansService } from '../plans/plans.service';
import type { WebhookDelivery } from './delivery.entity';
import { urlProblem } from './outbound';
import { newSecret } from './signature';
import type { Webhook, WebhookFormat } from './webhook.entity';
import type { SecretBox } from '../lib/secret-box';
import { activeTraceParent } from '../traces/tracing';
import {
  webhooksRepository,
  type DeliveryFilter,
  type NewDelivery,
  type Target,
  type WebhookChanges,
} from './webhooks.repository';

export interface WebhooksDeps {
  em: () => EntityManager;
  clock: Clock;
  plans: PlansService;
  events: EventsService;
  starter: Starter;
  /** The signals to their webhooks' queue workflows that committed deliveries need. */
  deliveryStarts: StartKind<DeliveryStart>;
  allowPrivateNetworks: boolean;
  /** Plain http receivers on this machine are taken (WEBHOOK_ALLOW_LOOPBACK_HTTP). */
  allowLoopbackHttp?: boolean;
  /** Seals signing secrets at rest when SECRETS_KEY is set. */
  secretBox: SecretBox;
}

export interface CreateWebhookInput {
  url: string;
  events: EventName[];
  name?: string | null;
  /** The one phone of the account whose events it receives; null or absent: every event. */
  deviceId?: string | null;
  /** Another format's webhook (set by the compat API that registers it), signed with its given secret. */
  format?: WebhookFormat;
  secret?: string;
}

/** Writes the body of a delivery of `event` to a webhook of another format; null: not one it sends. */
export type BodyWriter = (tx: EntityManager, event: Event, target: Target) => Promise<string | null>;

export interface UpdateWebhookInput {
  url?: string;
  events?: EventName[];
  name?: string | null;
  /** Ties it to one phone, or (null) to every phone of the account. */
  deviceId?: string | null;
  enabled?: boolean;
}

/** The body every attempt of a delivery sends, byte for byte. */
export const deliveryBody = (event: Event) =>
  JSON.stringify({ id: event.id, event: event.name, created_at: event.createdAt.toISOString(), data: event.data });

export function createWebhooksService(deps: WebhooksDeps) {
  const { em, clock } = deps;
  const writers = new Map<WebhookFormat, BodyWriter>();
  const bodyFor = (tx: EntityManager, event: Event, target: Target) => {
    const writer = target.format === 'service' ? undefined : writers.get(target.format);
    return writer ? writer(tx, event, target) : Promise.resolve(deliveryBody(event));
  };

  async function owned(userId: string, id: string, tx = em()): Promise<Webhook> {
    const webhook = await webhooksRepository.ownedWebhook(tx, userId, id);
    if (!webhook) throw notFound('webhook');
    return webhook;
  }

  /** A webhook is tied only to a paired phone of its account; any other id is 404, as on a send. */
  async function assertOwnPhone(tx: EntityManager, userId: string, deviceId: string | null | undefined) {
    if (deviceId && !(await webhooksRepository.isLivePhone(tx, userId, deviceId))) throw notFound('device');
  }

  async function assertUsableUrl(url: string): Promise<void> {
    const problem = await urlProblem(url, deps.allowPrivateNetworks, deps.allowLoopbackHttp);
    if (problem) throw validationFailed([{ field: 'body.url', message: `url ${problem}` }]);
  }

  /**
   * For every batch of events (subscribed in src/services.ts): one delivery row per receiving
   * webhook, in the events' transaction, and their workflows started after it commits.
   */
  async function fanOut(tx: EntityManager, emitted: Emitted[]): Promise<void> {
    const explicit = emitted.filter((e) => e.input.webhookId);
    const broadcast = emitted.filter((e) => !e.input.webhookId);
    const deliveries: NewDelivery[] = [];
    // With tracing on, the attempts continue the trace of what emitted the events.
    const traceParent = activeTraceParent();
    const add = async (event: Event, target: Target) => {
      const body = await bodyFor(tx, event, target);
      if (body === null) return;
      deliveries.push({
        id: newId(),
        userId: event.userId,
        webhookId: target.id,
        eventId: event.id,
        event: event.name,
        url: target.url,
        messageId: event.messageId ?? null,
        deviceId: event.deviceId ?? null,
        body,
        secretVersion: target.secretVersion,
        createdAt: event.createdAt,
        traceParent,
      });
    };
    // An explicit test ping reaches its webhook even while it is disabled; events reach enabled ones.
    for (const { event, input } of explicit)
      for (const target of await webhooksRepository.liveOne(tx, event.userId, input.webhookId!))
        await add(event, target);
    if (broadcast.length > 0) {
      const receivers = await webhooksRepository.receiversOf(
        tx,
        broadcast.map(({ event }) => ({ userId: event.userId, name: event.name, deviceId: event.deviceId ?? null })),
      );
      for (const { eventIndex, ...target } of receivers) await add(broadcast[eventIndex].event, target);
    }
    if (deliveries.length === 0) return;
    await webhooksRepository.insertDeliveries(tx, deliveries);
    afterCommit(tx, () =>
      deps.starter.enqueue(
        deps.deliveryStarts,
        deliveries.map((d) => ({ id: d.id, userId: d.userId, webhookId: d.webhookId })),
      ),
    );
  }
  return {
    fanOut,
    /** How deliveries to webhooks of `format` are written (the compat API that registers them says). */
    writeBodies(format: Exclude<WebhookFormat, 'service'>, writer: BodyWriter): void {
      writers.set(format, writer);
    },

    list: (userId: string) => webhooksRepository.listWebhooks(em(), userId),

    get: (userId: string, id: string) => owned(userId, id),

    /** The secret is returned here once. */
    async create(userId: string, input: CreateWebhookInput): Promise<{ webhook: Webhook; secret: string }> {
      await assertUsableUrl(input.url);
      const secret = input.secret ?? newSecret();
      const webhook = await transaction(em(), async (tx) => {
        await deps.plans.admitOneMore(tx, userId, 'webhooks', () => webhooksRepository.countWebhooks(tx, userId));
        await assertOwnPhone(tx, userId, input.deviceId);
        const now = clock.now();
        const created = await webhooksRepository.insertWebhook(tx, {
          userId,
          url: input.url,
          name: input.name ?? null,
          deviceId: input.deviceId ?? null,
          events: [...new Set(input.events)],
          format: input.format ?? 'service',
          secretVersion: 1,
          createdAt: now,
          updatedAt: now,
        });
        await webhooksRepository.storeSecret(tx, created.id, 1, deps.secretBox.seal(secret), now);
        return created;
      });
      return { webhook, secret };
    },

    async update(userId: string, id: string, input: UpdateWebhookInput): Promise<Webhook> {
      if (input.url !== undefined) await assertUsableUrl(input.url);
      return transaction(em(), async (tx) => {
        const webhook = await owned(userId, id, tx);
        const changes: WebhookChanges = {};
        if (input.url !== undefined) changes.url = input.url;
        if (input.events !== undefined) changes.events = [...new Set(input.events)];
        if (input.name !== undefined) changes.name = input.name;
        if (input.deviceId !== undefined) {
          await assertOwnPhone(tx, userId, input.deviceId);
          changes.deviceId = input.deviceId;
        }
        if (input.enabled === true) {
          // Clears an automatic pause; what was missed meanwhile is not replayed.
          changes.enabled = true;
          changes.disabledReason = null;
        } else if (input.enabled === false && webhook.enabled) {
          changes.enabled = false;
          await webhooksRepository.abandonOpen(tx, webhook.id, ABANDONED.disabled, clock.now());
        }
        await webhooksRepository.updateWebhook(tx, webhook, { ...changes, updatedAt: clock.now() });
        return webhook;
      });
    },

    /** Soft delete: the delivery log keeps the webhook's deliveries; open ones end now. */
    async remove(userId: string, id: string): Promise<void> {
      await transaction(em(), async (tx) => {
        const webhook = await owned(userId, id, tx);
        const now = clock.now();
        await webhooksRepository.updateWebhook(tx, webhook, { deletedAt: now, enabled: false, updatedAt: now });
        await webhooksRepository.abandonOpen(tx, webhook.id, ABANDONED.deleted, now);
      });
    },

    /**
     * A new secret for deliveries queued from now on; those already queued keep theirs. `given` is
     * a secret the caller chose (a compat API whose clients set their own signing key).
     */
    async rotateSecret(userId: string, id: string, given?: string): Promise<string> {
      const secret = given ?? newSecret();
      await transaction(em(), async (tx) => {
        const webhook = await owned(userId, id, tx);
        const version = await webhooksRepository.nextSecretVersion(tx, webhook.id, clock.now());
        await webhooksRepository.storeSecret(tx, webhook.id, version, deps.secretBox.seal(secret), clock.now());
      });
      return secret;
    },

    /** Queues a ping through the normal path (event, delivery row, workflow) and returns its delivery. */
    async test(userId: string, id: string): Promise<WebhookDelivery> {
      const event = await transaction(em(), async (tx) => {
        const webhook = await owned(userId, id, tx);
        return deps.events.emit(tx, {
          userId,
          name: 'ping',
          data: { webhook_id: webhook.id },
          webhookId: webhook.id,
        });
      });
      return webhooksRepository.deliveryOfEvent(em().fork(), event.id, id);
    },

    /** The delivery log: newest first, across every webhook of the account, deleted ones included. */
    listDeliveries: (userId: string, filter: DeliveryFilter): Promise<Page<WebhookDelivery>> =>
      webhooksRepository.listDeliveries(em(), userId, filter),

    async getDelivery(userId: string, id: string): Promise<WebhookDelivery> {
      const delivery = await webhooksRepository.findDelivery(em(), userId, id);
      if (!delivery) throw notFound('delivery');
      return delivery;
    },

    /** The redeliveries of each of these deliveries (the log links both ways). */
    redeliveriesOf: (userId: string, deliveries: WebhookDelivery[]) =>
      webhooksRepository.redeliveriesOf(
        em(),
        userId,
        deliveries.map((d) => d.id),
      ),

    /**
     * Sends a delivery again, whatever became of it (delivered, failed, abandoned while its webhook
     * was paused): a new delivery of the same event (same body) to the same webhook, at its current
     * URL and signed with its current secret, through the normal path (row, workflow, attempts, log).
     * Of a delivery still open (retrying), it is one attempt, made before the original's next: if it
     * succeeds, the original is delivered through it and retries no more; if it fails, the original
     * keeps its retries.
     */
    async redeliver(userId: string, deliveryId: string): Promise<WebhookDelivery> {
      const id = newId();
      await transaction(em(), async (tx) => {
        const original = await webhooksRepository.findDelivery(tx, userId, deliveryId);
        if (!original) throw notFound('delivery');
        // Locked so that a delete or disable committing meanwhile is seen, or waits for this.
        const webhook = await webhooksRepository.lockForRedelivery(tx, userId, original.webhookId);
        if (!webhook || webhook.deletedAt)
          throw conflict('webhook_deleted', 'The webhook of this delivery was deleted; it cannot be redelivered.');
        if (!webhook.enabled)
          throw conflict('webhook_disabled', 'The webhook is disabled or paused; enable it before redelivering.');
        await webhooksRepository.insertDeliveries(tx, [
          {
            id,
            userId,
            webhookId: webhook.id,
            eventId: original.eventId,
            event: original.event,
            url: webhook.url,
            messageId: original.messageId ?? null,
            deviceId: original.deviceId ?? null,
            body: original.body,
            secretVersion: webhook.secretVersion,
            createdAt: clock.now(),
            traceParent: activeTraceParent(),
            redeliveryOf: original.id,
          },
        ]);
        afterCommit(tx, () => deps.starter.enqueue(deps.deliveryStarts, [{ id, userId, webhookId: webhook.id }]));
      });
      return webhooksRepository.getDelivery(em(), userId, id);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
