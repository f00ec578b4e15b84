import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Config } from '../config';
import type { Logger } from '../lib/logger';
import { installScript, temporalCliPath } from '../../temporal/paths';

export interface DevServer {
  address: string;
  uiUrl: string;
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

/**
 * The Temporal CLI dev server with its Web UI, state kept in the data folder (--db-filename) so a
 * restart resumes every timer and retry. Builds the pinned CLI on first use (temporal/install.sh).
 */
export async function startTemporalDevServer(config: Config, logger: Logger): Promise<DevServer> {
  const { devPort, uiPort, namespace } = config.temporal;
  const address = `127.0.0.1:${devPort}`;
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  const dbFile = path.resolve(config.dataDir, 'temporal', 'dev-server.db');
  mkdirSync(path.dirname(dbFile), { recursive: true });

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

  const child = spawn(
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
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (chunk: Buffer) =>
    logger.warn({ temporal: chunk.toString().trim() }, 'temporal dev server'),
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilReachable(address, child, 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    address,
    uiUrl,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Only where Go is missing: the SDK downloads a CLI build (needs internet access). */
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
    },
  });
  return {
    address: `127.0.0.1:${config.temporal.devPort}`,
    uiUrl: `http://127.0.0.1:${config.temporal.uiPort}`,
    stop: () => env.teardown(),
  };
}
