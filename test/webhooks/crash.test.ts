import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { createTimeSkippingEnv } from '../support/temporal';
import { createTenant, createWebhook, deliveriesOf, emitEvent, resultOf, rows } from './helpers';
import { startReceiver, type Receiver } from './receiver';

const QUEUE = 'webhook-crash-test';

describe('a worker killed in the middle of a delivery storm', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    app = await startTestApp({
      temporal: env.client,
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: QUEUE },
    });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await receiver?.close();
    await app?.close();
    await env?.teardown();
  });

  /** Starts a worker process and waits until it polls. */
  async function startWorkerProcess(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'worker-child.ts')], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATABASE_URL: inject('databaseUrl'),
        TEMPORAL_TASK_QUEUE: QUEUE,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        TEST_TEMPORAL_ADDRESS: env.address,
        TEST_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('worker ready') && resolve());
      child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
    });
    return child;
  }

  it('loses no delivery and repeats only what was in flight when it died', async () => {
    // Every answer takes a while, so some are in flight at any moment; every 4th delivery's first
    // attempt fails, so retries are scheduled across the crash too.
    const firstSeen = new Set<string>();
    let counter = 0;
    receiver = await startReceiver((request) => {
      const first = !firstSeen.has(request.deliveryId);
      firstSeen.add(request.deliveryId);
      return { status: first && counter++ % 4 === 0 ? 500 : 200, delayMs: 250 };
    });
    const tenant = await createTenant(app);
    await createWebhook(tenant, receiver.url);
    await createWebhook(tenant, `${receiver.url}?second`);

    const first = await startWorkerProcess();
    const ids: string[] = [];
    // The events keep coming while the worker dies.
    const emitting = (async () => {
      for (let i = 0; i < 30; i++) {
        const event = await emitEvent(app, tenant.userId);
        const deliveries = await deliveriesOf(app, event.id);
        expect(deliveries).toHaveLength(2);
        expect(deliveries[0].body).toBe(deliveries[1].body);
        ids.push(...deliveries.map((d) => d.id));
      }
    })();
    const acked = () => receiver.requests.filter((r) => r.answered === 200).length;
    const unanswered = () => receiver.requests.some((r) => r.answered === undefined);
    // Killed with requests in flight: sent, not answered yet, so not recorded either.
    await expect.poll(() => acked() >= 15 && unanswered(), { timeout: 60_000, interval: 5 }).toBe(true);

    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    // What the dead worker had sent but not recorded: the only deliveries that may be repeated.
    const recorded = new Map(
      (await rows(app, 'select id, attempt_count from webhook_deliveries where user_id = ?', [tenant.userId])).map(
        (r) => [r.id as string, r.attempt_count as number],
      ),
    );
    const sent = new Map<string, number>();
    for (const r of receiver.requests) sent.set(r.deliveryId, (sent.get(r.deliveryId) ?? 0) + 1);
    const inFlight = new Set([...sent].filter(([id, count]) => count > (recorded.get(id) ?? 0)).map(([id]) => id));
    expect(inFlight.size).toBeGreaterThan(0);
    const requestsAtKill = receiver.requests.length;

    await emitting;
    await startWorkerProcess();
    // Skips time past heartbeat timeouts and retry pauses until every delivery has ended.
    const open = async () =>
      (
        await rows(app, "select id from webhook_deliveries where id in (?) and status in ('pending', 'retrying')", [
          ids,
        ])
      ).length;
    for (let round = 0; round < 100 && (await open()) > 0; round++) {
      await env.sleep('20 seconds');
    }
    // Every delivery ended, and delivered.
    const results: string[] = [];
    for (const id of ids) results.push(await resultOf(env, app, id));
    expect(results).toEqual(ids.map(() => 'delivered'));
    expect(receiver.requests.length).toBeGreaterThan(requestsAtKill);

    const final = await rows(app, 'select id, status, attempt_count from webhook_deliveries where id in (?)', [ids]);
    expect(final.every((d) => d.status === 'delivered')).toBe(true);
    // Acknowledged more than once: only deliveries whose attempt was in flight, and once more at most.
    const acks = new Map<string, number>();
    for (const r of receiver.requests) {
      if (r.answered === 200) acks.set(r.deliveryId, (acks.get(r.deliveryId) ?? 0) + 1);
    }
    expect([...acks.keys()].sort()).toEqual([...ids].sort());
    for (const [id, count] of acks) {
      if (count > 1) {
        expect(inFlight.has(id), id).toBe(true);
        expect(count).toBe(2);
      }
    }
    // Every attempt recorded once: numbers 1..attempt_count, no gaps, no repeats.
    const attempts = await rows(
      app,
      'select delivery_id, array_agg(attempt_number order by attempt_number) as numbers from webhook_attempts where delivery_id in (?) group by delivery_id',
      [ids],
    );
    const counts = new Map(final.map((d) => [d.id, d.attempt_count]));
    for (const a of attempts) {
      expect(a.numbers).toEqual(Array.from({ length: counts.get(a.delivery_id) }, (_, i) => i + 1));
    }
    expect(attempts).toHaveLength(ids.length);
  }, 240_000);
});
