import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runClusterLoad, startLoadReceiver, type LoadReceiver } from '../support/cluster-load';
import { freePort } from '../support/net';
import { startSmtpServer } from '../support/smtp';
import { root, until } from '../support/stack';
import { compose, containers, docker, inspect, leftovers, script, writeOverride, type ComposeProject } from './compose';

// `docker compose up` of the repository's docker-compose.yml and Dockerfile, unchanged, on a Docker
// engine (tools/images/engine.sh) with the stand-in images (tools/images/build.sh): the cluster
// test's load (test/support/cluster-load.ts) through the published api port, 2,000 recipients to two
// simulated phones and an HTTPS webhook on this machine. Mid-way a Temporal server container is
// stopped with `docker kill` and a worker container's process is killed with SIGKILL (a crash, which
// compose's restart policy answers; a `docker kill` is a deliberate stop that it does not), then the
// server is started again as an operator would. Then every check of the load, the two servers alive
// in the cluster's membership table, and `docker compose down -v` leaves nothing of the project.

// The name containers reach this machine by: the engine's gateway (extra_hosts host-gateway).
const HOST = 'host.docker.internal';
const MEMBERSHIP_PORTS = [6933, 6934, 6935, 6936];

describe('docker compose up: the production files on a Docker engine, killed mid-load', () => {
  const project: ComposeProject = {
    name: `phone-gateway-test-${process.pid}`,
    overrideFile: '',
    env: {},
  };
  const scratch = mkdtempSync(path.join(tmpdir(), 'compose-test-'));
  let receiver: LoadReceiver | undefined;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>> | undefined;
  let db: Pool | undefined;
  let up = false;
  let finished = false;
  const timeline: string[] = [];
  const began = Date.now();
  const mark = (what: string) => timeline.push(`${((Date.now() - began) / 1000).toFixed(1)} s ${what}`);

  beforeAll(async () => {
    // The engine and Compose, then the images the files name (each cached: a second run is quick).
    await script(path.join(root, 'tools', 'images', 'engine.sh'));
    await script(path.join(root, 'tools', 'images', 'build.sh'));
    mark('engine and images ready');

    receiver = await startLoadReceiver({ listenHost: '0.0.0.0', publicHost: HOST });
    smtp = await startSmtpServer({ listenHost: '0.0.0.0', publicHost: HOST });
    const caFile = path.join(scratch, 'test-ca.pem');
    writeFileSync(caFile, inject('testTls').ca.cert);
    const [apiPort, temporalPort, uiPort, postgresPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    project.env = {
      POSTGRES_PASSWORD: randomBytes(18).toString('hex'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      API_PORT: String(apiPort),
      TEMPORAL_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(uiPort),
      PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
      DASHBOARD_URL: `http://127.0.0.1:${apiPort}`,
    };
    // What only the test adds: the receivers on this machine, trusted and allowed; quick retries;
    // Postgres published for the membership check.
    const app = {
      extra_hosts: [`${HOST}:host-gateway`],
      volumes: [`${caFile}:/run/test-ca.pem:ro`],
      environment: {
        NODE_EXTRA_CA_CERTS: '/run/test-ca.pem',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        SMTP_URL: smtp.url,
        DEFAULT_PLAN: 'business',
        WEBHOOK_RETRY_SCHEDULE: '1s,2s,3s,5s,8s,10s,10s,15s',
        LOG_LEVEL: 'warn',
      },
    };
    project.overrideFile = path.join(scratch, 'docker-compose.test.yml');
    writeOverride(project.overrideFile, {
      api: app,
      worker: app,
      postgres: { ports: [`127.0.0.1:${postgresPort}:5432`] },
    });
    up = true;
    await compose(project, ['up', '--build', '--wait', '--scale', 'worker=2', '--quiet-pull'], 1_200_000);
    mark('compose up: every service healthy');
    db = new Pool({
      connectionString: `postgresql://gateway:${project.env.POSTGRES_PASSWORD}@127.0.0.1:${postgresPort}/temporal`,
      max: 1,
    });
  }, 1_500_000);

  afterAll(async () => {
    console.log(`compose timeline:\n  ${timeline.join('\n  ')}`);
    await db?.end();
    if (up && !finished) {
      console.log(
        `--- last lines of the project's containers\n${await compose(project, ['logs', '--tail', '40']).catch(String)}`,
      );
    }
    if (up) await compose(project, ['down', '-v', '--remove-orphans', '--timeout', '20']).catch(console.error);
    await receiver?.close();
    await smtp?.close();
    rmSync(scratch, { recursive: true, force: true });
  }, 300_000);

  it('sends 2,000 recipients while a Temporal server and a worker are killed, then leaves nothing behind', async () => {
    const temporal2 = (await containers(project, 'temporal-2'))[0];
    const worker = (await containers(project, 'worker'))[0];
    let killedAt: Date | undefined;
    let workerStarts = 0;

    const kill = async () => {
      workerStarts = (await inspect(worker)).restartCount;
      const pid = Number((await docker(['inspect', '--format', '{{.State.Pid}}', worker])).trim());
      killedAt = new Date();
      await docker(['kill', temporal2]);
      process.kill(pid, 'SIGKILL');
      // The worker counts as dead once it is not running or has already been restarted.
      const workerDied = async () => {
        const state = await inspect(worker);
        return state.status !== 'running' || state.restartCount > workerStarts;
      };
      await until('temporal-2 and the worker to be dead', 30_000, async () =>
        (await inspect(temporal2)).status === 'exited' && (await workerDied()) ? true : undefined,
      );
    };

    const recovered = async () => {
      await docker(['start', temporal2]);
      await until('temporal-2 and the worker to run again, healthy', 180_000, async () => {
        const [server, work] = [await inspect(temporal2), await inspect(worker)];
        const healthy = async (id: string) =>
          (await docker(['inspect', '--format', '{{.State.Health.Status}}', id])).trim() === 'healthy';
        return server.status === 'running' &&
          work.status === 'running' &&
          work.restartCount > workerStarts &&
          (await healthy(temporal2)) &&
          (await healthy(worker))
          ? true
          : undefined;
      });
    };

    // Both servers alive: each service of each container has a row with a recent heartbeat (rows
    // outlive their process: record_expiry is 48 h ahead), the restarted one's begun after the kill.
    const checkMembership = async () => {
      const address = async (id: string) =>
        (await docker(['inspect', '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', id])).trim();
      const servers = [
        { id: (await containers(project, 'temporal-1'))[0], restarted: false },
        { id: temporal2, restarted: true },
      ];
      const notAlive = async () => {
        const { rows } = await db!.query<{ address: string; port: number; after_kill: boolean; recent: boolean }>(
          `select rpc_address as address, rpc_port as port,
                  session_start > ($1::timestamptz at time zone 'UTC') as after_kill,
                  last_heartbeat > (now() at time zone 'UTC') - interval '45 seconds' as recent
             from cluster_membership`,
          [killedAt!.toISOString()],
        );
        const missing: string[] = [];
        for (const server of servers) {
          const ip = await address(server.id);
          for (const port of MEMBERSHIP_PORTS) {
            const alive = rows.some(
              (r) => r.address === ip && r.port === port && r.recent && (r.after_kill || !server.restarted),
            );
            if (!alive) missing.push(`${ip}:${port}${server.restarted ? ' (restarted)' : ''}`);
          }
        }
        return missing;
      };
      await expect.poll(notAlive, { timeout: 60_000, interval: 1000 }).toEqual([]);
    };

    const result = await runClusterLoad({
      apiUrls: [`http://127.0.0.1:${project.env.API_PORT}`],
      temporalAddress: `127.0.0.1:${project.env.TEMPORAL_PORT}`,
      namespace: 'default',
      receiver: receiver!,
      verificationCode: (email) => smtp!.codeFor(email, 30_000),
      kill,
      recovered,
      checkMembership,
      mark,
    });
    mark(`load checked: ${result.delivered} delivered, ${result.failed} failed, ${result.deliveries} deliveries`);

    await compose(project, ['down', '-v', '--remove-orphans', '--timeout', '20']);
    up = false;
    expect(await leftovers(project.name)).toEqual([]);
    finished = true;
  }, 1_200_000);
});
