import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app';
import { seedAttempts } from '../support/factories';
import { readJson } from '../support/http';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import {
  createTenant,
  createWebhook,
  deliveriesOf,
  deliveryRow,
  emitEvent,
  emitEvents,
  resultOf,
  rows,
  webhookRow,
  type Tenant,
} from './helpers';
import { startReceiver, type Receiver } from './receiver';

const HOUR = 3_600_000;

describe('webhook auto-pause (time-skipping)', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    stack = await startWorkflowStack({
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'webhook-pause-test' },
    });
    ({ env, app } = stack);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.close();
  });

  /** Attempt history on the server's clock: `failed` and `succeeded` list how long ago each was. */
  async function seed(tenant: Tenant, webhookId: string, failed: number[], succeeded: number[]) {
    await seedAttempts(app.orm, {
      userId: tenant.userId,
      webhookId,
      now: await env.currentTimeMs(),
      failed,
      succeeded,
    });
  }

  /** A receiver failing every request with 500 until told otherwise; notes the webhook's state at each. */
  async function failingReceiver(webhook: () => string) {
    const seen: Array<{ enabled: boolean; disabled_reason: string | null }> = [];
    const receiver = await startReceiver(async () => {
      seen.push((await webhookRow(app, webhook())) as (typeof seen)[number]);
      return { status: 500 };
    });
    receivers.push(receiver);
    return { receiver, seen };
  }

  /** The delivery ended, after its one attempt, because the webhook was paused. */
  async function expectEndedByPause(deliveryId: string) {
    const row = await deliveryRow(app, deliveryId);
    expect(row).toMatchObject({
      status: 'failed',
      attempt_count: 1,
      next_attempt_at: null,
      error: 'the webhook was paused automatically',
    });
    expect(row.abandoned_at).toBeInstanceOf(Date);
  }

  const times = (count: number, ago: number) => Array.from({ length: count }, () => ago);

  it('pauses at the 20th failure, not the 19th; abandons open deliveries; PATCH enabled=true clears it', async () => {
    const tenant = await createTenant(app);
    let webhookId = '';
    const { receiver, seen } = await failingReceiver(() => webhookId);
    webhookId = (await createWebhook(tenant, receiver.url)).id;
    // 18 failures within 7 days, 20 successes older than a day: the next two failures make 20 of 40.
    await seed(tenant, webhookId, times(18, 2 * HOUR), times(20, 30 * HOUR));
    // The 19th failure leaves the webhook enabled; its delivery waits a minute for its retry.
    const first = await emitEvent(app, tenant.userId);
    const [open] = await deliveriesOf(app, first.id);
    await expect.poll(async () => (await deliveryRow(app, open.id)).status).toBe('retrying');

    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);
    expect(await resultOf(env, app, delivery.id)).toBe('failed');

    // The first made 19 failures: still enabled at the next request; that one made 20 of 40: paused.
    expect(seen[1]).toMatchObject({ enabled: true, disabled_reason: null });
    const paused = await webhookRow(app, webhookId);
    expect(paused.enabled).toBe(false);
    expect(paused.disabled_reason).toMatch(/20 of 40 attempts failed/);
    const row = await deliveryRow(app, delivery.id);
    expect(row).toMatchObject({ status: 'failed', attempt_count: 1, http_status: 500, next_attempt_at: null });
    expect(row.abandoned_at).toBeInstanceOf(Date);
    // The one waiting for its retry ends with the pause.
    await expectEndedByPause(open.id);

    const api = await readJson(await tenant.call('GET', `/v1/webhooks/${webhookId}`));
    expect(api.webhook).toMatchObject({ enabled: false, disabled_reason: paused.disabled_reason, failure_count: 2 });

    // While paused nothing is queued; re-enabling does not replay what was missed.
    const missed = await emitEvent(app, tenant.userId);
    expect(await deliveriesOf(app, missed.id)).toEqual([]);
    const cleared = await tenant.call('PATCH', `/v1/webhooks/${webhookId}`, { enabled: true });
    expect(cleared.status).toBe(200);
    expect((await readJson(cleared)).webhook).toMatchObject({ enabled: true, disabled_reason: null });
    receiver.respond = () => ({ status: 200 });
    const next = await emitEvent(app, tenant.userId);
    const [nextDelivery] = await deliveriesOf(app, next.id);
    expect(await resultOf(env, app, nextDelivery.id)).toBe('delivered');
    expect(await deliveriesOf(app, missed.id)).toEqual([]);
    const bodies = receiver.requests.map((r) => JSON.parse(r.raw).id);
    expect(bodies).not.toContain(missed.id);
    // Not retried after the pause.
    expect(bodies.filter((id: string) => id === first.id)).toHaveLength(1);
    expect(bodies[bodies.length - 1]).toBe(next.id);
  });

  it('ends every delivery of a batch whose failures cross the rule, with one pause and no retry', async () => {
    const tenant = await createTenant(app);
    let webhookId = '';
    const { receiver } = await failingReceiver(() => webhookId);
    webhookId = (await createWebhook(tenant, receiver.url)).id;
    // 18 failures and 20 older successes: the 2nd of three more failures makes 20 of 40.
    await seed(tenant, webhookId, times(18, 2 * HOUR), times(20, 30 * HOUR));
    // Three events in one transaction: their deliveries are queued together and sent as one batch.
    const events = await emitEvents(
      app,
      tenant.userId,
      [0, 1, 2].map((i) => ({
        name: 'message.received' as const,
        data: { id: randomUUID(), direction: 'inbound', body: `hello ${i}` },
      })),
    );
    const deliveries = (await Promise.all(events.map((event) => deliveriesOf(app, event.id)))).flat();
    expect(deliveries).toHaveLength(3);
    for (const delivery of deliveries) expect(await resultOf(env, app, delivery.id)).toBe('failed');

    // One pause; none of the batch's deliveries waits for a retry. Attempts that end together are
    // recorded together, but which end together is up to the receiver's timing: the pause counts
    // 20 of 40 when the crossing failure was recorded alone or with the one before, 21 of 41 when
    // recorded with the one after.
    expect(receiver.requests).toHaveLength(3);
    const paused = await webhookRow(app, webhookId);
    expect(paused.enabled).toBe(false);
    expect(paused.disabled_reason).toMatch(/^Paused automatically: (20 of 40|21 of 41) attempts failed/);
    const failures = await rows(app, 'select ok from webhook_attempts where webhook_id = ? and not ok', [webhookId]);
    expect(failures).toHaveLength(21);
    for (const delivery of deliveries) await expectEndedByPause(delivery.id);
  });

  it('does not pause while failures are fewer than half of all attempts', async () => {
    const tenant = await createTenant(app);
    let webhookId = '';
    const { receiver, seen } = await failingReceiver(() => webhookId);
    webhookId = (await createWebhook(tenant, receiver.url)).id;
    // After one more failure: 20 failed of 41.
    await seed(tenant, webhookId, times(19, 2 * HOUR), times(21, 30 * HOUR));
    const event = await emitEvent(app, tenant.userId);
    const [delivery] = await deliveriesOf(app, event.id);
    const respond = receiver.respond;
    receiver.respond = (request, index) => (index === 0 ? respond(request, index) : { status: 200 });
    expect(await resultOf(env, app, delivery.id)).toBe('delivered');
    expect(await webhookRow(app, webhookId)).toMatchObject({ enabled: true, disabled_reason: null });
    expect(seen).toHaveLength(1);
  });

  it('does not pause after a success within the last 24 hours, and does once it is older', async () => {
    const tenant = await createTenant(app);
    let webhookId = '';
    const { receiver } = await failingReceiver(() => webhookId);
    webhookId = (await createWebhook(tenant, receiver.url)).id;
    // 19 failures and one success 23 hours ago: the next failure makes 20 of 21, but too soon.
    await seed(tenant, webhookId, times(19, 2 * HOUR), [23 * HOUR]);
    // Attempt 2 is due a minute later; the success is then still inside the 24 hours. The receiver
    // is set before the event: its first attempt may be made before the event's call returns.
    const states: boolean[] = [];
    const respond = receiver.respond;
    receiver.respond = async (request, index) => {
      states.push((await webhookRow(app, webhookId)).enabled);
      return index < 1 ? respond(request, index) : { status: 200 };
    };
    const first = await emitEvent(app, tenant.userId);
    const [firstDelivery] = await deliveriesOf(app, first.id);
    expect(await resultOf(env, app, firstDelivery.id)).toBe('delivered');
    expect(states).toEqual([true, true]);
    expect((await webhookRow(app, webhookId)).enabled).toBe(true);

    // A webhook whose only success is 25 hours old is paused by the 20th failure.
    const other = await createTenant(app);
    let otherId = '';
    const failing = await failingReceiver(() => otherId);
    otherId = (await createWebhook(other, failing.receiver.url)).id;
    await seed(other, otherId, times(19, 2 * HOUR), [25 * HOUR]);
    const event = await emitEvent(app, other.userId);
    const [delivery] = await deliveriesOf(app, event.id);
    expect(await resultOf(env, app, delivery.id)).toBe('failed');
    expect(failing.receiver.requests).toHaveLength(1);
    expect((await webhookRow(app, otherId)).enabled).toBe(false);
    const attempts = await rows(app, 'select ok from webhook_attempts where delivery_id = ?', [delivery.id]);
    expect(attempts).toEqual([{ ok: false }]);
  });
});
