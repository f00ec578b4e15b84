import { transaction } from '../../src/db/transaction';
import { createLogger } from '../../src/lib/logger';
import { createDeliveryQueueService, type DeliveryQueueDeps } from '../../src/webhooks/delivery-queue.service';
import type { EmitInput } from '../../src/events/events.service';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import Stripe from 'stripe';
import { expect } from 'vitest';
import type { EventName } from '../../src/events/event.entity';
import { webhookQueueWorkflowId } from '../../workflows/definitions';
import { createKey, json, registerAccount } from '../support/accounts';
import type { TestApp } from '../support/app';
import { readJson } from '../support/http';

export { serverClock } from '../support/temporal';

export interface Tenant {
  userId: string;
  key: string;
  /** JSON request with this tenant's API key. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
}

export async function createTenant(app: TestApp, plan = 'business', scopes?: string[]): Promise<Tenant> {
  const account = await registerAccount(app, { verified: true, plan });
  const key = await createKey(app, account, scopes);
  return {
    userId: account.userId,
    key,
    call: (method, path, body) => app.fetch(path, json(method, body, { 'x-api-key': key })),
  };
}

export async function createWebhook(
  tenant: Tenant,
  url: string,
  events: EventName[] = ['message.received'],
): Promise<{ id: string; secret: string }> {
  const res = await tenant.call('POST', '/v1/webhooks', { url, events });
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${await res.text()}`);
  const body = await readJson(res);
  return { id: body.webhook.id, secret: body.secret };
}

/** Records an event the way the phones and messaging features do: in a transaction, its deliveries started after. */
export async function emitEvent(
  app: TestApp,
  userId: string,
  name: EventName = 'message.received',
  data: Record<string, unknown> = { id: randomUUID(), direction: 'inbound', body: 'hello' },
) {
  const [event] = await emitEvents(app, userId, [{ name, data }]);
  return event;
}

/** Several events in one transaction: their deliveries are queued together. */
export async function emitEvents(
  app: TestApp,
  userId: string,
  events: Array<{ name: EventName; data: Record<string, unknown> }>,
) {
  const made = await transaction(app.orm.em.fork(), async (tx) => {
    const out = [];
    for (const { name, data } of events) {
      out.push(
        await app.services.events.emit(tx, {
          userId,
          name,
          data,
          messageId: name.startsWith('message.') ? (data.id as string) : null,
        }),
      );
    }
    return out;
  });
  // The deliveries' workflows are started after the commit, in the background.
  await app.services.background.idle();
  return made;
}

type Row = Record<string, any>;

/**
 * Rows as the database has them, with `*_at` columns as dates. Webhook tests check storage itself
 * here: the delivery log and attempt records are what the queue workflow leaves behind.
 */
export async function rows(app: TestApp, sql: string, params: unknown[] = []): Promise<Row[]> {
  const result = await app.orm.em.fork().execute<Row[]>(sql, params);
  return result.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        key.endsWith('_at') && typeof value === 'string' ? new Date(value) : value,
      ]),
    ),
  );
}

export const deliveriesOf = (app: TestApp, eventId: string) =>
  rows(app, 'select * from webhook_deliveries where event_id = ? order by created_at, id', [eventId]);

export const deliveryRow = async (app: TestApp, id: string) =>
  (await rows(app, 'select * from webhook_deliveries where id = ?', [id]))[0];

export const webhookRow = async (app: TestApp, id: string) =>
  (await rows(app, 'select * from webhooks where id = ?', [id]))[0];

/**
 * How a delivery ended, once it has: polls its row, and while it waits for a retry, skips the test
 * server's time to that retry (its webhook's queue workflow sleeps until then).
 */
export async function resultOf(
  env: TestWorkflowEnvironment,
  app: TestApp,
  deliveryId: string,
): Promise<'delivered' | 'failed'> {
  for (;;) {
    const row = await deliveryRow(app, deliveryId);
    if (row.status === 'delivered' || row.status === 'failed') return row.status;
    const wait = row.status === 'retrying' ? row.next_attempt_at.getTime() - (await env.currentTimeMs()) : 0;
    if (wait > 0) await env.sleep(wait);
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A webhook's queue workflow, once the first delivery's signal has started it. */
export async function queueOf(env: TestWorkflowEnvironment, webhookId: string) {
  const handle = env.client.workflow.getHandle(webhookQueueWorkflowId(webhookId));
  await expect
    .poll(() =>
      handle.describe().then(
        () => true,
        () => false,
      ),
    )
    .toBe(true);
  return handle;
}

/**
 * Queues deliveries of an event without starting their workflows (an api process that cannot reach
 * Temporal commits them; the reconciler would start them later), so they stay pending.
 */
export async function queueUnstarted(offline: TestApp, input: EmitInput) {
  const event = await transaction(offline.orm.em.fork(), (tx) => offline.services.events.emit(tx, input));
  return { event, deliveries: await deliveriesOf(offline, event.id) };
}

const stripe = new Stripe('sk_test_unused');

/** Checks a request's signature twice: with Stripe's verifier and by hand. */
export function expectSigned(request: { raw: string; signature: string }, secret: string): void {
  // Stripe's verifier: the same t=,v1= scheme; it throws on any mismatch or a stale timestamp.
  expect(() => stripe.webhooks.constructEvent(request.raw, request.signature, secret)).not.toThrow();
  expect(verifyByHand(request.raw, request.signature, secret)).toBe(true);
}

/** A receiver's check written from the interface's rules 3 and 4 alone. */
export function verifyByHand(raw: string, header: string, secret: string, nowSeconds = Date.now() / 1000): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > 300 || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  return timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'));
}

/** The webhook queue's pass as the worker builds it, to run here without Temporal (`post`: a stand-in sender). */
export function deliveryQueueServiceOf(app: TestApp, post?: DeliveryQueueDeps['post']) {
  return createDeliveryQueueService({
    em: () => app.orm.em.fork(),
    clock: app.clock,
    logger: createLogger('silent'),
    allowPrivateNetworks: true,
    secretBox: app.services.secretBox,
    metrics: app.services.metrics.webhooks,
    retryScheduleMs: app.config.webhooks.retryScheduleMs,
    ...(post ? { post } : {}),
  });
}
