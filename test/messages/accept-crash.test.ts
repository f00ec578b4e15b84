import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { batchWorkflowId } from '../../workflows/definitions';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { readJson } from '../support/http';
import { createTimeSkippingEnv } from '../support/temporal';
import { pairPhone } from '../devices/helpers';

const QUEUE = 'accept-crash-test';

describe('an api process killed between the commit of a send and its workflow start', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let child: ChildProcess | undefined;
  // A Temporal address that accepts connections and never answers: every start hangs until its deadline.
  let blackHole: Server;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    app = await startTestApp({ temporal: env.client, env: { TEMPORAL_TASK_QUEUE: QUEUE } });
    blackHole = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => blackHole?.close(resolve));
    await app?.close();
    await env?.teardown();
  });

  async function startApiProcess(): Promise<{ process: ChildProcess; url: string }> {
    const { port } = blackHole.address() as { port: number };
    const started = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'api-child.ts')], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATABASE_URL: inject('databaseUrl'),
        TEMPORAL_TASK_QUEUE: QUEUE,
        TEST_TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      started.stdout!.on('data', (chunk: Buffer) => {
        const match = /api ready (\S+)/.exec(chunk.toString());
        if (match) resolve(match[1]);
      });
      started.once('exit', (code) => reject(new Error(`api process exited early (${code})`)));
    });
    return { process: started, url };
  }

  it('answers 202, and the reconciler starts the workflow the dead process never started', async () => {
    const account = await registerAccount(app, { verified: true, plan: 'pro' });
    const key = await createKey(app, account);
    await pairPhone(app, key);

    const api = await startApiProcess();
    child = api.process;
    const res = await fetch(
      `${api.url}/v1/messages`,
      json('POST', { body: 'Accepted before the crash', to: ['+14155550301', '+14155550302'] }, { 'x-api-key': key }),
    );
    expect(res.status).toBe(202);
    const { batch, message_ids } = await readJson(res);
    // The start is in flight (held by the silent server) when the process dies.
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));

    // Committed whole: the batch and both messages, waiting for their workflow.
    const detail = await readJson(await app.fetch(`/v1/batches/${batch.id}`, { headers: { 'x-api-key': key } }));
    expect(detail.batch).toMatchObject({ status: 'queued', recipient_count: 2 });
    expect(detail.messages.map((m: { id: string }) => m.id)).toEqual(message_ids);
    await expect(env.client.workflow.getHandle(batchWorkflowId(batch.id)).describe()).rejects.toThrow();

    // The reconciler's pass for batches (after its grace period) starts it.
    app.clock.advance(60_000);
    const sweep = app.services.starter.sweep(app.services.starts.batches);
    expect(await sweep.run()).toBeGreaterThanOrEqual(1);
    expect((await env.client.workflow.getHandle(batchWorkflowId(batch.id)).describe()).status.name).toBe('RUNNING');
    // Recorded as started: the next pass leaves it alone.
    const again = await app.services.starts.batches.unstarted(app.clock.now(), 10_000);
    expect(again.map((b) => b.id)).not.toContain(batch.id);
    await env.client.workflow.getHandle(batchWorkflowId(batch.id)).terminate('test over');
  });
});
