import { randomUUID } from 'node:crypto';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { User } from '../../src/accounts/user.entity';
import { Device } from '../../src/devices/device.entity';
import { Event } from '../../src/events/event.entity';
import { Message } from '../../src/messages/message.entity';
import { Plan } from '../../src/plans/plan.entity';
import { attemptsRepository } from '../../src/webhooks/attempts.repository';
import { WebhookAttempt, WebhookDelivery } from '../../src/webhooks/delivery.entity';

// Setup that the API cannot do (or not without side effects the test does not want), built on the
// entities and the repositories, never on SQL text. Each takes a fresh EntityManager of its own.

type Orm = { em: EntityManager };

/** Marks the account's email verified, as the mailed code would. */
export async function verifyUser(orm: Orm, userId: string, at = new Date()): Promise<void> {
  await orm.em.fork().nativeUpdate(User, { id: userId }, { emailVerifiedAt: at });
}

/** Moves the account to a plan (billing is outside this service). */
export async function setPlan(orm: Orm, userId: string, planId: string): Promise<void> {
  await orm.em.fork().nativeUpdate(User, { id: userId }, { planId });
}

/** A plan outside the public catalogue (inactive), created once whatever the number of callers. */
export async function ensurePlan(orm: Orm, plan: Omit<Plan, 'active' | 'sortOrder'> & { sortOrder?: number }) {
  const em = orm.em.fork();
  await em.upsert(Plan, { ...plan, active: false, sortOrder: plan.sortOrder ?? 99 }, { onConflictAction: 'ignore' });
}

/** The account's (or phone's) events, oldest first. */
export async function eventsOf(orm: Orm, where: FilterQuery<Event>): Promise<Event[]> {
  return orm.em.fork().find(Event, where, { orderBy: { createdAt: 'asc', name: 'asc', id: 'asc' } });
}

/** The stored device row (fields the API does not show, e.g. last_signal_at and queue_depth). */
export async function deviceRow(orm: Orm, deviceId: string): Promise<Device> {
  return orm.em.fork().findOneOrFail(Device, { id: deviceId });
}

/** The stored message row (fields the API does not show, e.g. stale_at and available_at). */
export async function messageRow(orm: Orm, messageId: string): Promise<Message> {
  return orm.em.fork().findOneOrFail(Message, { id: messageId });
}

/** Moves a message's creation time (the day it counts for in GET /v1/stats/daily). */
export async function backdateMessage(orm: Orm, messageId: string, createdAt: Date): Promise<void> {
  await orm.em.fork().nativeUpdate(Message, { id: messageId }, { createdAt });
}

/** Changes stored device fields without telling the phone or its liveness workflow. */
export async function updateDeviceRow(
  orm: Orm,
  deviceId: string,
  fields: Partial<Pick<Device, 'online' | 'heartbeatIntervalMinutes'>>,
): Promise<void> {
  await orm.em.fork().nativeUpdate(Device, { id: deviceId }, fields);
}

/** Pauses a webhook the way the queue workflow's auto-pause rule does. */
export async function pauseWebhookAutomatically(orm: Orm, webhookId: string, reason: string): Promise<void> {
  await attemptsRepository.pauseWebhook(orm.em.fork(), webhookId, reason, new Date());
}

/**
 * A webhook's attempt history on a given clock: `failed` and `succeeded` list how long ago (ms) each
 * attempt started. The attempts hang off one finished ping delivery, so nothing retries them.
 */
export async function seedAttempts(
  orm: Orm,
  input: { userId: string; webhookId: string; now: number; failed: number[]; succeeded: number[] },
): Promise<void> {
  const em = orm.em.fork();
  const long = new Date(input.now - 8 * 24 * 3_600_000);
  const event = em.create(Event, { id: randomUUID(), userId: input.userId, name: 'ping', data: {}, createdAt: long });
  // Entities hold plain ids, not relations, so the ORM does not order the inserts: the event first.
  await em.flush();
  const delivery = em.create(WebhookDelivery, {
    id: randomUUID(),
    userId: input.userId,
    webhookId: input.webhookId,
    eventId: event.id,
    event: 'ping',
    url: 'https://seed.invalid',
    body: '{}',
    secretVersion: 1,
    status: 'failed',
    attemptCount: 0,
    createdAt: long,
  });
  await em.flush();
  const history = [
    ...input.failed.map((ago) => ({ ok: false, ago })),
    ...input.succeeded.map((ago) => ({ ok: true, ago })),
  ];
  for (const [index, { ok, ago }] of history.entries()) {
    em.create(WebhookAttempt, {
      id: randomUUID(),
      deliveryId: delivery.id,
      webhookId: input.webhookId,
      attemptNumber: index + 1,
      url: 'https://seed.invalid',
      ok,
      startedAt: new Date(input.now - ago),
      durationMs: 5,
    });
  }
  await em.flush();
}
