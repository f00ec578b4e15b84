import type { EntityManager, FilterQuery, RequiredEntityData } from '@mikro-orm/postgresql';
import type { EventName } from '../events/event.entity';
import { Webhook, type WebhookFormat } from './webhook.entity';
import { createdWithin, findPage, type Page } from '../http/pagination';
import { WebhookDelivery, type DeliveryStatus } from './delivery.entity';
import { query, sql } from '../db/sql';

// The SQL of `webhooks`, `webhook_secrets` and `webhook_deliveries` that more than one module needs.

export interface Target {
  id: string;
  userId: string;
  url: string;
  secretVersion: number;
  events: EventName[];
  format: WebhookFormat;
}

export interface NewDelivery {
  id: string;
  userId: string;
  webhookId: string;
  eventId: string;
  event: EventName;
  url: string;
  messageId: string | null;
  deviceId: string | null;
  body: string;
  secretVersion: number;
  createdAt: Date;
  /** With tracing on, the trace that queued it. */
  traceParent?: string | null;
  /** A manual redelivery: the delivery it repeats. */
  redeliveryOf?: string | null;
}

export interface DeliveryFilter {
  webhookId?: string;
  messageId?: string;
  status?: DeliveryStatus;
  event?: EventName;
  from?: Date;
  to?: Date;
  cursor?: string;
  limit: number;
}

/** What the webhooks service may change on a loaded webhook. */
export type WebhookChanges = Partial<
  Pick<Webhook, 'url' | 'events' | 'name' | 'deviceId' | 'enabled' | 'disabledReason' | 'updatedAt' | 'deletedAt'>
>;

export const webhooksRepository = {
  /** The account's webhook unless deleted, or null. */
  ownedWebhook: (em: EntityManager, userId: string, id: string) => em.findOne(Webhook, { id, userId, deletedAt: null }),

  /** The account's webhooks but the deleted ones, oldest first. */
  listWebhooks: (em: EntityManager, userId: string) =>
    em.find(Webhook, { userId, deletedAt: null }, { orderBy: { createdAt: 'asc', id: 'asc' } }),

  countWebhooks: (tx: EntityManager, userId: string) => tx.count(Webhook, { userId, deletedAt: null }),

  async insertWebhook(tx: EntityManager, data: RequiredEntityData<Webhook>): Promise<Webhook> {
    const webhook = tx.create(Webhook, data);
    await tx.flush();
    return webhook;
  },

  /** Sets `changes` on the loaded webhook and writes them. */
  async updateWebhook(tx: EntityManager, webhook: Webhook, changes: WebhookChanges): Promise<void> {
    Object.assign(webhook, changes);
    await tx.flush();
  },

  /** The account's delivery, or null: another account's is not found. */
  findDelivery: (em: EntityManager, userId: string, id: string) => em.findOne(WebhookDelivery, { id, userId }),

  /** The account's delivery; fails (NotFoundError) when there is none. */
  getDelivery: (em: EntityManager, userId: string, id: string) => em.findOneOrFail(WebhookDelivery, { id, userId }),

  /** The delivery of an event to a webhook; fails (NotFoundError) when there is none. */
  deliveryOfEvent: (em: EntityManager, eventId: string, webhookId: string) =>
    em.findOneOrFail(WebhookDelivery, { eventId, webhookId }),

  /** The delivery log: newest first, across every webhook of the account, deleted ones included. */
  listDeliveries(em: EntityManager, userId: string, filter: DeliveryFilter): Promise<Page<WebhookDelivery>> {
    const where: FilterQuery<WebhookDelivery> = { userId, ...createdWithin(filter.from, filter.to) };
    if (filter.webhookId) where.webhookId = filter.webhookId;
    if (filter.messageId) where.messageId = filter.messageId;
    if (filter.status) where.status = filter.status;
    if (filter.event) where.event = filter.event;
    return findPage(em, WebhookDelivery, where, { cursor: filter.cursor, limit: filter.limit, order: 'desc' });
  },

  /**
   * Who receives each of these events: the enabled, live webhooks of its account subscribed to its
   * name, either for every phone (no device_id) or tied to the phone the event concerns. An event
   * that concerns no phone reaches only webhooks for every phone. `eventIndex` is the event's place in
   * `events`; rows come in the events' order, then the webhooks' creation order.
   */
  receiversOf(tx: EntityManager, events: Array<{ userId: string; name: EventName; deviceId: string | null }>) {
    const rows = JSON.stringify(events.map((e, i) => ({ i, user_id: e.userId, name: e.name, device_id: e.deviceId })));
    return query<Target & { eventIndex: number }>(
      tx,
      sql`select x.i as event_index, w.id, w.user_id, w.url, w.secret_version, w.events, w.format
            from json_to_recordset(${rows}::json) as x (i int, user_id uuid, name text, device_id uuid)
            join webhooks w on w.user_id = x.user_id and x.name = any(w.events)
                           and (w.device_id is null or w.device_id = x.device_id)
           where w.enabled and w.deleted_at is null
           order by x.i, w.created_at, w.id`,
      { prepared: true },
    );
  },

  /** Whether `deviceId` names a paired phone of the account (a webhook may be tied to it). */
  async isLivePhone(tx: EntityManager, userId: string, deviceId: string): Promise<boolean> {
    const rows = await query(
      tx,
      sql`select 1 from devices where id = ${deviceId} and user_id = ${userId} and unpaired_at is null`,
    );
    return rows.length > 0;
  },

  /** One live webhook of an account, enabled or not (a test ping reaches a paused one too). */
  liveOne: (tx: EntityManager, userId: string, webhookId: string) =>
    query<Target>(
      tx,
      sql`select id, user_id, url, secret_version, events, format from webhooks
           where id = ${webhookId} and user_id = ${userId} and deleted_at is null`,
    ),

  /** A webhook of an account, deleted or not, locked against a concurrent delete or disable. */
  async lockForRedelivery(tx: EntityManager, userId: string, webhookId: string) {
    const [row] = await query<Target & { enabled: boolean; deletedAt: string | null }>(
      tx,
      sql`select id, user_id, url, secret_version, events, format, enabled, deleted_at from webhooks
           where id = ${webhookId} and user_id = ${userId} for share`,
    );
    return row as (Target & { enabled: boolean; deletedAt: string | null }) | undefined;
  },

  /** Many deliveries in one statement: their rows travel as one JSON parameter. */
  async insertDeliveries(tx: EntityManager, deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const rows = JSON.stringify(
      deliveries.map((d) => ({
        id: d.id,
        user_id: d.userId,
        webhook_id: d.webhookId,
        event_id: d.eventId,
        event: d.event,
        url: d.url,
        message_id: d.messageId,
        device_id: d.deviceId,
        body: d.body,
        secret_version: d.secretVersion,
        created_at: d.createdAt.toISOString(),
        trace_parent: d.traceParent ?? null,
        redelivery_of: d.redeliveryOf ?? null,
      })),
    );
    await query(
      tx,
      sql`insert into webhook_deliveries (id, user_id, webhook_id, event_id, event, url, message_id, device_id, body,
                                          secret_version, status, created_at, trace_parent, redelivery_of)
          select id, user_id, webhook_id, event_id, event, url, message_id, device_id, body, secret_version, 'pending',
                 created_at, trace_parent, redelivery_of
            from json_to_recordset(${rows}::json)
              as x (id uuid, user_id uuid, webhook_id uuid, event_id uuid, event text, url text, message_id uuid,
                    device_id uuid, body text, secret_version int, created_at timestamptz, trace_parent text,
                    redelivery_of uuid)`,
    );
  },

  /** The redeliveries of each of these deliveries of the account, oldest first. */
  async redeliveriesOf(em: EntityManager, userId: string, ids: string[]): Promise<Map<string, string[]>> {
    const byOriginal = new Map<string, string[]>();
    if (ids.length === 0) return byOriginal;
    const rows = await query<{ id: string; redeliveryOf: string }>(
      em,
      sql`select id, redelivery_of from webhook_deliveries
           where user_id = ${userId} and redelivery_of = any(${ids}::uuid[])
           order by created_at, id`,
    );
    for (const row of rows) byOriginal.set(row.redeliveryOf, [...(byOriginal.get(row.redeliveryOf) ?? []), row.id]);
    return byOriginal;
  },

  /** Ends every open delivery of a webhook but `except`: failed, abandoned_at set, not retried. */
  async abandonOpen(tx: EntityManager, webhookId: string, reason: string, at: Date, except: string[] = []) {
    await query(
      tx,
      sql`update webhook_deliveries set status = 'failed', abandoned_at = ${at}, next_attempt_at = null, error = ${reason}
           where webhook_id = ${webhookId} and status in ('pending', 'retrying')
             and id <> all(${except}::uuid[])`,
    );
  },

  /** Ends one open delivery. */
  async abandonOne(em: EntityManager, deliveryId: string, reason: string, at: Date) {
    await query(
      em,
      sql`update webhook_deliveries set status = 'failed', abandoned_at = ${at}, next_attempt_at = null, error = ${reason}
           where id = ${deliveryId} and status in ('pending', 'retrying')`,
    );
  },

  // Plain SQL rather than an entity: an ORM error would print the entity, secret included, in the log.
  async storeSecret(tx: EntityManager, webhookId: string, version: number, sealed: string, at: Date) {
    await query(
      tx,
      sql`insert into webhook_secrets (webhook_id, version, secret, created_at)
          values (${webhookId}, ${version}, ${sealed}, ${at})`,
    );
  },

  async nextSecretVersion(tx: EntityManager, webhookId: string, at: Date): Promise<number> {
    const [row] = await query<{ secretVersion: number }>(
      tx,
      sql`update webhooks set secret_version = secret_version + 1, updated_at = ${at} where id = ${webhookId}
          returning secret_version`,
    );
    return row.secretVersion;
  },

  /**
   * Open deliveries whose webhook's queue must be told (again), one per webhook: due before
   * `before` and still open (a signal lost to a crash after the commit, a queue terminated by an
   * operator, or a queue behind its endpoint, which a signal more does not harm).
   */
  lateDeliveries(em: EntityManager, before: Date, limit: number) {
    return query<{ id: string; userId: string; webhookId: string }>(
      em,
      sql`select distinct on (webhook_id) id, user_id, webhook_id from webhook_deliveries
           where status in ('pending', 'retrying') and coalesce(next_attempt_at, created_at) < ${before}
           order by webhook_id, coalesce(next_attempt_at, created_at), id limit ${limit}`,
    );
  },
};
