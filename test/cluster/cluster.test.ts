import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalCacheDir } from '../../src/config';
import { startCluster, type Cluster } from '../../src/dev/cluster';
import { MEMBERSHIP_PORTS_PER_NODE, nodePorts, portsForNodes } from '../../src/dev/temporal-cluster';
import { createLogger } from '../../src/lib/logger';
import { runClusterLoad, startLoadReceiver, type LoadReceiver } from '../support/cluster-load';
import { freePort, freePortRun } from '../support/net';
import { startSmtpServer } from '../support/smtp';
import { baseEnv, root, until } from '../support/stack';

// The production shape, exercised (`npm run cluster`, src/dev/cluster.ts): the compiled build's two
// api and two worker processes on a Temporal cluster of two server processes on Postgres, under the
// load of test/support/cluster-load.ts (2,000 recipients through both api processes to two simulated
// phones, each phone on its own api, failed messages reported to an HTTPS webhook endpoint, and its
// checks). What is this shape's own is here: its processes, the fault (one Temporal server process and
// one worker killed with SIGKILL, their supervisor starting them again, as compose or Kubernetes
// would) and the servers' membership in the cluster_membership table.

const TASK_QUEUE = 'phone-gateway';
const dataDir = path.join(root, '.test-data', `cluster-${process.pid}`);

describe('the cluster: two Temporal servers, two api and two worker processes of the compiled build', () => {
  let cluster: Cluster | undefined;
  let receiver: LoadReceiver | undefined;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>> | undefined;
  const output: string[] = [];
  const timeline: string[] = [];
  const fetches: string[] = [];
  let finished = false;
  const began = Date.now();
  const mark = (what: string) => timeline.push(`${((Date.now() - began) / 1000).toFixed(1)} s ${what}`);

  beforeAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    smtp = await startSmtpServer();
    receiver = await startLoadReceiver({ since: began });
    // Both server processes' ports in one run, so the two never overlap.
    const run = await freePortRun(portsForNodes(2));
    const apiPorts = [await freePort(), await freePort()];
    cluster = await startCluster({
      dataDir,
      cacheDir: temporalCacheDir(),
      postgresPort: await freePort(),
      temporalPort: await freePort(),
      nodes: nodePorts(run, 2),
      apiPorts,
      workers: 2,
      namespace: 'default',
      env: {
        ...baseEnv(),
        // The test CA (global setup): the workers trust the local HTTPS receiver.
        NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS,
        NODE_ENV: 'production',
        TEMPORAL_TASK_QUEUE: TASK_QUEUE,
        SMTP_URL: smtp.url,
        DEFAULT_PLAN: 'business',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // Retries within the test's time.
        WEBHOOK_RETRY_SCHEDULE: '1s,2s,3s,5s,8s,10s,10s,15s',
        LOG_LEVEL: 'warn',
      },
      persistent: false,
      logger: createLogger('warn', { write: (line: string) => void output.push(line.trim()) }),
      onLine: (name, line) => {
        output.push(`${name} | ${line}`);
        if (output.length > 400) output.shift();
      },
    });
    mark('cluster up');
  }, 300_000);

  afterAll(async () => {
    console.log(`cluster timeline:\n  ${timeline.join('\n  ')}`);
    if (!finished) {
      console.log(`--- last lines of the cluster's processes\n${output.slice(-120).join('\n')}`);
      console.log(`--- outbox fetches\n${fetches.slice(0, 40).join('\n')}\n...\n${fetches.slice(-20).join('\n')}`);
    }
    await cluster?.stop();
    await receiver?.close();
    await smtp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('sends 2,000 recipients through both api processes while a Temporal server and a worker are killed', async () => {
    const c = cluster!;
    // kill -9 of the second Temporal server and the first worker; both come back (their supervisor)
    // as new processes.
    let killed: { node: number | undefined; worker: number | undefined; at: Date } | undefined;
    const kill = async () => {
      const node = c.nodes[1].current();
      const worker = c.workers[0].current();
      killed = { node: node.pid, worker: worker.pid, at: new Date() };
      process.kill(node.pid!, 'SIGKILL');
      process.kill(worker.pid!, 'SIGKILL');
      expect(await node.exited).toBe('killed by SIGKILL');
      expect(await worker.exited).toBe('killed by SIGKILL');
    };
    const recovered = async () =>
      void (await until('temporal-2 and worker-1 to run again', 120_000, () =>
        c.nodes[1].current().pid !== killed!.node && c.workers[0].current().pid !== killed!.worker ? true : undefined,
      ));

    // Two servers again: every service of each process alive in the cluster's membership table. Rows
    // outlive their process (Temporal writes record_expiry 48 h ahead), so alive is a heartbeat in the
    // last 45 s (Temporal upserts one every 10-15 s and trusts 20 s itself), and the killed server's
    // services must have a session begun after the kill: its old rows are the dead process's.
    const checkMembership = async () => {
      const temporalDb = new URL(c.databaseUrl);
      temporalDb.pathname = '/temporal';
      const membership = new Pool({ connectionString: temporalDb.toString(), max: 1 });
      try {
        const servicePorts = (n: Cluster['nodes'][number]) =>
          Array.from({ length: MEMBERSHIP_PORTS_PER_NODE }, (_, i) => n.current().membershipPortBase + i);
        const restarted = new Set(servicePorts(c.nodes[1]));
        const notAlive = async () => {
          // Temporal writes UTC into `timestamp` columns: compared in UTC, whatever the session's zone.
          const { rows } = await membership.query<{ port: number; after_kill: boolean; recent: boolean }>(
            `select rpc_port as port, session_start > ($1::timestamptz at time zone 'UTC') as after_kill,
                    last_heartbeat > (now() at time zone 'UTC') - interval '45 seconds' as recent
               from cluster_membership`,
            [killed!.at.toISOString()],
          );
          return c.nodes
            .flatMap(servicePorts)
            .filter((port) => !rows.some((r) => r.port === port && r.recent && (r.after_kill || !restarted.has(port))))
            .map(
              (port) =>
                `membership port ${port}: none of its ${rows.filter((r) => r.port === port).length} rows has a heartbeat` +
                ` in the last 45 s${restarted.has(port) ? ' and a session begun after the kill' : ''}`,
            );
        };
        await expect.poll(notAlive, { timeout: 60_000, interval: 1000 }).toEqual([]);
      } finally {
        await membership.end();
      }
    };

    await runClusterLoad({
      apiUrls: c.apis.map((api) => api.url),
      temporalAddress: c.temporalAddress,
      namespace: 'default',
      receiver: receiver!,
      verificationCode: (email) => smtp!.codeFor(email, 15_000),
      kill,
      recovered,
      checkMembership,
      log: (line) => {
        output.push(line);
        if (line.includes('outbox:')) fetches.push(`${((Date.now() - began) / 1000).toFixed(1)} s ${line}`);
      },
      mark,
    });
    finished = true;
  }, 600_000);
});
