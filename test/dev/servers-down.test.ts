import { spawn } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../support/net';
import { createTimeSkippingEnv } from '../support/temporal';

// `npm run api` and `npm run worker` started before their servers: they say what they wait for and
// keep trying, then start once the servers answer.

const root = path.resolve(__dirname, '..', '..');

/** Plain TCP forwarding from `port` to `target`, opened only when the test says the server is "up". */
function forwarder(port: number, target: { host: string; port: number }) {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  return {
    up: () =>
      new Promise<void>((resolve) => {
        server = createServer((client) => {
          const upstream = connect(target.port, target.host);
          for (const socket of [client, upstream]) {
            sockets.add(socket);
            socket.on('error', () => undefined);
            socket.on('close', () => sockets.delete(socket));
          }
          client.pipe(upstream).pipe(client);
        });
        server.listen(port, '127.0.0.1', () => resolve());
      }),
    close: () => {
      for (const socket of sockets) socket.destroy();
      server?.close();
    },
  };
}

function run(entry: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

const waiting = (output: string, what: string) =>
  output.split('\n').filter((line) => line.includes(`"msg":"${what} cannot start yet (it needs `));

describe('api and worker processes whose servers are down', () => {
  let env: TestWorkflowEnvironment;
  const cleanups: Array<() => void> = [];
  const database = new URL(inject('databaseUrl'));

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(async () => {
    for (const cleanup of cleanups) cleanup();
    await env?.teardown();
  });

  it('the api says it waits for Postgres, keeps retrying, and serves once Postgres answers', async () => {
    const pgPort = await freePort();
    const apiPort = await freePort();
    const url = new URL(database);
    url.port = String(pgPort);
    const postgres = forwarder(pgPort, { host: database.hostname, port: Number(database.port) });
    cleanups.push(postgres.close);
    const api = run('src/main.ts', {
      DATABASE_URL: url.toString(),
      TEMPORAL_ADDRESS: env.address,
      PORT: String(apiPort),
    });
    cleanups.push(() => api.child.kill('SIGKILL'));

    await expect.poll(() => waiting(api.output(), 'api').length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    const [first, second] = waiting(api.output(), 'api');
    expect(first).toContain(`Postgres at 127.0.0.1:${pgPort} and Temporal at ${env.address}`);
    expect(first).toContain(`connect ECONNREFUSED 127.0.0.1:${pgPort}; retrying in 1 s`);
    expect(second).toContain('retrying in 2 s');
    expect(api.output()).not.toContain(database.password);
    expect(api.child.exitCode).toBeNull();

    await postgres.up();
    await expect
      .poll(
        async () => {
          try {
            return (await fetch(`http://127.0.0.1:${apiPort}/readyz`)).status;
          } catch {
            return 0;
          }
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(200);
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
  }, 120_000);

  it('the worker says it waits for Temporal, keeps retrying, and runs once Temporal answers', async () => {
    const temporalPort = await freePort();
    const [host, port] = env.address.split(':');
    const temporal = forwarder(temporalPort, { host, port: Number(port) });
    cleanups.push(temporal.close);
    const worker = run('src/worker.ts', {
      DATABASE_URL: database.toString(),
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      TEMPORAL_TASK_QUEUE: `servers-down-${process.pid}`,
    });
    cleanups.push(() => worker.child.kill('SIGKILL'));

    // One failed attempt (Temporal's connect waits 10 s); the next one, after the server is up, succeeds.
    await expect.poll(() => waiting(worker.output(), 'worker').length, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    expect(waiting(worker.output(), 'worker')[0]).toContain(`and Temporal at 127.0.0.1:${temporalPort})`);
    expect(worker.child.exitCode).toBeNull();

    await temporal.up();
    await expect.poll(() => worker.output(), { timeout: 90_000, interval: 500 }).toContain('"msg":"worker running"');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 150_000);
});
