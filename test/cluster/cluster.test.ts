import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalCacheDir } from '../../src/config';
import { startCluster, type Cluster } from '../../src/dev/cluster';
import { MEMBERSHIP_PORTS_PER_NODE, nodePorts, portsForNodes } from '../../src/dev/temporal-cluster';
import { createLogger } from '../../src/lib/logger';
import { SimulatedPhone } from '../../tools/phone/phone';
import { batchWorkflowId, deviceWorkflowId } from '../../workflows/definitions';
import { json, PASSWORD, sessionCookie, uniqueEmail } from '../support/accounts';
import { freePort, freePortRun } from '../support/net';
import {
  expectOneDeliveryPerEvent,
  messageStatuses,
  observeApi,
  openDeliveries,
  textsSent,
  type Hook,
} from '../support/observe-api';
import { startSmtpServer } from '../support/smtp';
import { baseEnv, root, until } from '../support/stack';
import { startReceiver, type Receiver } from '../webhooks/receiver';

// The production shape, exercised (`npm run cluster`, src/dev/cluster.ts): the compiled build's two
// api and two worker processes on a Temporal cluster of two server processes on Postgres. 2,000
// recipients sent through both api processes to two simulated phones, each phone on its own api,
// failed messages reported to an HTTPS webhook endpoint. Mid-way one Temporal server process and one
// worker are killed with SIGKILL (their supervisor starts them again, as compose or Kubernetes
// would). Then: every message final and sent exactly once, none handed out after its outcome was
// accepted, one delivery per (message, event) whose retries keep its id, every batch's workflow
// found by its search attributes through the cluster's SQL visibility, and each phone's liveness
// workflow still running.

const RECIPIENTS = 2000;
const WAVES = 20;
const TASK_QUEUE = 'phone-gateway';
const FAILURE_RATIO = 0.1;
const dataDir = path.join(root, '.test-data', `cluster-${process.pid}`);
const recipient = (i: number) => `+1415556${String(i).padStart(4, '0')}`;

describe('the cluster: two Temporal servers, two api and two worker processes of the compiled build', () => {
  let cluster: Cluster | undefined;
  let temporal: Client | undefined;
  let receiver: Receiver | undefined;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>> | undefined;
  let observed: ReturnType<typeof observeApi> | undefined;
  let db: Pool | undefined;
  const phones: SimulatedPhone[] = [];
  const output: string[] = [];
  const timeline: string[] = [];
  const hooks: Hook[] = [];
  const fetches: string[] = [];
  let finished = false;
  const began = Date.now();
  const mark = (what: string) => timeline.push(`${((Date.now() - began) / 1000).toFixed(1)} s ${what}`);
  // Deliveries whose first request is answered 503, to have retries; by the id's first digit.
  const failFirst = (deliveryId: string) => /^[0-1]/.test(deliveryId);

  beforeAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    smtp = await startSmtpServer();
    receiver = await startReceiver((request) => {
      const body = JSON.parse(request.raw) as { id: string; data: { id: string } };
      const first = !hooks.some((hook) => hook.deliveryId === request.deliveryId);
      const hook: Hook = {
        id: body.id,
        event: request.event,
        messageId: body.data.id,
        deliveryId: request.deliveryId,
        at: ((Date.now() - began) / 1000).toFixed(1),
      };
      hooks.push(hook);
      hook.answered = first && failFirst(request.deliveryId) ? 503 : 200;
      return { status: hook.answered, body: hook.answered === 200 ? 'ok' : 'try later' };
    });
    // Both server processes' ports in one run, so the two never overlap.
    const run = await freePortRun(portsForNodes(2));
    const apiPorts = [await freePort(), await freePort()];
    observed = observeApi(apiPorts.map((port) => `http://127.0.0.1:${port}`));
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
    temporal = new Client({
      connection: await Connection.connect({ address: cluster.temporalAddress }),
      namespace: 'default',
    });
    mark('cluster up');
  }, 300_000);

  afterAll(async () => {
    console.log(`cluster timeline:\n  ${timeline.join('\n  ')}`);
    if (!finished) {
      console.log(`--- last lines of the cluster's processes\n${output.slice(-120).join('\n')}`);
      console.log(`--- outbox fetches\n${fetches.slice(0, 40).join('\n')}\n...\n${fetches.slice(-20).join('\n')}`);
    }
    await Promise.all(phones.map((phone) => phone.stop()));
    observed?.restore();
    await temporal?.connection.close();
    await db?.end();
    await cluster?.stop();
    await receiver?.close();
    await smtp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('sends 2,000 recipients through both api processes while a Temporal server and a worker are killed', async () => {
    const [api1, api2] = cluster!.apis.map((api) => api.url);
    const call = async (
      base: string,
      method: string,
      p: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => fetch(base + p, json(method, body, headers));

    // An account as a person makes one, on the first api: register, the mailed code, an API key, a webhook.
    const email = uniqueEmail('cluster');
    const registered = await call(api1, 'POST', '/v1/auth/register', { email, password: PASSWORD });
    expect(registered.status).toBe(201);
    const cookie = sessionCookie(registered);
    const code = await smtp!.codeFor(email, 15_000);
    expect((await call(api1, 'POST', '/v1/auth/verify-email', { code }, { cookie })).status).toBe(200);
    const keyRes = await call(api1, 'POST', '/v1/api-keys', { name: 'cluster' }, { cookie });
    expect(keyRes.status).toBe(201);
    const key = ((await keyRes.json()) as { key: string }).key;
    const withKey = (base: string, method: string, p: string, body?: unknown) =>
      call(base, method, p, body, { 'x-api-key': key });
    expect(
      (await withKey(api2, 'POST', '/v1/webhooks', { url: receiver!.url, events: ['message.failed'] })).status,
    ).toBe(201);

    // One phone on each api process, on its live channel: told of the sends that came through the
    // other api process, and of the rest of a send once it has reported a page.
    for (const [i, base] of [api1, api2].entries()) {
      const pairing = await withKey(base, 'POST', '/v1/devices/pairing-codes');
      expect(pairing.status).toBe(201);
      const phone = new SimulatedPhone({
        server: base,
        code: ((await pairing.json()) as { code: string }).code,
        label: `phone ${i + 1}`,
        pollSeconds: 0.5,
        sentAfterMs: 100,
        deliveredAfterMs: 500,
        failureRatio: FAILURE_RATIO,
        log: (line) => {
          output.push(line);
          if (line.includes('outbox:')) fetches.push(`${((Date.now() - began) / 1000).toFixed(1)} s ${line}`);
        },
      });
      phones.push(phone);
      await phone.start();
    }
    const sentTexts = () => phones.reduce((sum, phone) => sum + phone.sendCounts.size, 0);

    // Waves of one batch per phone, each wave through the other api process.
    const batchesOf = new Map<string, string[]>(phones.map((phone) => [phone.deviceId!, []]));
    const messageIds: string[] = [];
    let wave = 0;
    async function sendWave(): Promise<void> {
      const base = wave % 2 === 0 ? api1 : api2;
      const from = (wave * RECIPIENTS) / WAVES;
      const to = Array.from({ length: RECIPIENTS / WAVES }, (_, i) => recipient(from + i));
      for (const [p, phone] of phones.entries()) {
        const res = await withKey(base, 'POST', '/v1/messages', {
          body: `cluster wave ${wave + 1} from phone ${p + 1}`,
          to: to.filter((_, i) => i % phones.length === p),
          device_id: phone.deviceId,
        });
        expect(res.status).toBe(202);
        const accepted = (await res.json()) as { batch: { id: string }; message_ids: string[] };
        batchesOf.get(phone.deviceId!)!.push(accepted.batch.id);
        messageIds.push(...accepted.message_ids);
      }
      wave++;
    }

    // Half the waves, and the phones well into them.
    while (wave < WAVES / 2) await sendWave();
    mark(`${messageIds.length} recipients accepted`);
    await expect.poll(sentTexts, { timeout: 300_000, interval: 200 }).toBeGreaterThanOrEqual(RECIPIENTS / 4);
    mark(`${sentTexts()} texts sent`);

    // kill -9 of the second Temporal server and the first worker, with work in flight.
    const node = cluster!.nodes[1].current();
    const worker = cluster!.workers[0].current();
    const killedAt = new Date();
    process.kill(node.pid!, 'SIGKILL');
    process.kill(worker.pid!, 'SIGKILL');
    expect(await node.exited).toBe('killed by SIGKILL');
    expect(await worker.exited).toBe('killed by SIGKILL');
    mark('temporal-2 and worker-1 killed');

    // Sends go on meanwhile: the api processes reach the surviving server through the one address.
    while (wave < WAVES) await sendWave();
    mark(`${messageIds.length} recipients accepted`);
    expect(messageIds).toHaveLength(RECIPIENTS);
    // Both came back (their supervisor), as new processes.
    await until('temporal-2 and worker-1 to run again', 120_000, () =>
      cluster!.nodes[1].current().pid !== node.pid && cluster!.workers[0].current().pid !== worker.pid
        ? true
        : undefined,
    );
    mark('temporal-2 and worker-1 running again');

    // Every message final: delivered or failed, its batch completed; the phones told so all along.
    expect(phones.map((phone) => phone.live)).toEqual([true, true]);
    const batches = async () =>
      ((await (await withKey(api1, 'GET', '/v1/batches?limit=100')).json()) as { data: Array<Record<string, unknown>> })
        .data;
    const unsettled = (batch: Record<string, unknown>) =>
      batch.status !== 'completed' ||
      (batch.delivered_count as number) + (batch.failed_count as number) !== batch.recipient_count;
    await expect
      .poll(async () => (await batches()).filter(unsettled).length, { timeout: 240_000, interval: 1000 })
      .toBe(0);
    mark('every message delivered or failed');
    const statuses = await messageStatuses((p) => withKey(api2, 'GET', p));
    expect(statuses.size).toBe(RECIPIENTS);
    const byStatus = (status: string) => messageIds.filter((id) => statuses.get(id) === status);
    expect(byStatus('delivered').length + byStatus('failed').length).toBe(RECIPIENTS);
    expect(byStatus('failed').length).toBeGreaterThan(0);

    // None sent twice: each message went out exactly once, from one phone.
    const sends = textsSent(phones);
    expect(sends.size).toBe(RECIPIENTS);
    expect(Math.max(...sends.values())).toBe(1);

    // None handed out by an outbox fetch that began after the service had accepted its outcome.
    const late = observed!.handOuts.filter(
      (h) => observed!.acceptedAt.has(h.id) && h.requestedAt > observed!.acceptedAt.get(h.id)!,
    );
    expect(late).toEqual([]);
    expect(observed!.acceptedAt.size).toBe(RECIPIENTS);

    // Webhooks: every failed message's event answered 2xx, and recorded delivered.
    const expected = byStatus('failed').map((id) => `${id} message.failed`);
    const delivered = () => new Set(hooks.filter((h) => h.answered === 200).map((h) => `${h.messageId} ${h.event}`));
    await expect
      .poll(() => expected.filter((e) => !delivered().has(e)).length, { timeout: 120_000, interval: 1000 })
      .toBe(0);
    await expect
      .poll(() => openDeliveries((p) => withKey(api1, 'GET', p)), { timeout: 120_000, interval: 1000 })
      .toBe(0);
    mark('every delivery recorded delivered');
    expect(delivered().size).toBe(expected.length);
    // Each delivery answered 200 exactly once: a set of (message, event) would hide a delivery the
    // service sent again after its endpoint had taken it (answered 200 twice).
    const oks = new Map<string, Hook[]>();
    for (const h of hooks)
      oks.set(h.deliveryId, [...(oks.get(h.deliveryId) ?? []), ...(h.answered === 200 ? [h] : [])]);
    expect(
      [...oks]
        .filter(([, ok]) => ok.length !== 1)
        .map(
          ([id, ok]) => `delivery ${id} answered 200 ${ok.length} times (at ${ok.map((h) => `${h.at} s`).join(', ')})`,
        ),
    ).toEqual([]);
    // One event per (message, event name), one delivery per event: its retries keep its id.
    const { deliveriesOf } = expectOneDeliveryPerEvent(hooks);

    // Every batch's workflow found by its search attributes, through the cluster's SQL visibility.
    db = new Pool({ connectionString: cluster!.databaseUrl, max: 1 });
    const userId = (await db.query<{ id: string }>('select id from users where email = $1', [email])).rows[0].id;
    for (const phone of phones) {
      const query =
        `WorkflowType = 'batchWorkflow' AND AccountId = '${userId}' AND DeviceId = '${phone.deviceId}'` +
        ` AND BatchStatus = 'settled'`;
      const wanted = batchesOf.get(phone.deviceId!)!.map(batchWorkflowId).sort();
      const found = async () => {
        const ids: string[] = [];
        for await (const execution of temporal!.workflow.list({ query })) ids.push(execution.workflowId);
        return ids.sort();
      };
      await expect.poll(found, { timeout: 60_000, interval: 1000 }).toEqual(wanted);
    }
    mark('every batch found settled by AccountId, DeviceId and BatchStatus');

    // Each phone's liveness workflow still running, and listed so.
    for (const phone of phones) {
      const liveness = await temporal!.workflow.getHandle(deviceWorkflowId(phone.deviceId!)).describe();
      expect(liveness.status.name).toBe('RUNNING');
      const listed: string[] = [];
      for await (const execution of temporal!.workflow.list({
        query: `DeviceId = '${phone.deviceId}' AND WorkflowType = 'deviceLivenessWorkflow' AND ExecutionStatus = 'Running'`,
      }))
        listed.push(execution.workflowId);
      expect(listed).toEqual([deviceWorkflowId(phone.deviceId!)]);
    }

    // Two servers again: every service of each process alive in the cluster's membership table. Rows
    // outlive their process (Temporal writes record_expiry 48 h ahead), so alive is a heartbeat in the
    // last 45 s (Temporal upserts one every 10-15 s and trusts 20 s itself), and the killed server's
    // services must have a session begun after the kill: its old rows are the dead process's.
    const temporalDb = new URL(cluster!.databaseUrl);
    temporalDb.pathname = '/temporal';
    const membership = new Pool({ connectionString: temporalDb.toString(), max: 1 });
    try {
      const servicePorts = (n: Cluster['nodes'][number]) =>
        Array.from({ length: MEMBERSHIP_PORTS_PER_NODE }, (_, i) => n.current().membershipPortBase + i);
      const restarted = new Set(servicePorts(cluster!.nodes[1]));
      const notAlive = async () => {
        // Temporal writes UTC into `timestamp` columns: compared in UTC, whatever the session's zone.
        const { rows } = await membership.query<{ port: number; after_kill: boolean; recent: boolean }>(
          `select rpc_port as port, session_start > ($1::timestamptz at time zone 'UTC') as after_kill,
                  last_heartbeat > (now() at time zone 'UTC') - interval '45 seconds' as recent
             from cluster_membership`,
          [killedAt.toISOString()],
        );
        return cluster!.nodes
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
    mark(
      `done: ${byStatus('delivered').length} delivered, ${byStatus('failed').length} failed, ` +
        `${hooks.length} webhook requests for ${deliveriesOf.size} deliveries`,
    );
    finished = true;
  }, 600_000);
});
