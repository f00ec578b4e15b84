import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Config } from '../config';
import type { Logger } from '../lib/logger';
import { asError } from '../lib/backoff';
import { commandLine, dieWithParent, findProcesses, InUseError, liveOwner, stopProcess } from './processes';
import { installScript, temporalCliPath } from '../../temporal/paths';
import { searchAttributeFlags } from '../../temporal/search-attributes';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

export interface DevServer {
  address: string;
  uiUrl: string;
  /** The server process's id (none where the SDK runs it). */
  pid?: number;
  /** Settles when the server process has exited, stopped or not; the value says how. */
  exited: Promise<string>;
  stop(): Promise<void>;
}

async function waitUntilReachable(address: string, child: ChildProcess | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`the Temporal dev server exited with code ${child.exitCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`the Temporal dev server did not answer on ${address}: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function files(config: Config) {
  const dir = path.resolve(config.dataDir, 'temporal');
  return { dir, dbFile: path.join(dir, 'dev-server.db'), pidFile: path.join(dir, 'dev-server.pid') };
}

/** A dev server keeping its state in this data folder: ours, whoever started it. */
function isDevServerOf(args: string[], dbFile: string): boolean {
  const db = args.indexOf('--db-filename');
  return args.includes('start-dev') && db >= 0 && path.resolve(args[db + 1] ?? '') === dbFile;
}

/**
 * A dev server of this data folder left running by an earlier run (its parent killed): found by the
 * pid file we write at start and, on Linux, by its command line; stopped. Any other process is left
 * alone, even one whose pid the file names.
 */
export async function stopLeftoverDevServer(config: Config, logger: Logger): Promise<void> {
  const { dbFile, pidFile } = files(config);
  const pids = new Set(findProcesses((args) => isDevServerOf(args, dbFile)));
  try {
    const recorded = JSON.parse(readFileSync(pidFile, 'utf8')) as { pid?: number };
    const args = recorded.pid ? commandLine(recorded.pid) : undefined;
    if (recorded.pid && args && isDevServerOf(args, dbFile)) pids.add(recorded.pid);
  } catch {
    // No pid file (or a torn one): the command-line search above is what we have.
  }
  for (const pid of pids) {
    const owner = liveOwner(pid);
    if (owner) throw new InUseError(`the Temporal dev server of ${dbFile}`, owner);
  }
  for (const pid of pids) {
    logger.warn(
      { pid, db: dbFile },
      'a Temporal dev server of this data folder is still running (left by an earlier run that did not stop): stopping it',
    );
    await stopProcess(pid, 'SIGTERM', 10_000);
  }
  rmSync(pidFile, { force: true });
}

/**
 * The Temporal CLI dev server with its Web UI, state kept in the data folder (--db-filename) so a
 * restart resumes every timer and retry. Builds the pinned CLI on first use (temporal/install.sh).
 * It runs in its own process group (a Ctrl-C reaches only us, and we stop it after the worker) and
 * records its pid under DATA_DIR so the next start can find it if we die without stopping it.
 */
export async function startTemporalDevServer(
  config: Config,
  logger: Logger,
  /** More CLI flags: the benchmarks' metrics port and experiments. */
  extraArgs: string[] = [],
): Promise<DevServer> {
  const { devPort, uiPort, namespace } = config.temporal;
  const address = `127.0.0.1:${devPort}`;
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  const { dir, dbFile, pidFile } = files(config);
  mkdirSync(dir, { recursive: true });

  const { cacheDir } = config.temporal;
  let cli = temporalCliPath(cacheDir);
  if (!cli) {
    const install = spawnSync('bash', [installScript, 'cli'], {
      stdio: 'inherit',
      env: { ...process.env, PHONE_GATEWAY_CACHE: cacheDir },
    });
    if (install.status !== 0) throw new Error('installing the Temporal CLI failed (see above)');
    cli = temporalCliPath(cacheDir);
  }
  if (!cli) return startWithSdkDownload(config, dbFile, logger);

  const [command, args] = dieWithParent(
    cli,
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(devPort),
      '--ui-port',
      String(uiPort),
      '--namespace',
      namespace,
      '--db-filename',
      dbFile,
      '--log-level',
      'warn',
      // A write-ahead log instead of the rollback journal: a commit appends to one file and syncs it
      // once, where the journal is created, synced, and deleted per transaction. As durable (the
      // synchronous setting stays FULL); the dev server spends less CPU per workflow task.
      '--sqlite-pragma',
      'journal_mode=wal',
      // The mutable states it keeps in memory: the CLI's 8,096 held every open batch after a load (about
      // 30 MB of Go heap for 1,800 workflows) for an hour. A state past this is read from SQLite again
      // when its workflow next moves; at 256, no CPU cost measurable (docs/performance.md).
      '--dynamic-config-value',
      'history.hostLevelCacheMaxSize=256',
      // The attributes operators filter workflows by (docs/workflows.md, "Finding workflows"). The CLI registers
      // them with a new data folder only; the worker adds them to an older one at its start.
      ...searchAttributeFlags(),
      ...extraArgs,
    ],
    'SIGTERM',
  );
  // Go's collector at half its default heap growth (GOGC=100): a smaller heap after a load for a
  // little more collecting. GOGC in our environment wins.
  const env = { GOGC: '50', ...process.env };
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  // What the CLI says until it answers (its reason, when it cannot start, on either stream): the end
  // of it goes into that error, which is logged even where the process exits before a warning is.
  let said: string | undefined = '';
  const hear = (chunk: Buffer) => {
    if (said !== undefined) said = (said + chunk.toString()).slice(-2_000);
  };
  child.stdout?.on('data', hear);
  let stopping = false;
  child.stderr?.on('data', (chunk: Buffer) => {
    hear(chunk);
    const text = chunk.toString().trim();
    // What it says while shutting down (closed connections, stopped services) is expected noise.
    if (stopping) logger.debug({ temporal: text }, 'temporal dev server');
    else logger.warn({ temporal: text }, 'temporal dev server');
  });
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`could not run the Temporal CLI: ${error.message}`));
    child.once('exit', (code, signal) => {
      rmSync(pidFile, { force: true });
      resolve(signal ? `killed by ${signal}` : `exit code ${code}`);
    });
  });
  if (child.pid) {
    writeFileSync(pidFile, JSON.stringify({ pid: child.pid, port: devPort, ui_port: uiPort, db: dbFile }) + '\n');
  }
  try {
    await waitUntilReachable(address, child, 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    const output = said?.trim();
    throw output ? new Error(`${asError(error).message}; it said: ${output}`, { cause: error }) : error;
  }
  // Answering: what it says from now on is only logged (stdout still read, so its pipe never fills).
  said = undefined;
  return {
    address,
    uiUrl,
    pid: child.pid,
    exited,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** Only where Go is missing: the SDK downloads a CLI build (needs internet access). Not supervised. */
async function startWithSdkDownload(config: Config, dbFile: string, logger: Logger): Promise<DevServer> {
  logger.warn('Go is not installed: falling back to the SDK download of the Temporal CLI');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port: config.temporal.devPort,
      ui: true,
      uiPort: config.temporal.uiPort,
      namespace: config.temporal.namespace,
      dbFilename: dbFile,
      executable: { type: 'cached-download' },
      searchAttributes: [...SEARCH_ATTRIBUTES],
    },
  });
  let stopped: (how: string) => void = () => undefined;
  return {
    address: `127.0.0.1:${config.temporal.devPort}`,
    uiUrl: `http://127.0.0.1:${config.temporal.uiPort}`,
    exited: new Promise<string>((resolve) => (stopped = resolve)),
    stop: async () => {
      await env.teardown();
      stopped('stopped');
    },
  };
}
