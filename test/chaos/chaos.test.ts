import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/dev/embedded';
import { startTemporalDevServer, type DevServer } from '../../src/dev/temporal-dev-server';
import { createLogger } from '../../src/lib/logger';
import { SimulatedPhone } from '../../tools/phone/phone';
import { json, PASSWORD, sessionCookie, uniqueEmail } from '../support/accounts';
import { freePort } from '../support/net';
import {
  expectOneDeliveryPerEvent,
  messageStatuses,
  observeApi,
  openDeliveries,
  textsSent,
  type Hook,
} from '../support/observe-api';
import { startSmtpServer } from '../support/smtp';
import {
  apiReady,
  baseEnv,
  ENTRY,
  root,
  runMigrate,
  startNode,
  until,
  workerPolling,
  type Child,
} from '../support/stack';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { webhookQueueWorkflowId } from '../../workflows/definitions';

// Chaos on the split layout as an operator runs it: Postgres (embedded, persistent data folder), the
// Temporal dev server (state in its sqlite file), `npm run migrate`, then the api and the worker as
// processes of their own. 1,000 recipients over three simulated phones and an HTTPS webhook endpoint
// while the worker is killed with SIGKILL three times and the api, the dev server and Postgres once
// each, every one started again on the same ports. Then: every message final and sent exactly once,
// none handed out after the service accepted its outcome, one delivery per event whose retries keep
// its id, attempt numbers without gaps, and no 5xx once everything is back.

const RECIPIENTS = 1000;
const WAVES = 10;
const PHONES = 3;
const TASK_QUEUE = 'phone-gateway';
// Texts the phones must send between two steps, so every kill lands on traffic in flight.
const PROGRESS = 25;
// The webhook takes message.failed, about this share of the messages. Each delivery is a workflow of
// its own, some 75 ms of the dev server's CPU (measured here): a few hundred fit the time on two
// shared cores, a thousand or two do not.
const FAILURE_RATIO = 0.2;

const dataDir = path.join(root, '.test-data', `chaos-${process.pid}`);
const recipient = (i: number) => `+1415555${String(i).padStart(4, '0')}`;

describe('chaos: kill -9 of the worker, the api, the dev server and Postgres under load', () => {
  const ports = { api: 0, postgres: 0, temporal: 0, ui: 0 };
  let base = '';
  let postgres: EmbeddedPostgres | undefined;
  let devServer: DevServer | undefined;
  let api: Child | undefined;
  let worker: Child | undefined;
  let temporal: Client | undefined;
  let receiver: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let observed: ReturnType<typeof observeApi>;
  let db: Pool | undefined;
  const phones: SimulatedPhone[] = [];
  const phoneLog: string[] = [];
  const devServerLog: string[] = [];
  const timeline: string[] = [];
  let finished = false;
  const began = Date.now();
  const mark = (what: string) => timeline.push(`${((Date.now() - began) / 1000).toFixed(1)} s ${what}`);
  // Webhook deliveries whose first request is answered 503, to have retries; by the id's first digit.
  const failFirst = (deliveryId: string) => /^[0-1]/.test(deliveryId);
  const hooks: Hook[] = [];

  const postgresDir = path.join(dataDir, 'postgres');
  const devServerConfig = () =>
    loadConfig(
      { PHONE_GATEWAY_CACHE: process.env.PHONE_GATEWAY_CACHE, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME },
      { DATA_DIR: dataDir, TEMPORAL_DEV_PORT: String(ports.temporal), TEMPORAL_UI_PORT: String(ports.ui) },
    );
  const devServerLogger = createLogger('warn', { write: (line: string) => void devServerLog.push(line.trim()) });

  const startPostgres = () =>
    startEmbeddedPostgres({ dir: postgresDir, port: ports.postgres, database: 'chaos', persistent: true });
  const env = () => ({
    ...baseEnv(),
    // The test CA (global setup): the worker trusts the local HTTPS receiver.
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS,
    DATABASE_URL: postgres!.url,
    TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    PORT: String(ports.api),
    DATA_DIR: path.join(dataDir, 'unused'),
    SMTP_URL: smtp.url,
    DEFAULT_PLAN: 'business',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // Retries within the test's time: nine attempts over about a minute.
    WEBHOOK_RETRY_SCHEDULE: '1s,2s,3s,5s,8s,10s,10s,15s',
    LOG_LEVEL: 'warn',
  });
  const startApi = () => (api = startNode('api', ENTRY.api, { ...env(), PGAPPNAME: 'api' }));
  const startWorker = () => (worker = startNode('worker', ENTRY.worker, { ...env(), PGAPPNAME: 'worker' }));
  const children = () => [api, worker].filter((c): c is Child => c !== undefined);
  const pidOf = (child: Child | undefined) => child!.process.pid!;
  const devServerPid = () =>
    (JSON.parse(readFileSync(path.join(dataDir, 'temporal', 'dev-server.pid'), 'utf8')) as { pid: number }).pid;
  const postmasterPid = () => Number(readFileSync(path.join(postgresDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

  /** The deliveries still open: their rows, what the endpoint saw, and their webhook's queue workflow. */
  async function printOpenDeliveries(): Promise<void> {
    const pool = new Pool({ connectionString: postgres!.url, max: 1 });
    try {
      const { rows } = await pool.query<{ id: string; webhook_id: string }>(
        `select id, webhook_id, status, attempt_count, next_attempt_at, created_at from webhook_deliveries
          where status <> 'delivered' order by created_at limit 10`,
      );
      for (const row of rows) {
        const seen = hooks.filter((h) => h.deliveryId === row.id).map((h) => `${h.at} s → ${h.answered}`);
        const described = await temporal?.workflow
          .getHandle(webhookQueueWorkflowId(row.webhook_id))
          .describe()
          .then((d) => ({ status: d.status.name, pending: d.raw.pendingActivities }))
          .catch((error: Error) => error.message);
        console.log(
          `--- delivery ${JSON.stringify(row)}\n  endpoint: ${seen.join(', ')}\n  workflow: ${JSON.stringify(described)}`,
        );
      }
    } finally {
      await pool.end();
    }
  }

  async function killed(child: Child): Promise<void> {
    process.kill(pidOf(child), 'SIGKILL');
    expect(await child.exited).toBe('killed by SIGKILL');
  }

  beforeAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    ports.api = await freePort();
    ports.postgres = await freePort();
    ports.temporal = await freePort();
    ports.ui = await freePort();
    base = `http://127.0.0.1:${ports.api}`;
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
    observed = observeApi(base);
    [postgres, devServer] = await Promise.all([
      startPostgres(),
      startTemporalDevServer(devServerConfig(), devServerLogger),
    ]);
    await runMigrate(env());
    startApi();
    startWorker();
    temporal = new Client({
      connection: await Connection.connect({ address: `127.0.0.1:${ports.temporal}` }),
      namespace: 'default',
    });
    await apiReady(base, children());
    await workerPolling(temporal, TASK_QUEUE, children(), { pid: pidOf(worker) });
    mark('stack up');
  }, 240_000);

  afterAll(async () => {
    // What happened when, and on failure what the processes said last.
    console.log(`chaos timeline:\n  ${timeline.join('\n  ')}`);
    if (!finished) {
      for (const child of children()) console.log(`--- ${child.name} (last lines)\n${child.output().slice(-6000)}`);
      console.log(`--- dev server\n${devServerLog.slice(-20).join('\n')}`);
      console.log(`--- phones\n${phoneLog.slice(-40).join('\n')}`);
      await printOpenDeliveries().catch((error: Error) => console.log(`(deliveries: ${error.message})`));
    }
    await Promise.all(phones.map((phone) => phone.stop()));
    observed?.restore();
    for (const child of children()) if (child.running()) process.kill(pidOf(child), 'SIGKILL');
    await Promise.all(children().map((child) => child.exited));
    await temporal?.connection.close();
    await db?.end();
    await devServer?.stop();
    await postgres?.stop();
    await receiver?.close();
    await smtp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('loses nothing, sends nothing twice and answers no 5xx once everything is back', async () => {
    const call = async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(base + p, json(method, body, headers));

    // An account as a person makes one: register, the mailed code, an API key, a webhook.
    const email = uniqueEmail('chaos');
    const registered = await call('POST', '/v1/auth/register', { email, password: PASSWORD });
    expect(registered.status).toBe(201);
    const cookie = sessionCookie(registered);
    const code = await smtp.codeFor(email, 15_000);
    expect((await call('POST', '/v1/auth/verify-email', { code }, { cookie })).status).toBe(200);
    const keyRes = await call('POST', '/v1/api-keys', { name: 'chaos' }, { cookie });
    expect(keyRes.status).toBe(201);
    const key = ((await keyRes.json()) as { key: string }).key;
    const withKey = (method: string, p: string, body?: unknown) => call(method, p, body, { 'x-api-key': key });
    const webhook = await withKey('POST', '/v1/webhooks', {
      url: receiver.url,
      events: ['message.failed'],
    });
    expect(webhook.status).toBe(201);

    for (let i = 0; i < PHONES; i++) {
      const pairing = await withKey('POST', '/v1/devices/pairing-codes');
      const phone = new SimulatedPhone({
        server: base,
        code: ((await pairing.json()) as { code: string }).code,
        label: `phone ${i + 1}`,
        pollSeconds: 0.5,
        sentAfterMs: 150,
        deliveredAfterMs: 1000,
        failureRatio: FAILURE_RATIO,
        log: (line) => phoneLog.push(line),
      });
      phones.push(phone);
      await phone.start();
    }
    const sentTexts = () => phones.reduce((sum, phone) => sum + phone.sendCounts.size, 0);

    // Sends go out in waves, one batch per phone each, so that every step below finds work queued.
    const batchIds: string[] = [];
    const messageIds: string[] = [];
    let wave = 0;
    async function sendWave(): Promise<void> {
      const from = (wave * RECIPIENTS) / WAVES;
      const to = Array.from({ length: RECIPIENTS / WAVES }, (_, i) => recipient(from + i));
      for (let p = 0; p < PHONES; p++) {
        const share = to.filter((_, i) => i % PHONES === p);
        // A refusal during an outage (503: nothing was written) is tried again; a send answered at all
        // is never repeated, so each recipient is accepted exactly once.
        const accepted = await until(
          `wave ${wave + 1} to be accepted`,
          60_000,
          async () => {
            const res = await withKey('POST', '/v1/messages', {
              body: `chaos wave ${wave + 1} from phone ${p + 1}`,
              to: share,
              device_id: phones[p].deviceId,
            });
            if (res.status === 503) return undefined;
            expect(res.status).toBe(202);
            return (await res.json()) as { batch: { id: string }; message_ids: string[] };
          },
          500,
        );
        batchIds.push(accepted.batch.id);
        messageIds.push(...accepted.message_ids);
      }
      wave++;
      mark(`wave ${wave} accepted`);
    }
    /** Traffic between two steps: the phones send PROGRESS more texts (a wave first if few are left). */
    async function traffic(): Promise<void> {
      if (messageIds.length - sentTexts() < 2 * PROGRESS && wave < WAVES) await sendWave();
      const target = Math.min(sentTexts() + PROGRESS, messageIds.length);
      await expect.poll(sentTexts, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(target);
    }
    async function killWorker(): Promise<void> {
      await killed(worker!);
      mark('worker killed');
      // Sends keep being accepted while no worker runs.
      if (wave < WAVES) await sendWave();
      startWorker();
      await workerPolling(temporal!, TASK_QUEUE, children(), { pid: pidOf(worker) });
      mark('worker back');
    }

    // The dev server first: accepted sends and reports wait for it, and the workflows it could not
    // start meanwhile are started by the reconciler (within about 90 s), while the rest goes on.
    await traffic();
    process.kill(devServerPid(), 'SIGKILL');
    expect(await devServer!.exited).toBe('killed by SIGKILL');
    mark('dev server killed');
    if (wave < WAVES) await sendWave();
    await traffic();
    devServer = await startTemporalDevServer(devServerConfig(), devServerLogger);
    await apiReady(base, children());
    await workerPolling(temporal!, TASK_QUEUE, children(), { pid: pidOf(worker) });
    mark('dev server back');
    await traffic();
    await killWorker();
    await traffic();

    // The api: the phones lose their live channel and poll, their reports wait.
    await killed(api!);
    mark('api killed');
    await expect.poll(() => phones.every((phone) => !phone.live), { timeout: 30_000 }).toBe(true);
    startApi();
    await apiReady(base, children());
    mark('api back');
    await traffic();

    // Postgres: the api answers 503 meanwhile, activities fail and are retried.
    process.kill(postmasterPid(), 'SIGKILL');
    expect(await postgres!.exited).toBe('killed by SIGKILL');
    mark('postgres killed');
    await expect
      .poll(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status, { timeout: 30_000 })
      .toBe(503);
    // Its backends outlive it for a moment, holding the shared memory the next start needs.
    postgres = await until('postgres to start again', 60_000, () => startPostgres().catch(() => undefined), 500);
    await apiReady(base, children());
    mark('postgres back');
    await traffic();
    await killWorker();
    await traffic();
    await killWorker();
    await apiReady(base, children());
    const recoveredAt = Date.now();
    mark('all back');
    while (wave < WAVES) await sendWave();

    // Every message final: sent by its phone and its outcome recorded.
    expect(messageIds).toHaveLength(RECIPIENTS);
    const batches = async () =>
      ((await (await withKey('GET', '/v1/batches?limit=100')).json()) as { data: Array<Record<string, unknown>> }).data;
    // Final: delivered or failed (`sent` still waits for its delivery report).
    const unsettled = (batch: Record<string, unknown>) =>
      batch.status !== 'completed' ||
      (batch.delivered_count as number) + (batch.failed_count as number) !== batch.recipient_count;
    await expect
      .poll(async () => (await batches()).filter(unsettled).length, { timeout: 120_000, interval: 1000 })
      .toBe(0);
    mark('every message delivered or failed');
    const statuses = await messageStatuses((p) => withKey('GET', p));
    expect(statuses.size).toBe(RECIPIENTS);
    const byStatus = (status: string) => messageIds.filter((id) => statuses.get(id) === status);
    expect(byStatus('delivered').length + byStatus('failed').length).toBe(RECIPIENTS);
    expect((await batches()).length).toBe(batchIds.length);

    // No text sent twice: each message went out exactly once, from one phone.
    const sends = textsSent(phones);
    expect(sends.size).toBe(RECIPIENTS);
    expect(Math.max(...sends.values())).toBe(1);

    // None handed out by an outbox fetch that began after the service had accepted its outcome.
    const lateHandOuts = observed.handOuts.filter(
      (h) => observed.acceptedAt.has(h.id) && h.requestedAt > observed.acceptedAt.get(h.id)!,
    );
    expect(lateHandOuts).toEqual([]);
    expect(observed.acceptedAt.size).toBe(RECIPIENTS);

    // Webhooks: each message's events reached the endpoint, answered 2xx.
    const expected = messageIds.flatMap((id) => (statuses.get(id) === 'failed' ? [`${id} message.failed`] : []));
    const delivered = () => new Set(hooks.filter((h) => h.answered === 200).map((h) => `${h.messageId} ${h.event}`));
    await expect
      .poll(() => expected.filter((e) => !delivered().has(e)).length, { timeout: 120_000, interval: 1000 })
      .toBe(0);
    mark('every event answered 2xx by the endpoint');
    // And recorded so: an attempt cut by a kill after the endpoint answered is made again.
    await expect.poll(() => openDeliveries((p) => withKey('GET', p)), { timeout: 150_000, interval: 1000 }).toBe(0);
    mark('every delivery recorded delivered');
    expect(delivered().size).toBe(expected.length);
    // One event per (message, event name), and one delivery per event: its retries keep its id.
    const { deliveriesOf } = expectOneDeliveryPerEvent(hooks);

    // Attempt numbers 1..n without gaps, n the delivery's attempt_count, every delivery delivered:
    // the attempt log is storage the API does not list, so it is read from the database.
    db = new Pool({ connectionString: postgres!.url, max: 1 });
    const { rows } = await db.query<{
      id: string;
      status: string;
      attempt_count: number;
      numbers: number[];
      outcomes: string[];
    }>(
      `select d.id, d.status, d.attempt_count, array_agg(a.attempt_number order by a.attempt_number) as numbers,
              array_agg(coalesce(a.http_status::text, a.error) order by a.attempt_number) as outcomes
         from webhook_deliveries d left join webhook_attempts a on a.delivery_id = d.id
        group by d.id`,
    );
    expect(rows).toHaveLength(deliveriesOf.size);
    for (const row of rows) {
      expect(row, row.id).toMatchObject({ status: 'delivered' });
      expect(row.numbers, row.id).toEqual(Array.from({ length: row.attempt_count }, (_, i) => i + 1));
      // The endpoint saw at least as many requests (an attempt cut by a kill is made again). It is
      // never down here, so no attempt is one it did not receive: not even a request on a kept-alive
      // connection it had closed (sent again on a new one, test/webhooks/delivery-queue.test.ts).
      const seen = hooks.filter((h) => h.deliveryId === row.id);
      expect(
        seen.length,
        `${row.id}: attempts ${row.outcomes.join(', ')}; endpoint saw ${seen.length}`,
      ).toBeGreaterThanOrEqual(row.attempt_count);
    }

    // No 5xx once everything was back, and no request left without an answer.
    const late = observed.seen.filter((r) => r.startedAt >= recoveredAt && (r.status >= 500 || r.status === 0));
    expect(late).toEqual([]);

    const handedOutAgain = phoneLog.filter((line) => line.includes('handed out again')).length;
    mark(
      `done: ${byStatus('delivered').length} delivered, ${byStatus('failed').length} failed, ` +
        `${handedOutAgain} handed out again before their outcome reached the service, ` +
        `${hooks.length} webhook requests for ${deliveriesOf.size} deliveries`,
    );
    finished = true;
  }, 360_000);
});
