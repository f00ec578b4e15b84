import { RequestContext } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/clock';
import { createBackground } from '../../src/lib/background';
import { createLogger } from '../../src/lib/logger';
import { createMetrics } from '../../src/metrics/metrics';
import { createReconcilerService } from '../../src/reconciler/reconciler.service';
import { WebhookDelivery } from '../../src/webhooks/delivery.entity';
import type { PostResult } from '../../src/webhooks/outbound';
import { createStarter, type StartKind } from '../../temporal/starter';
import { readJson } from '../support/http';
import { startTestApp, type TestApp } from '../support/app';
import { sendingTenant } from '../messages/helpers';
import { createTenant, createWebhook, emitEvent, deliveryQueueServiceOf } from '../webhooks/helpers';
import { parseExposition, valueOf } from './scrape';

// What the worker's activities and the starter count: the same registry, driven without Temporal.

describe('counters of the worker side', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', STALE_WINDOW: '1m' } });
  });
  afterAll(() => app?.close());

  const scrape = async () => parseExposition((await app.services.metrics.render()).body);

  it('counts webhook attempts by outcome and response, and times them', async () => {
    const tenant = await createTenant(app);
    // Three endpoints, so one event makes three deliveries.
    const hooks = [];
    for (let i = 0; i < 3; i++) hooks.push(await createWebhook(tenant, `https://127.0.0.1:9/hook-${i}`));
    const answers: PostResult[] = [
      { status: 204, excerpt: '', error: null, durationMs: 120 },
      { status: 503, excerpt: 'busy', error: null, durationMs: 40 },
      { status: null, excerpt: null, error: 'no answer within 30 s', durationMs: 30_000 },
    ];
    // The queue's pass (the activity of each webhook's queue workflow), run here without Temporal.
    const queue = deliveryQueueServiceOf(app, async () => answers.shift()!);
    await emitEvent(app, tenant.userId);
    const before = await scrape();
    const statuses = [];
    for (const hook of hooks) {
      await queue.pass({ webhookId: hook.id, dueByMs: Date.now() });
      statuses.push((await app.orm.em.fork().findOneOrFail(WebhookDelivery, { webhookId: hook.id })).status);
    }
    expect(statuses).toEqual(['delivered', 'retrying', 'retrying']);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('phone_gateway_webhook_attempts_total', { outcome: 'delivered', response: '2xx' })).toBe(1);
    expect(delta('phone_gateway_webhook_attempts_total', { outcome: 'retry', response: '5xx' })).toBe(1);
    expect(delta('phone_gateway_webhook_attempts_total', { outcome: 'retry', response: 'error' })).toBe(1);
    expect(delta('phone_gateway_webhook_attempt_duration_seconds_count', { response: '2xx' })).toBe(1);
    expect(delta('phone_gateway_webhook_attempt_duration_seconds_sum', { response: 'error' })).toBe(30);
    // The deliveries' starts were tried after each commit; this test app's Temporal is unreachable.
    expect(
      valueOf(after, 'phone_gateway_workflow_starts_total', {
        workflow_type: 'webhookQueueWorkflow',
        result: 'failed',
      }),
    ).toBeGreaterThanOrEqual(3);
  }, 30_000);

  it('counts stale marks and the unknown outcomes they make', async () => {
    const { call } = await sendingTenant(app);
    const { batch } = await readJson(
      await call('POST', '/v1/messages', { body: 'Late', to: ['+14155550100', '+14155550101'] }),
    );
    const before = await scrape();
    app.clock.advance(3 * 60_000);
    try {
      const sweep = await RequestContext.create(app.orm.em.fork(), () => app.services.batchProgress.sweep(batch.id));
      expect(sweep.done).toBe(true);
    } finally {
      app.clock.advance(-3 * 60_000);
    }
    const after = await scrape();
    expect(
      valueOf(after, 'phone_gateway_stale_marked_total') - valueOf(before, 'phone_gateway_stale_marked_total'),
    ).toBe(2);
    expect(
      valueOf(after, 'phone_gateway_message_outcomes_total', { status: 'unknown' }) -
        valueOf(before, 'phone_gateway_message_outcomes_total', { status: 'unknown' }),
    ).toBe(2);
  });
});

describe('workflow starts and reconciler repairs', () => {
  it('counts starts by workflow type and result, and repairs by sweep', async () => {
    const metrics = createMetrics();
    const logger = createLogger('silent');
    // Only what the starter uses of the client: its deadline wrapper.
    const temporal = { withDeadline: (_deadline: number, run: () => Promise<unknown>) => run() } as unknown as Client;
    const starter = createStarter({
      temporal,
      logger,
      clock: systemClock,
      background: createBackground(logger),
      metrics: metrics.workflows,
      graceMs: 0,
    });
    const marked: string[] = [];
    const kind: StartKind<{ id: string; fails?: boolean }> = {
      name: 'things',
      workflowType: 'thingWorkflow',
      async start(_client, item) {
        if (item.fails) throw new Error('unreachable');
      },
      searchAttributes: () => [],
      markStarted: async (ids) => void marked.push(...ids),
      unstarted: async () => [{ id: 'a' }, { id: 'b' }, { id: 'c', fails: true }],
    };
    const reconciler = createReconcilerService({ logger, metrics: metrics.workflows, sweeps: [starter.sweep(kind)] });
    expect(await reconciler.reconcileOnce()).toEqual({ things: 2 });
    expect(marked.sort()).toEqual(['a', 'b']);

    const samples = parseExposition((await metrics.render()).body);
    expect(
      valueOf(samples, 'phone_gateway_workflow_starts_total', { workflow_type: 'thingWorkflow', result: 'started' }),
    ).toBe(2);
    expect(
      valueOf(samples, 'phone_gateway_workflow_starts_total', { workflow_type: 'thingWorkflow', result: 'failed' }),
    ).toBe(1);
    expect(valueOf(samples, 'phone_gateway_reconciler_repairs_total', { sweep: 'things' })).toBe(2);
  });
});
