// The service's own processes as an operator runs them in the split layout: `npm run migrate`, then
// the api (`src/main.ts`) and the worker (`src/worker.ts`), each a child process with its output
// kept. Shared by the chaos test (test/chaos) and the bench (bench/stack.ts); Postgres and the
// Temporal dev server are started by their own modules (src/dev/).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { dieWithParent, keepOutput } from '../../src/dev/processes';

export const root = path.resolve(__dirname, '..', '..');

/** The entry points, as package.json runs them. */
export const ENTRY = {
  migrate: 'src/db/migrate.ts',
  api: 'src/main.ts',
  worker: 'src/worker.ts',
  start: 'src/dev/start.ts',
} as const;

/** What every child takes from our environment: PATH, HOME and where the Temporal CLI is cached. */
export function baseEnv(): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PHONE_GATEWAY_CACHE: process.env.PHONE_GATEWAY_CACHE,
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
  };
}

export interface Child {
  name: string;
  process: ChildProcess;
  /** Its last lines of output (stdout and stderr), for the error message when it dies. */
  output(): string;
  /** Settles when it has exited: how. */
  exited: Promise<string>;
  /** Still running. */
  running(): boolean;
}

/**
 * A child process in its own process group (a Ctrl-C reaches only its parent, which stops it in
 * order). On Linux it is killed if its parent dies first, so a crashed test or bench leaves nothing
 * running. `onLine` sees every line it writes.
 */
export function spawnChild(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  onLine?: (line: string) => void,
): Child {
  const [file, argv] = dieWithParent(command, args, 'SIGKILL');
  const child = spawn(file, argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output = keepOutput(child, onLine);
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`could not run ${command}: ${error.message}`));
    child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
  });
  return {
    name,
    process: child,
    output,
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
  };
}

/** `node --import tsx <file>`, as `npm run api` and the others run it. */
export function startNode(
  name: string,
  file: string,
  env: Record<string, string | undefined>,
  onLine?: (line: string) => void,
): Child {
  return spawnChild(name, process.execPath, ['--import', 'tsx', file], env, onLine);
}

/** Polls `probe` until it gives a value; a throw from it ends the wait at once. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined> | T | undefined,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Throws with its output when one of `children` has exited. */
export function checkRunning(children: Child[]): void {
  const dead = children.find((c) => !c.running());
  if (dead)
    throw new Error(`${dead.name} exited (${dead.process.exitCode ?? dead.process.signalCode}):\n${dead.output()}`);
}

/** `npm run migrate` with this environment; throws with its output when it fails. */
export async function runMigrate(env: Record<string, string | undefined>): Promise<void> {
  const migrate = startNode('migrate', ENTRY.migrate, env);
  const how = await migrate.exited;
  if (how !== 'exit code 0') throw new Error(`migrate failed (${how}): ${migrate.output()}`);
}

/** Until the api at `base` answers /readyz with 200 (Postgres and Temporal both reachable). */
export async function apiReady(base: string, children: Child[], timeoutMs = 120_000): Promise<void> {
  await until('the api to be ready', timeoutMs, async () => {
    checkRunning(children);
    const res = await fetch(`${base}/readyz`).catch(() => undefined);
    return res?.status === 200 ? true : undefined;
  });
}

/**
 * Until a worker polls the workflow task queue. With `pid`, that worker process itself: the pollers
 * of one killed a moment ago stay listed for a while (the SDK's identity is `<pid>@<host>`).
 */
export async function workerPolling(
  temporal: Client,
  taskQueue: string,
  children: Child[],
  options: { pid?: number; timeoutMs?: number } = {},
): Promise<void> {
  await until('the worker to poll its task queue', options.timeoutMs ?? 120_000, async () => {
    checkRunning(children);
    const res = await temporal.workflowService
      .describeTaskQueue({ namespace: temporal.options.namespace, taskQueue: { name: taskQueue }, taskQueueType: 1 })
      .catch(() => undefined);
    const pollers = res?.pollers ?? [];
    const found = options.pid ? pollers.some((p) => p.identity?.startsWith(`${options.pid}@`)) : pollers.length > 0;
    return found ? true : undefined;
  });
}
