import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../support/net';
import { createTimeSkippingEnv } from '../support/temporal';

// `npm run worker` with WORKER_METRICS_ADDRESS and METRICS_PORT: the SDK's own metrics (temporal_*)
// on the first, this process's counters on the second.

const root = path.resolve(__dirname, '..', '..');

async function body(url: string): Promise<string> {
  try {
    const res = await fetch(url);
    return res.ok ? await res.text() : '';
  } catch {
    return '';
  }
}

describe('the worker process exports metrics', () => {
  let env: TestWorkflowEnvironment;
  let kill: (() => void) | undefined;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(async () => {
    kill?.();
    await env?.teardown();
  });

  it("serves the Temporal SDK's metrics on WORKER_METRICS_ADDRESS and its own on METRICS_PORT", async () => {
    const [sdkPort, ownPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: inject('databaseUrl'),
        TEMPORAL_ADDRESS: env.address,
        TEMPORAL_TASK_QUEUE: `worker-metrics-${process.pid}`,
        WORKER_METRICS_ADDRESS: `127.0.0.1:${sdkPort}`,
        METRICS_PORT: String(ownPort),
        DATABASE_POOL_MAX: '7',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    kill = () => child.kill('SIGKILL');

    // The worker polls its task queue (and runs the reconciler's first workflow task) once it runs.
    await expect
      .poll(() => body(`http://127.0.0.1:${sdkPort}/metrics`), { timeout: 90_000, interval: 500 })
      .toMatch(/^temporal_\w+\{[^}]*task_queue="worker-metrics-/m);
    const sdk = await body(`http://127.0.0.1:${sdkPort}/metrics`);
    expect(sdk).toMatch(/^temporal_\w+/m);
    expect(sdk).not.toContain('phone_gateway_');

    const own = await body(`http://127.0.0.1:${ownPort}/metrics`);
    expect(own).toContain('# TYPE phone_gateway_webhook_attempts_total counter');
    // Its pool as DATABASE_POOL_MAX sets it.
    expect(own).toMatch(/^phone_gateway_db_pool_connections\{state="max"\} 7$/m);
    // A real process also reports Node's own metrics.
    expect(own).toMatch(/^nodejs_eventloop_lag_seconds /m);

    child.kill('SIGTERM');
    expect(await exited, output).toBe(0);
    kill = undefined;
  }, 150_000);
});
