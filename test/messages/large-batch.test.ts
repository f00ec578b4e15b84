import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { batchWorkflowId } from '../../workflows/definitions';
import { Message } from '../../src/messages/message.entity';
import type { TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { ensurePlan } from '../support/factories';
import { readJson } from '../support/http';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import { bearer, pairPhone } from '../devices/helpers';

describe('a 10,000-recipient batch', () => {
  let stack: WorkflowStack;
  let env: TestWorkflowEnvironment;
  let app: TestApp;

  beforeAll(async () => {
    stack = await startWorkflowStack({ env: { TEMPORAL_TASK_QUEUE: 'large-batch-test' } });
    ({ env, app } = stack);
    // Not in the public catalogue: a plan large enough for the test.
    await ensurePlan(app.orm, {
      id: 'test-10k',
      name: 'Test 10k',
      batchLimit: 10_000,
      dailyLimit: 100_000,
      monthlyLimit: 1_000_000,
      deviceLimit: 5,
      webhookLimit: 5,
      monthlyPriceCents: 0,
      yearlyPriceCents: 0,
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('is accepted in one request, marks each message unknown within a minute of its deadline, and keeps every workflow run under 1,000 events', async () => {
    app.clock.set(new Date(await env.currentTimeMs()));
    const account = await registerAccount(app, { verified: true, plan: 'test-10k' });
    const key = await createKey(app, account);
    const phone = await pairPhone(app, key);
    const to = Array.from({ length: 10_000 }, (_, i) => `+1415${String(2000000 + i)}`);

    const res = await app.fetch('/v1/messages', json('POST', { body: 'Big news', to }, { 'x-api-key': key }));
    expect(res.status).toBe(202);
    const { batch, message_ids } = await readJson(res);
    expect(message_ids).toHaveLength(10_000);
    expect(batch.recipient_count).toBe(10_000);
    expect(await app.orm.em.fork().count(Message, { batchId: batch.id })).toBe(10_000);

    // The phone sends the first 100; the rest lapse over the next ~14 hours of workflow time.
    const { data } = await readJson(await app.fetch('/v1/device/outbox', { headers: bearer(phone.token) }));
    expect(data).toHaveLength(100);
    for (const row of data.slice(0, 10)) {
      await app.fetch(`/v1/device/messages/${row.id}/status`, json('POST', { status: 'sent' }, bearer(phone.token)));
    }
    await env.sleep('16 hours');
    const handle = env.client.workflow.getHandle(batchWorkflowId(batch.id));
    await expect.poll(async () => (await handle.describe()).status.name, { timeout: 60_000 }).toBe('COMPLETED');

    // Every run of the workflow stays small; walk back through continue-as-new to the first run.
    let runId: string | null | undefined = (await handle.describe()).runId;
    const sizes: number[] = [];
    while (runId) {
      const history = await env.client.workflow.getHandle(batchWorkflowId(batch.id), runId).fetchHistory();
      sizes.push(history.events?.length ?? 0);
      runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || null;
    }
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThan(1000);

    // Each lapsed message was marked (on the server's clock) within 60 s of its own deadline; its
    // message.unknown event with it. Storage is where the deadlines are.
    const [lag] = await app.orm.em.fork().execute<{ worst: number; early: number; events: number }[]>(
      `select max(extract(epoch from m.updated_at - m.stale_at))::float8 as worst,
              count(*) filter (where m.updated_at < m.stale_at)::int as early,
              (select count(*)::int from events e where e.user_id = ? and e.name = 'message.unknown') as events
         from messages m where m.batch_id = ? and m.status = 'unknown'`,
      [account.userId, batch.id],
    );
    expect(lag.early).toBe(0);
    expect(lag.worst).toBeLessThanOrEqual(60);
    expect(lag.events).toBe(9_990);

    const final = await readJson(await app.fetch(`/v1/batches/${batch.id}`, { headers: { 'x-api-key': key } }));
    expect(final.batch).toMatchObject({
      status: 'completed',
      sent_count: 10,
      unknown_count: 9_990,
      dispatched_count: 0,
    });
  }, 240_000);
});
