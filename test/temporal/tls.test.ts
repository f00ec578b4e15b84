// TLS to Temporal (TEMPORAL_TLS_*), against the real Temporal server (temporal/install.sh server) on
// Postgres, its frontend requiring client certificates of a test CA (mTLS): the api's client and the
// worker connect with the right certificate and the worker runs a workflow; a certificate of another
// CA, or none, stops the start with an error that names the settings.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection, type Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig, temporalCacheDir, type Config } from '../../src/config';
import { createContainer, type Container } from '../../src/container';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/dev/embedded';
import { createLogger } from '../../src/lib/logger';
import { dieWithParent, keepOutput } from '../../src/dev/processes';
import {
  CLUSTER_CONFIG_DIR,
  nodePorts,
  portsForNodes,
  postgresAccess,
  setupTemporalSchema,
  temporalServerBinaries,
} from '../../src/dev/temporal-cluster';
import { connectTemporal } from '../../temporal/client';
import { connectWorkerClient, runWorker, type RunningWorker } from '../../temporal/worker';
import { RECONCILER_WORKFLOW_ID } from '../../workflows/definitions';
import { freePort, freePortRun } from '../support/net';
import { createCa, issueCert } from '../support/tls';

/**
 * The cluster's own server configuration (temporal/cluster/server.yaml) with the frontend requiring
 * mTLS; the server's system worker, a client of the frontend too, presents a certificate of its own.
 */
function tlsServerConfig(files: Record<'ca' | 'serverCert' | 'serverKey' | 'workerCert' | 'workerKey', string>) {
  const base = readFileSync(path.join(CLUSTER_CONFIG_DIR, 'server.yaml'), 'utf8');
  const tls = [
    'global:',
    '  tls:',
    '    frontend:',
    '      server:',
    `        certFile: ${files.serverCert}`,
    `        keyFile: ${files.serverKey}`,
    '        requireClientAuth: true',
    `        clientCaFiles: [${files.ca}]`,
    '      client:',
    '        serverName: localhost',
    `        rootCaFiles: [${files.ca}]`,
    '    systemWorker:',
    `      certFile: ${files.workerCert}`,
    `      keyFile: ${files.workerKey}`,
    '      client:',
    '        serverName: localhost',
    `        rootCaFiles: [${files.ca}]`,
    '',
  ].join('\n');
  if (!/^global:\n/m.test(base)) throw new Error('temporal/cluster/server.yaml has no global: section');
  return base.replace(/^global:\n/m, tls);
}

describe('TLS to Temporal (mTLS on the real server)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'temporal-tls-'));
  const file = (name: string) => path.join(dir, name);
  const output: string[] = [];
  let postgres: EmbeddedPostgres;
  let stopServer: (() => Promise<void>) | undefined;
  let address: string;
  const closers: Array<() => Promise<unknown>> = [];

  /** The test's configuration, as a process would read it from its environment. */
  const configWith = (env: Record<string, string>): Config =>
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TASK_QUEUE: 'tls-test',
      ...env,
    });
  const good = () => ({
    TEMPORAL_TLS_CA_FILE: file('ca.pem'),
    TEMPORAL_TLS_CERT_FILE: file('client.pem'),
    TEMPORAL_TLS_KEY_FILE: file('client.key'),
    // The frontend's certificate names localhost; the address is 127.0.0.1.
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
  });

  beforeAll(async () => {
    const binaries = temporalServerBinaries(temporalCacheDir());
    const ca = await createCa('phone-gateway test Temporal CA');
    const other = await createCa('some other CA');
    const pems = {
      server: await issueCert(ca, { commonName: 'localhost', dns: ['localhost'], ips: ['127.0.0.1'], server: true }),
      worker: await issueCert(ca, { commonName: 'temporal-system-worker', client: true }),
      client: await issueCert(ca, { commonName: 'phone-gateway', client: true }),
      stranger: await issueCert(other, { commonName: 'phone-gateway', client: true }),
    };
    writeFileSync(file('ca.pem'), ca.cert);
    for (const [name, pem] of Object.entries(pems)) {
      writeFileSync(file(`${name}.pem`), pem.cert);
      writeFileSync(file(`${name}.key`), pem.key, { mode: 0o600 });
    }
    const configDir = file('config');
    mkdirSync(configDir);
    writeFileSync(
      path.join(configDir, 'server.yaml'),
      tlsServerConfig({
        ca: file('ca.pem'),
        serverCert: file('server.pem'),
        serverKey: file('server.key'),
        workerCert: file('worker.pem'),
        workerKey: file('worker.key'),
      }),
    );
    chmodSync(dir, 0o755);

    postgres = await startEmbeddedPostgres({
      dir: file('postgres'),
      port: await freePort(),
      database: 'phone_gateway',
      persistent: false,
    });
    const access = postgresAccess(postgres.url);
    await setupTemporalSchema(binaries.sqlTool, binaries.schema, access, createLogger('silent'));

    const [{ portBase, membershipPortBase }] = nodePorts(await freePortRun(portsForNodes(1)), 1);
    address = `127.0.0.1:${portBase}`;
    const [command, args] = dieWithParent(
      binaries.server,
      ['--root', dir, '--config', 'config', '--env', 'server', '--allow-no-auth', 'start'],
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
        TEMPORAL_POSTGRES_ADDRESS: `${access.host}:${access.port}`,
        TEMPORAL_POSTGRES_USER: access.user,
        TEMPORAL_POSTGRES_PASSWORD: access.password,
        TEMPORAL_DYNAMIC_CONFIG: path.join(CLUSTER_CONFIG_DIR, '..', 'dynamicconfig', 'development-sql.yaml'),
        TEMPORAL_LOG_LEVEL: 'error',
      },
    });
    keepOutput(child, (line) => {
      output.push(line);
      if (output.length > 200) output.shift();
    });
    const exited = new Promise<string>((resolve) =>
      child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`)),
    );
    stopServer = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    };
    // Serving once a client with the right certificate is answered; the namespace is registered then.
    const config = configWith(good());
    let gone: string | undefined;
    void exited.then((how) => (gone = how));
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (gone) throw new Error(`the Temporal server exited (${gone}):\n${output.join('\n')}`);
      try {
        const connection = await Connection.connect({
          address,
          connectTimeout: 1000,
          tls: { ...config.temporal.tls!.options },
        });
        try {
          await connection.workflowService.registerNamespace({
            namespace: 'default',
            workflowExecutionRetentionPeriod: msToTs('1 day'),
          });
        } finally {
          await connection.close();
        }
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`the Temporal server did not answer: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }, 240_000);

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await stopServer?.();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('connects the api with the right client certificate', async () => {
    const client = await connectTemporal(configWith(good()));
    closers.push(() => client.connection.close());
    const described = await client.workflowService.describeNamespace({ namespace: 'default' });
    expect(described.namespaceInfo?.name).toBe('default');
  });

  it('runs a worker (on the core connection) whose workflow makes progress', async () => {
    const config = configWith(good());
    const logger = createLogger('silent');
    const container: Container = await createContainer(config, logger, { connectWorkerClient });
    closers.push(() => container.close());
    const worker: RunningWorker = await runWorker({
      ...container,
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    closers.unshift(() => worker.stop());
    // runWorker started the reconciler on this connection; the worker runs its first task.
    const handle = container.temporal.workflow.getHandle(RECONCILER_WORKFLOW_ID);
    const deadline = Date.now() + 60_000;
    let completed = 0;
    while (completed === 0 && Date.now() < deadline) {
      const history = await handle.fetchHistory();
      completed = (history.events ?? []).filter((event) => event.workflowTaskCompletedEventAttributes).length;
      if (completed === 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(completed).toBeGreaterThan(0);
  }, 120_000);

  const startFails = async (config: Config) => {
    const errors: string[] = [];
    for (const connect of [
      () => connectTemporal(config),
      () => connectWorkerClient(config, createLogger('silent')),
    ] as Array<() => Promise<Client>>) {
      const client = await connect().then(
        async (connected) => {
          // A TLS 1.3 server may refuse the certificate only after the handshake: the first call fails.
          closers.push(() => connected.connection.close());
          await connected.workflowService.getSystemInfo({});
          return connected;
        },
        (error: Error) => {
          errors.push(error.message);
          return undefined;
        },
      );
      expect(client, 'connected without a certificate the server accepts').toBeUndefined();
    }
    return errors;
  };

  it('refuses to start with a client certificate another CA signed, naming the settings', async () => {
    const errors = await startFails(
      configWith({
        ...good(),
        TEMPORAL_TLS_CERT_FILE: file('stranger.pem'),
        TEMPORAL_TLS_KEY_FILE: file('stranger.key'),
      }),
    );
    for (const message of errors) {
      expect(message).toMatch(
        new RegExp(
          `^cannot connect to Temporal at ${address.replace(/\./g, '\\.')} with TEMPORAL_TLS_CA_FILE, TEMPORAL_TLS_CERT_FILE, TEMPORAL_TLS_KEY_FILE, TEMPORAL_TLS_SERVER_NAME: `,
        ),
      );
    }
    expect(errors).toHaveLength(2);
  });

  it('refuses to start without a client certificate, naming the settings', async () => {
    const { TEMPORAL_TLS_CERT_FILE: _c, TEMPORAL_TLS_KEY_FILE: _k, ...caOnly } = good();
    const errors = await startFails(configWith(caOnly));
    expect(errors).toHaveLength(2);
    for (const message of errors) {
      expect(message).toMatch(
        /^cannot connect to Temporal at .* with TEMPORAL_TLS_CA_FILE, TEMPORAL_TLS_SERVER_NAME: /,
      );
    }
  });
});
