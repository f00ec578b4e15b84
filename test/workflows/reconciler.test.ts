import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../src/db/orm';
import type { Sweep } from '../../src/reconciler/reconciler.service';
import { reconcilerStatusQuery } from '../../workflows/definitions';
import type { reconcilerWorkflow } from '../../workflows';
import { testConfig } from '../support/config';
import { createTestWorker, createTimeSkippingEnv } from '../support/temporal';

describe('reconciler workflow', () => {
  const config = testConfig({ TEMPORAL_TASK_QUEUE: 'reconciler-test' });
  let env: TestWorkflowEnvironment;
  let orm: MikroORM;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    orm = await openOrm(config.databaseUrl!);
  });
  afterAll(async () => {
    await orm?.close();
    await env?.teardown();
  });

  it('sleeps an hour of workflow time in a small part of it in wall time', async () => {
    const worker = await createTestWorker(env, { config, orm, sweeps: [] });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start<typeof reconcilerWorkflow>('reconcilerWorkflow', {
        workflowId: 'reconciler-clock-test',
        taskQueue: config.temporal.taskQueue,
        args: [{ intervalMs: 2 * 3_600_000 }],
      });
      try {
        const startedAt = await env.currentTimeMs();
        const wallStart = performance.now();
        await env.sleep('1 hour');
        const wallMs = performance.now() - wallStart;
        expect((await env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(3_600_000);
        // Without time skipping this would take the hour; the bound leaves room for a loaded machine.
        expect(wallMs).toBeLessThan(60_000);
        expect((await handle.query(reconcilerStatusQuery)).totalPasses).toBe(0);
      } finally {
        await handle.terminate('test over');
      }
    });
  });

  it('runs a pass of every sweep each interval, across continue-as-new', async () => {
    // A real sweep against the test database: it counts the migrations table it can see.
    const passes: number[] = [];
    const sweep: Sweep = {
      name: 'probe',
      async run() {
        const [row] = await orm.em
          .fork()
          .execute<{ n: string }[]>('select count(*)::text as n from mikro_orm_migrations');
        passes.push(Number(row.n));
        return 0;
      },
    };
    const worker = await createTestWorker(env, { config, orm, sweeps: [sweep] });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start<typeof reconcilerWorkflow>('reconcilerWorkflow', {
        workflowId: 'reconciler-test',
        taskQueue: config.temporal.taskQueue,
        args: [{ intervalMs: 10 * 60_000, passesPerRun: 4 }],
      });
      try {
        await env.sleep('65 minutes');
        // Six passes in an hour at a ten-minute interval; four per run, so one continue-as-new.
        const status = await handle.query(reconcilerStatusQuery);
        expect(status.totalPasses).toBe(6);
        expect(status.lastReport).toEqual({ probe: 0 });
        expect(passes).toHaveLength(6);
        expect(passes.every((n) => n >= 1)).toBe(true);
        const description = await handle.describe();
        expect(description.status.name).toBe('RUNNING');
        const first = env.client.workflow.getHandle('reconciler-test', handle.firstExecutionRunId);
        expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
      } finally {
        await handle.terminate('test over');
      }
    });
  });

  it('fails the pass, and so retries it, when a sweep throws, while still running the others', async () => {
    let healthyRuns = 0;
    let brokenRuns = 0;
    const sweeps: Sweep[] = [
      {
        name: 'broken',
        async run() {
          brokenRuns += 1;
          if (brokenRuns === 1) throw new Error('database went away');
          return 2;
        },
      },
      { name: 'healthy', run: async () => ((healthyRuns += 1), 1) },
    ];
    const worker = await createTestWorker(env, { config, orm, sweeps });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start<typeof reconcilerWorkflow>('reconcilerWorkflow', {
        workflowId: 'reconciler-retry-test',
        taskQueue: config.temporal.taskQueue,
        args: [{ intervalMs: 60_000 }],
      });
      try {
        await env.sleep('70 seconds');
        const status = await handle.query(reconcilerStatusQuery);
        expect(status.totalPasses).toBe(1);
        expect(status.lastReport).toEqual({ broken: 2, healthy: 1 });
        expect(brokenRuns).toBe(2);
        expect(healthyRuns).toBe(2);
      } finally {
        await handle.terminate('test over');
      }
    });
  });
});
