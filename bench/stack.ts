// The stack under test, started the way an operator would: embedded Postgres in a temp folder, the
// Temporal dev server, `npm run migrate`, then the api and the worker as their own processes
// (`src/main.ts`, `src/worker.ts`), or both in one process (`src/dev/start.ts`, the `npm start`
// layout) with --stack=start, or with --stack=cluster the production shape of `npm run cluster`
// (src/dev/cluster.ts: two Temporal servers on the same Postgres, two api and two worker processes
// of the compiled build). startNpmStart runs `npm start` itself instead (package.json's start script
// on a fresh DATA_DIR: embedded Postgres and the Temporal dev server are its children). Everything is
// stopped and deleted on exit, error, Ctrl-C or SIGTERM.
import { type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startEmbeddedPostgres } from '../src/dev/embedded';
import { isAlive } from '../src/dev/processes';
import type { Logger } from '../src/lib/logger';
import { loadConfig, temporalCacheDir } from '../src/config';
import { startTemporalDevServer } from '../src/dev/temporal-dev-server';
import { startCluster } from '../src/dev/cluster';
import { DATABASES, nodePorts, portsForNodes } from '../src/dev/temporal-cluster';
import { createLogger } from '../src/lib/logger';
import { freePort, freePortRun } from '../test/support/net';
import { apiReady, baseEnv, ENTRY, runMigrate, spawnChild, workerPolling, type Child } from '../test/support/stack';
import { Pool } from 'pg';
import { startSmtpServer } from '../test/support/smtp';
import { buildStart, startCommand } from '../test/support/start-script';
import { backendDatabase, childNamed, type Component } from './proc';
import { insertBenchPlan } from './setup';

// ---------------------------------------------------------------------------------------------
// Cleanup: one list of undo steps, run in reverse on every way out.

const undo: Array<{ what: string; run: () => Promise<void> | void }> = [];
const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let cleaning: Promise<void> | undefined;

export function onCleanup(what: string, run: () => Promise<void> | void) {
  undo.push({ what, run });
}

export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of undo.reverse()) {
      try {
        await step.run();
      } catch (error) {
        process.stderr.write(`cleanup: ${step.what}: ${String(error)}\n`);
      }
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  })();
  return cleaning;
}

let signalled = false;
/** True once a signal asked the bench to stop. */
export const stopping = () => signalled;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (signalled) {
      // A second Ctrl-C: kill what is left and go.
      for (const child of children) child.kill('SIGKILL');
      process.exit(130);
    }
    signalled = true;
    process.stderr.write(`\n${signal}: stopping the stack and deleting its data…\n`);
    void cleanup().then(() => process.exit(130));
  });
}
// Last resort (an uncaught throw between awaits): nothing may outlive the bench.
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs a bench script's `main`, then stops and deletes the stack, whichever way it ends. */
export function runMain(main: () => Promise<void>, name = path.basename(process.argv[1] ?? 'bench', '.ts')): void {
  main()
    .then(async () => {
      await cleanup();
      process.exit(0);
    })
    .catch(async (error) => {
      // After Ctrl-C, requests fail as the stack goes down: that is not the script failing.
      if (stopping()) return;
      console.error(`\n${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      await cleanup();
      process.exit(1);
    });
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

const alive = (pid: number | undefined): boolean => pid !== undefined && isAlive(pid);

const delay = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

/** SIGTERM, then SIGKILL after `graceMs`. */
async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * A child process in its own process group (Ctrl-C reaches the bench, which stops it in order).
 * `onLine` sees every line it writes.
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  onLine?: (line: string) => void,
): Child {
  // Its warnings for the summary: grouped by message (pino's "msg", the dev server's msg=), ids and
  // numbers blurred.
  const counts = new Map<string, number>();
  logMessages.set(name, counts);
  const count = (line: string) => {
    const message = (/"msg":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? /msg="((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? line)
      .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
      .replace(/\d+/g, 'N')
      .slice(0, 160);
    counts.set(message, (counts.get(message) ?? 0) + 1);
    onLine?.(line);
  };
  const started = spawnChild(name, command, args, env, count);
  const child = started.process;
  children.add(child);
  child.once('exit', () => children.delete(child));
  onCleanup(`stop ${name}`, () => stopChild(child));
  return started;
}

/** What each process wrote at LOG_LEVEL=warn: message → count. */
export const logMessages = new Map<string, Map<string, number>>();

// ---------------------------------------------------------------------------------------------
// Postgres: its server log is kept in memory, so auto_explain plans can be read back (explain.ts).

export interface PostgresLog {
  /** ERROR, FATAL and PANIC lines of the whole run. */
  errors: string[];
  /** While set, every log chunk goes here too. */
  tap?: (chunk: string) => void;
}

export async function startPostgres(log: PostgresLog, settings: string[] = []) {
  const dir = tempDir('bench-pg-');
  const port = await freePort();
  const logger = {
    debug: (fields: { postgres?: string }) => {
      const message = fields.postgres ?? '';
      log.tap?.(message);
      for (const line of message.split('\n'))
        if (/\b(ERROR|FATAL|PANIC):/.test(line) && log.errors.length < 1000) log.errors.push(line);
    },
    error: (fields: unknown) => process.stderr.write(`postgres error: ${JSON.stringify(fields)}\n`),
    info: () => {},
    warn: () => {},
  } as unknown as Logger;
  // persistent: fsync on, as under `npm start`; the folder is deleted by our cleanup instead.
  const pg = await startEmbeddedPostgres({ dir, port, database: 'bench', persistent: true, logger, settings });
  const postmasterPid = (): number | undefined => {
    const file = path.join(dir, 'postmaster.pid');
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return alive(pid) ? pid : undefined;
  };
  const pid = postmasterPid();
  onCleanup('stop postgres', async () => {
    if (!alive(pid)) return; // Ctrl-C reached it already
    await Promise.race([pg.stop(), delay(20_000)]);
    if (alive(pid)) process.kill(pid!, 'SIGKILL');
  });
  return { url: pg.url, component: { name: 'postgres', root: postmasterPid } satisfies Component };
}

// ---------------------------------------------------------------------------------------------
// The Temporal dev server, started as `npm start` starts it (src/dev/temporal-dev-server.ts), with a client.

export async function startTemporal() {
  // Its Prometheus metrics: what the server did (RPCs, persistence operations) per request kind.
  const metricsPort = await freePort();
  const config = loadConfig({
    DATA_DIR: tempDir('bench-temporal-'),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
  });
  const server = await startTemporalDevServer(config, createLogger('warn'), [
    '--metrics-port',
    String(metricsPort),
    // More dev-server flags for an experiment (space-separated), e.g. `--dynamic-config-value k=v`.
    ...(process.env.BENCH_TEMPORAL_ARGS?.split(' ').filter(Boolean) ?? []),
  ]);
  onCleanup('stop the Temporal dev server', () => server.stop());
  const pid = server.pid;
  if (!pid) throw new Error('the Temporal dev server runs without a process of its own (no Go to build the CLI)');
  const connection = await Connection.connect({ address: server.address });
  onCleanup('close the Temporal client', () => connection.close());
  const client = new Client({ connection, namespace: config.temporal.namespace });
  return {
    address: server.address,
    client,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    component: { name: 'temporal', root: () => pid } satisfies Component,
  };
}

// ---------------------------------------------------------------------------------------------
// The service's own processes.

export type Layout = 'split' | 'start' | 'cluster';

/** `npm run migrate` against the bench database. */
export async function migrate(databaseUrl: string): Promise<void> {
  await runMigrate({ ...baseEnv(), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
}

export async function startService(options: {
  layout: Layout;
  databaseUrl: string;
  temporalAddress: string;
  temporal: Client;
  env: Record<string, string>;
  /** Node flags for the service's processes (e.g. --cpu-prof, which NODE_OPTIONS may not carry). */
  nodeArgs?: string[];
}) {
  const port = await freePort();
  const env = {
    ...baseEnv(),
    DATABASE_URL: options.databaseUrl,
    TEMPORAL_ADDRESS: options.temporalAddress,
    PORT: String(port),
    // Counted all the same (in memory); only npm start's metrics port (9464 by default) is not opened.
    METRICS_PORT: 'off',
    LOG_LEVEL: 'warn',
    // Unused with DATABASE_URL and TEMPORAL_ADDRESS set; kept out of the repository all the same.
    DATA_DIR: tempDir('bench-data-'),
    ...options.env,
  };
  const entries: Array<[string, string]> =
    options.layout === 'split'
      ? [
          ['api', ENTRY.api],
          ['worker', ENTRY.worker],
        ]
      : [['api+worker', ENTRY.start]];
  const started = entries.map(([name, file]) =>
    // PGAPPNAME names each process's Postgres sessions, so the plans it logs say who ran them.
    startProcess(name, process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', file], {
      ...env,
      PGAPPNAME: name,
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  await apiReady(base, started);
  // The worker is ready when it polls the task queue.
  await workerPolling(options.temporal, options.env.TEMPORAL_TASK_QUEUE ?? 'phone-gateway', started);
  return {
    base,
    components: started.map((s) => ({ name: s.name, root: () => s.process.pid }) satisfies Component),
    alive: () => started.every((s) => s.running()),
    output: (name: string) => started.find((s) => s.name === name)?.output() ?? '',
  };
}

// ---------------------------------------------------------------------------------------------
// The whole stack every bench script starts: Postgres (and a small pool on it for the script's own
// SQL), the dev server, the migrations, the bench plan, a local SMTP server and the service.

export async function startBenchStack(options: {
  layout?: Layout;
  /** Extra environment of the api and worker (DEFAULT_PLAN and SMTP_URL are set here). */
  env?: Record<string, string>;
  nodeArgs?: string[];
  pgLog?: PostgresLog;
  /** More Postgres server settings, `name=value` each. */
  pgSettings?: string[];
  poolSize?: number;
  /** Runs after the migrations, before the service starts (scratch tables, auto_explain). */
  prepare?: (db: Pool) => Promise<void>;
}) {
  const postgres = await startPostgres(options.pgLog ?? { errors: [] }, options.pgSettings);
  const db = new Pool({ connectionString: postgres.url, max: options.poolSize ?? 2, application_name: 'bench' });
  // An idle connection cut by a stopping Postgres is expected on the way out, not a crash.
  db.on('error', () => {});
  onCleanup('close the bench pool', () => db.end());
  if (options.layout === 'cluster') {
    await migrate(postgres.url);
    await insertBenchPlan(db);
    await options.prepare?.(db);
    const smtp = await startSmtpServer();
    onCleanup('stop the SMTP server', () => smtp.close());
    const { temporal, service, components } = await startClusterService(postgres.url, {
      DEFAULT_PLAN: 'bench',
      SMTP_URL: smtp.url,
      ...options.env,
    });
    // One Postgres holds Temporal's persistence and visibility beside ours: its backends for those
    // databases count as Temporal's, the rest (ours, and the server's own processes) as Postgres.
    const temporalsBackend = (pid: number) =>
      (Object.values(DATABASES) as string[]).includes(backendDatabase(pid) ?? '');
    const split: Component[] = [
      { ...postgres.component, only: (pid) => !temporalsBackend(pid) },
      { name: 'temporal-postgres', root: postgres.component.root, only: temporalsBackend },
    ];
    return { postgres, db, temporal, smtp, service, components: [...split, ...components] };
  }
  const temporal = await startTemporal();
  await migrate(postgres.url);
  await insertBenchPlan(db);
  await options.prepare?.(db);
  const smtp = await startSmtpServer();
  onCleanup('stop the SMTP server', () => smtp.close());
  const service = await startService({
    layout: options.layout ?? 'split',
    databaseUrl: postgres.url,
    temporalAddress: temporal.address,
    temporal: temporal.client,
    env: { DEFAULT_PLAN: 'bench', SMTP_URL: smtp.url, ...options.env },
    nodeArgs: options.nodeArgs,
  });
  const components: Component[] = [postgres.component, temporal.component, ...service.components];
  return { postgres, db, temporal, smtp, service: { ...service, bases: [service.base] }, components };
}

/**
 * The cluster of `npm run cluster` on the bench's Postgres (src/dev/cluster.ts; the compiled build,
 * `npm run build` first): two Temporal servers behind one address, two api and two worker processes.
 * The bench's requests go to both api processes in turn.
 */
async function startClusterService(databaseUrl: string, env: Record<string, string>) {
  const run = await freePortRun(portsForNodes(2));
  const apiPorts = [await freePort(), await freePort()];
  const cluster = await startCluster({
    dataDir: tempDir('bench-cluster-'),
    databaseUrl,
    cacheDir: temporalCacheDir(),
    postgresPort: 0,
    temporalPort: await freePort(),
    nodes: nodePorts(run, 2),
    apiPorts,
    workers: 2,
    namespace: 'default',
    env: { ...baseEnv(), METRICS_PORT: 'off', LOG_LEVEL: 'warn', DATA_DIR: tempDir('bench-data-'), ...env },
    persistent: false,
    // Restarts and start failures; the servers' own warnings would drown the bench's output.
    logger: createLogger('error'),
  });
  onCleanup('stop the cluster', () => cluster.stop());
  const connection = await Connection.connect({ address: cluster.temporalAddress });
  onCleanup('close the Temporal client', () => connection.close());
  const proc = (name: string, process: () => { pid?: number }) =>
    ({ name, root: () => process().pid }) satisfies Component;
  const apis = cluster.apis.map((api, i) => proc(`api-${i + 1}`, () => api.current()));
  const workers = cluster.workers.map((worker, i) => proc(`worker-${i + 1}`, () => worker.current()));
  return {
    temporal: {
      address: cluster.temporalAddress,
      client: new Client({ connection, namespace: 'default' }),
      // The first server's Prometheus listener (temporal/cluster/server.yaml: port base + 5).
      metricsUrl: `http://127.0.0.1:${run + 5}/metrics`,
      component: proc('temporal-1', () => cluster.nodes[0].current()),
    },
    service: {
      base: cluster.apis[0].url,
      bases: cluster.apis.map((api) => api.url),
      components: [...apis, ...workers],
      alive: () => true,
      output: () => '',
    },
    components: [
      ...cluster.nodes.map((node, i) => proc(`temporal-${i + 1}`, () => node.current())),
      ...apis,
      ...workers,
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// `npm start` itself, as an operator runs it.

/**
 * `npm start` (its prestart, then its start script without npm's own launcher process) on a fresh DATA_DIR,
 * with a local SMTP server, the bench plan as the default plan, and a small pool on its embedded
 * Postgres. Its components: the api+worker process alone, Postgres and the Temporal dev server (its
 * children, each with what runs below it). BENCH_OURS_NODE_OPTIONS: more Node flags for an experiment.
 */
export async function startNpmStart(options: {
  label: string;
  env?: Record<string, string>;
  /** Sees every line the process writes (the dev server's stderr comes through it as warnings). */
  onLine?: (line: string) => void;
}) {
  const smtp = await startSmtpServer();
  onCleanup('stop the SMTP server', () => smtp.close());
  const dataDir = tempDir(`bench-${options.label}-`);
  // Run as root, Postgres runs as the postgres user: it must reach its folder inside this one.
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  const postgresPort = await freePort();
  buildStart();
  const command = startCommand();
  const start = startProcess(
    'npm start',
    command.command,
    command.args,
    {
      ...baseEnv(),
      ...command.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      EMBEDDED_POSTGRES_PORT: String(postgresPort),
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      METRICS_PORT: 'off',
      LOG_LEVEL: 'warn',
      DEFAULT_PLAN: 'bench',
      SMTP_URL: smtp.url,
      NODE_OPTIONS: process.env.BENCH_OURS_NODE_OPTIONS ?? '',
      ...options.env,
    },
    options.onLine,
  );
  const base = `http://127.0.0.1:${port}`;
  await apiReady(base, [start], 240_000);
  const node = () => start.process.pid;
  const components: Component[] = [
    { name: 'api+worker', root: node, alone: true },
    { name: 'postgres', root: () => childNamed(node(), 'postgres') },
    { name: 'temporal', root: () => childNamed(node(), 'temporal') },
  ];
  const db = new Pool({
    connectionString: `postgres://postgres:phone-gateway-local@127.0.0.1:${postgresPort}/phone_gateway`,
    max: 1,
    application_name: 'bench',
  });
  db.on('error', () => {});
  onCleanup('close the bench pool', () => db.end());
  // Registration comes later: the default plan exists before the first account.
  await insertBenchPlan(db);
  return { base, db, smtp, start, components };
}
