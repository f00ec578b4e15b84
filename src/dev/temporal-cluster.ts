// The Temporal cluster of `npm run cluster`: the server temporal/install.sh builds (`server`), on
// Postgres, persistence and visibility in two databases whose schema the server's own SQL tool
// creates and updates; any number of server processes on loopback, each with the four services
// (temporal/cluster/server.yaml), finding each other through the cluster_membership table; a TCP
// balancer in front of their frontends, as a load balancer stands in front of them in production;
// and the Temporal UI when it could be built.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import type { Logger } from '../lib/logger';
import { dieWithParent, keepOutput } from './processes';
import { projectRoot } from '../lib/root';
import { setUpNamespace } from '../../temporal/namespace';
import { installScript, temporalServerPaths, temporalUiPath } from '../../temporal/paths';

export const CLUSTER_CONFIG_DIR = path.join(projectRoot, 'temporal', 'cluster');
const DYNAMIC_CONFIG = path.join(projectRoot, 'temporal', 'dynamicconfig', 'development-sql.yaml');
/** One server process's gRPC, HTTP and metrics ports, and its membership ports (temporal/cluster/server.yaml). */
export const PORTS_PER_NODE = 6;
export const MEMBERSHIP_PORTS_PER_NODE = 4;

/**
 * The ports of `count` server processes from one run of free ports at `first` (tests, the bench): all
 * their gRPC ports, then all their membership ports; `portsForNodes(count)` of them in all.
 */
export function nodePorts(first: number, count: number): Array<{ portBase: number; membershipPortBase: number }> {
  return Array.from({ length: count }, (_, i) => ({
    portBase: first + i * PORTS_PER_NODE,
    membershipPortBase: first + count * PORTS_PER_NODE + i * MEMBERSHIP_PORTS_PER_NODE,
  }));
}

export const portsForNodes = (count: number) => count * (PORTS_PER_NODE + MEMBERSHIP_PORTS_PER_NODE);

export interface PostgresAccess {
  host: string;
  port: number;
  user: string;
  password: string;
}

export const DATABASES = { persistence: 'temporal', visibility: 'temporal_visibility' } as const;

export function postgresAccess(url: string): PostgresAccess {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
}

/** The pinned server's files, built first when missing (as `npm start` builds the CLI). */
export function temporalServerBinaries(cacheDir: string) {
  let found = temporalServerPaths(cacheDir);
  if (!found) {
    const install = spawnSync('bash', [installScript, 'server'], {
      stdio: 'inherit',
      env: { ...process.env, PHONE_GATEWAY_CACHE: cacheDir },
    });
    if (install.status !== 0) throw new Error('installing the Temporal server failed (see above)');
    found = temporalServerPaths(cacheDir);
  }
  if (!found) throw new Error('the Temporal server is not installed (Go is needed to build it: temporal/install.sh)');
  return { ...found, ui: temporalUiPath(cacheDir) };
}

/** Both databases at the schema version this server needs (temporal/cluster/schema.sh, as compose runs it). */
export async function setupTemporalSchema(
  sqlTool: string,
  schemaDir: string,
  postgres: PostgresAccess,
  logger: Logger,
): Promise<void> {
  const { stdout } = await promisify(execFile)('sh', [path.join(CLUSTER_CONFIG_DIR, 'schema.sh')], {
    env: {
      PATH: process.env.PATH,
      SQL_PLUGIN: 'postgres12',
      SQL_HOST: postgres.host,
      SQL_PORT: String(postgres.port),
      SQL_USER: postgres.user,
      SQL_PASSWORD: postgres.password,
      TEMPORAL_DB: DATABASES.persistence,
      TEMPORAL_VISIBILITY_DB: DATABASES.visibility,
      TEMPORAL_SQL_TOOL: sqlTool,
      TEMPORAL_SCHEMA_DIR: schemaDir,
    },
  }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`setting up the Temporal schema failed: ${error.stderr || error.stdout || error.message}`);
  });
  logger.debug({ output: stdout.slice(-2000) }, 'temporal schema up to date');
}

export interface TemporalNode {
  name: string;
  /** Its frontend, host:port. */
  address: string;
  portBase: number;
  membershipPortBase: number;
  pid: number | undefined;
  exited: Promise<string>;
  stop(): Promise<void>;
}

async function waitUntilServing(address: string, exited: Promise<string>, timeoutMs: number): Promise<void> {
  let gone: string | undefined;
  void exited.then((how) => (gone = how));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone) throw new Error(`the Temporal server at ${address} exited (${gone})`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the Temporal server did not answer on ${address}: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** One server process of the cluster, its ports from `portBase` and `membershipPortBase` (temporal/cluster/server.yaml). */
export async function startTemporalNode(options: {
  name: string;
  server: string;
  portBase: number;
  membershipPortBase: number;
  postgres: PostgresAccess;
  logger: Logger;
}): Promise<TemporalNode> {
  const { name, server, portBase, membershipPortBase, postgres, logger } = options;
  const address = `127.0.0.1:${portBase}`;
  const [command, args] = dieWithParent(
    server,
    ['--root', CLUSTER_CONFIG_DIR, '--config', '.', '--env', 'server', '--allow-no-auth', 'start'],
    'SIGTERM',
  );
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      TEMPORAL_PORT_BASE: String(portBase),
      TEMPORAL_MEMBERSHIP_PORT_BASE: String(membershipPortBase),
      TEMPORAL_BIND_ON_IP: '127.0.0.1',
      TEMPORAL_POSTGRES_ADDRESS: `${postgres.host}:${postgres.port}`,
      TEMPORAL_POSTGRES_USER: postgres.user,
      TEMPORAL_POSTGRES_PASSWORD: postgres.password,
      TEMPORAL_DB: DATABASES.persistence,
      TEMPORAL_VISIBILITY_DB: DATABASES.visibility,
      TEMPORAL_DYNAMIC_CONFIG: DYNAMIC_CONFIG,
      TEMPORAL_LOG_LEVEL: process.env.TEMPORAL_LOG_LEVEL ?? 'error',
    },
  });
  let stopping = false;
  keepOutput(child, (line) => {
    // What it says while shutting down (closed connections, stopped services) is expected noise.
    if (stopping) logger.debug({ temporal: name, line }, 'temporal server');
    else logger.warn({ temporal: name, line }, 'temporal server');
  });
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`could not run the Temporal server: ${error.message}`));
    child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
  });
  try {
    await waitUntilServing(address, exited, 120_000);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
  return {
    name,
    address,
    portBase,
    membershipPortBase,
    pid: child.pid,
    exited,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** The namespace the service uses and its search attributes, registered once (temporal/namespace.ts). */
export async function registerNamespace(address: string, namespace: string, logger: Logger): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await setUpNamespace(connection, namespace, 7 * 86_400_000, logger);
  } finally {
    await connection.close();
  }
}

export interface Balancer {
  address: string;
  /** Connections it forwarded, by frontend. */
  forwarded: Map<string, number>;
  stop(): Promise<void>;
}

/**
 * A TCP balancer on `port` in front of the frontends: each new connection goes to the next frontend
 * that accepts it, so clients keep one address while any server process is down. gRPC keeps its
 * connections open; when the frontend behind one dies, the client reconnects and lands on a live one.
 */
export async function startBalancer(port: number, frontends: () => string[]): Promise<Balancer> {
  const forwarded = new Map<string, number>();
  const sockets = new Set<Socket>();
  let next = 0;
  const connect = (client: Socket, tries: number) => {
    const targets = frontends();
    if (tries >= targets.length) {
      client.destroy();
      return;
    }
    const target = targets[next++ % targets.length];
    const [host, targetPort] = target.split(':');
    const upstream = createConnection({ host, port: Number(targetPort) });
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      forwarded.set(target, (forwarded.get(target) ?? 0) + 1);
      client.pipe(upstream).pipe(client);
      client.resume();
      sockets.add(upstream);
      upstream.once('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      client.once('close', () => upstream.destroy());
    });
    upstream.on('error', () => {
      if (connected) client.destroy();
      else connect(client, tries + 1);
    });
  };
  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    connect(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    address: `127.0.0.1:${port}`,
    forwarded,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface TemporalUi {
  url: string;
  exited: Promise<string>;
  stop(): Promise<void>;
}

/** The Temporal UI server (temporal/cluster/ui.yaml) on the balancer's address. */
export function startTemporalUi(
  ui: string,
  address: string,
  port: number,
  namespace: string,
  logger: Logger,
): TemporalUi {
  const [command, args] = dieWithParent(
    ui,
    ['--root', CLUSTER_CONFIG_DIR, '--config', '.', '--env', 'ui', 'start'],
    'SIGTERM',
  );
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_UI_PORT: String(port),
      TEMPORAL_NAMESPACE: namespace,
    },
  });
  child.stderr?.on('data', (chunk: Buffer) => logger.warn({ line: chunk.toString().trim() }, 'temporal ui'));
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`could not run the Temporal UI: ${error.message}`));
    child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
