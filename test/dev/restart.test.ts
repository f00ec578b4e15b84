import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandLine, isAlive } from '../../src/dev/processes';
import { SimulatedPhone } from '../../tools/phone/phone';
import { PASSWORD, sessionCookie } from '../support/accounts';
import { accepts, freePort } from '../support/net';
import { startCommand } from '../support/start-script';

// `npm start` after a crash: what a kill -9 (an OOM kill, a closed laptop) leaves behind never
// blocks the next start, children that die are started again, and a stop leaves nothing running.

const root = path.resolve(__dirname, '..', '..');
const dataDir = path.join(root, '.test-data', `restart-${process.pid}`);
const postgresDir = path.join(dataDir, 'postgres');
const devServerPidFile = path.join(dataDir, 'temporal', 'dev-server.pid');

/** Pids of the processes whose command line names our data folder: Postgres and the dev server. */
function processesUsing(dir: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(dir) && !line.includes('ps -eo'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

function postmasterPid(): number {
  return Number(readFileSync(path.join(postgresDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function devServerPid(): number {
  return (JSON.parse(readFileSync(devServerPidFile, 'utf8')) as { pid: number }).pid;
}


async function readyz(port: number): Promise<unknown> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    return await res.json();
  } catch {
    return undefined;
  }
}

type Ports = { api: number; pg: number; temporal: number; ui: number };

/** An account through the API alone: register, the verification code from the log, an API key. */
async function apiKeyFor(base: string, output: () => string): Promise<string> {
  const post = (p: string, body: unknown, cookie = '') =>
    fetch(`${base}${p}`, {
      method: 'POST',
      // With the session, from the API's own origin, as the dashboard sends it.
      headers: { 'content-type': 'application/json', cookie, ...(cookie ? { origin: base } : {}) },
      body: JSON.stringify(body),
    });
  const registered = await post('/v1/auth/register', {
    email: `restart-${process.pid}@example.com`,
    password: PASSWORD,
  });
  expect(registered.status).toBe(201);
  const cookie = sessionCookie(registered);
  const code = await expect
    .poll(() => /verification code is (\d+)/.exec(output())?.[1])
    .toBeDefined()
    .then(() => /verification code is (\d+)/.exec(output())![1]);
  expect((await post('/v1/auth/verify-email', { code }, cookie)).status).toBeLessThan(300);
  const key = await post('/v1/api-keys', { name: 'restart test' }, cookie);
  expect(key.status).toBe(201);
  return ((await key.json()) as { key: string }).key;
}

function recipients(count: number, from: number): string[] {
  return Array.from({ length: count }, (_, i) => `+1415555${String(from + i).padStart(4, '0')}`);
}

describe('npm start after a crash', () => {
  const started: ChildProcess[] = [];
  const strays: number[] = [];
  const phones: SimulatedPhone[] = [];

  afterAll(async () => {
    await Promise.all(phones.map((phone) => phone.stop()));
    const groups = started.filter((child) => child.exitCode === null && child.signalCode === null);
    for (const pid of [...groups.map((child) => -child.pid!), ...strays, ...processesUsing(dataDir)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** `npm start` in its own process group, as a terminal runs it. */
  function start(ports: Ports) {
    const command = startCommand();
    const child = spawn(command.command, command.args, {
      cwd: root,
      detached: true,
      env: {
        ...command.env,
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PHONE_GATEWAY_CACHE: process.env.PHONE_GATEWAY_CACHE,
        XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
        PORT: String(ports.api),
        DATA_DIR: dataDir,
        EMBEDDED_POSTGRES_PORT: String(ports.pg),
        TEMPORAL_DEV_PORT: String(ports.temporal),
        TEMPORAL_UI_PORT: String(ports.ui),
        // Off: the metrics port's default (9464) would be shared by test files running side by side.
        METRICS_PORT: 'off',
        LOG_LEVEL: 'info',
        DEFAULT_PLAN: 'business',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, exited, output: () => output };
  }

  async function ready(run: ReturnType<typeof start>, ports: Ports) {
    await expect
      .poll(
        async () => {
          if (run.child.exitCode !== null) throw new Error(`npm start exited:\n${run.output()}`);
          return readyz(ports.api);
        },
        { timeout: 120_000, interval: 500 },
      )
      .toEqual({ status: 'ok', checks: { postgres: 'ok', temporal: 'ok' } });
  }

  /** SIGTERM to the whole process group, as Ctrl-C or a service manager sends it. */
  async function stopGroup(run: ReturnType<typeof start>): Promise<number> {
    const began = Date.now();
    process.kill(-run.child.pid!, 'SIGTERM');
    expect(await run.exited).toBe(0);
    return Date.now() - began;
  }

  it('comes back after kill -9, restarts Postgres and the dev server when they die, and clears stale locks', async () => {
    mkdirSync(dataDir, { recursive: true });
    const ports = { api: await freePort(), pg: await freePort(), temporal: await freePort(), ui: await freePort() };

    const first = start(ports);
    await ready(first, ports);
    first.child.kill('SIGKILL');
    await first.exited;
    // Linux: the children die with it. Elsewhere the next start stops them (checked below).
    await expect.poll(() => processesUsing(dataDir)).toEqual([]);
    expect(existsSync(devServerPidFile)).toBe(true);

    // A lock naming a live process that is not Postgres (a pid reused after a crash): stale, and the
    // process itself is left alone.
    const foreign = spawn('sleep', ['600'], { stdio: 'ignore' });
    strays.push(foreign.pid!);
    writeFileSync(
      path.join(postgresDir, 'postmaster.pid'),
      `${foreign.pid}\n${postgresDir}\n1700000000\n${ports.pg}\n/tmp\n127.0.0.1\n  0   0\nready   \n`,
    );

    const second = start(ports);
    await ready(second, ports);
    expect(isAlive(foreign.pid!)).toBe(true);
    expect(second.output()).toContain('removed a stale Postgres lock file');

    // A second `npm start` on the same data folder leaves the running one alone.
    const rival = start({ ...ports, api: await freePort() });
    expect(await rival.exited).toBe(1);
    expect(rival.output()).toContain('belongs to a running process');
    expect(rival.output()).toContain('stop that one first, or set DATA_DIR to another folder');
    expect(await readyz(ports.api)).toMatchObject({ status: 'ok' });

    // Postgres killed under it: logged, started again, and the API reconnects.
    const postgresCommand = commandLine(postmasterPid())!;
    process.kill(postmasterPid(), 'SIGKILL');
    await expect.poll(() => second.output()).toContain('embedded Postgres exited unexpectedly (killed by SIGKILL)');
    await expect.poll(() => second.output(), { timeout: 60_000 }).toContain('embedded Postgres is running again');
    await expect.poll(() => readyz(ports.api), { timeout: 30_000 }).toMatchObject({ status: 'ok' });

    // The same for the dev server.
    const devServerCommand = commandLine(devServerPid())!;
    process.kill(devServerPid(), 'SIGKILL');
    await expect.poll(() => second.output()).toContain('Temporal dev server exited unexpectedly (killed by SIGKILL)');
    await expect.poll(() => second.output(), { timeout: 60_000 }).toContain('Temporal dev server is running again');
    await expect.poll(() => readyz(ports.api), { timeout: 30_000 }).toMatchObject({ status: 'ok' });

    // After both restarts the whole path works: a batch reaches the phone and completes.
    const base = `http://127.0.0.1:${ports.api}`;
    const key = await apiKeyFor(base, second.output);
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${base}${p}`, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then((res) => res.json() as Promise<any>);
    const phone = new SimulatedPhone({
      server: base,
      code: (await call('POST', '/v1/devices/pairing-codes')).code,
      pollSeconds: 0.5,
      sentAfterMs: 0,
      deliveredAfterMs: 50,
      log: () => undefined,
    });
    phones.push(phone);
    await phone.start();
    const small = await call('POST', '/v1/messages', { body: 'after restarts', to: recipients(10, 0) });
    await expect
      .poll(async () => (await call('GET', `/v1/batches/${small.batch.id}`)).batch, { timeout: 60_000 })
      .toMatchObject({ status: 'completed', delivered_count: 10 });

    expect(await stopGroup(second)).toBeLessThan(10_000);
    expect(processesUsing(dataDir)).toEqual([]);
    expect(second.output()).not.toMatch(/"msg":"start failed"/);

    // Orphans as a system without parent-death signals leaves them: a Postgres and a dev server of
    // this data folder, still running, whose parent is gone.
    // Started through a shell that exits at once, so that their parent is gone, as after a crash.
    const orphan = (args: string[], ids: { uid?: number; gid?: number } = {}) =>
      spawn('sh', ['-c', '"$@" >/dev/null 2>&1 &', 'sh', ...args], { ...ids, stdio: 'ignore' });
    orphan(postgresCommand, process.getuid?.() === 0 ? { uid: uid('-u'), gid: uid('-g') } : {});
    orphan(devServerCommand);
    await expect.poll(() => accepts(ports.pg), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => accepts(ports.temporal), { timeout: 60_000 }).toBe(true);
    const orphans = processesUsing(dataDir);
    expect(orphans).toHaveLength(2);
    strays.push(...orphans);

    const third = start(ports);
    await ready(third, ports);
    expect(third.output()).toContain('a Postgres of this data folder is still running');
    expect(third.output()).toContain('a Temporal dev server of this data folder is still running');
    for (const pid of orphans) expect(isAlive(pid)).toBe(false);

    // Stopping under load: a batch being sent by the phone (which kept running through the restart),
    // and reads in flight.
    const big = await call('POST', '/v1/messages', { body: 'under load', to: recipients(300, 100) });
    await expect
      .poll(async () => (await call('GET', `/v1/batches/${big.batch.id}`)).batch.delivered_count, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(20);
    const load = Array.from({ length: 20 }, () => call('GET', '/v1/messages?limit=100').catch(() => undefined));
    expect(await stopGroup(third)).toBeLessThan(10_000);
    await Promise.all(load);
    expect(processesUsing(dataDir)).toEqual([]);
    await phone.stop();
    expect(Math.max(...phone.sendCounts.values())).toBe(1);
    // What the dev server says while it shuts down stays out of the log.
    expect(third.output().split('"msg":"shutting down"')[1]).not.toContain('temporal dev server');
  }, 300_000);

  it('names the port another program holds and the variable that moves it, and exits', async () => {
    const ports = { api: await freePort(), pg: await freePort(), temporal: await freePort(), ui: await freePort() };
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(ports.pg, '127.0.0.1', resolve));
    try {
      const run = start(ports);
      expect(await run.exited).toBe(1);
      const lines = run.output().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${ports.pg} (embedded Postgres) is in use by another program`);
      expect(lines[0]).toContain('set EMBEDDED_POSTGRES_PORT to a free port');
      expect(processesUsing(dataDir)).toEqual([]);
    } finally {
      holder.close();
    }
  }, 60_000);
});

function uid(flag: string): number {
  return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
}
