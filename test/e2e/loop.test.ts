import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePairUrl } from '../../tools/phone/api';
import { SimulatedPhone } from '../../tools/phone/phone';
import { json, PASSWORD, sessionCookie, uniqueEmail } from '../support/accounts';
import { readJson } from '../support/http';
import { freePort } from '../support/net';
import { startSmtpServer } from '../support/smtp';
import { startCommand } from '../support/start-script';
import { expectSigned } from '../webhooks/helpers';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { parseExposition, valueOf } from '../metrics/scrape';
import { until } from '../support/stack';

// The whole loop on the real stack, as a person would run it: `npm start` (embedded Postgres,
// Temporal dev server, api, worker) in a child process, mail through a local SMTP server, a
// simulated phone speaking the public /v1/device API and a local HTTPS webhook receiver. Everything
// here goes over HTTP; nothing reaches into the database.

const root = path.resolve(__dirname, '..', '..');
const dataDir = path.join(root, '.test-data', `e2e-loop-${process.pid}`);
const RECIPIENTS = ['+14155550101', '+14155550102', '+14155550103'];

function processesUsing(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}

function exited(child: ChildProcess, timeoutMs = 60_000): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`start command still running after ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('the whole loop: account, key, phone, send, webhooks, inbound, offline', () => {
  let child: ChildProcess;
  let output = '';
  let base: string;
  let metricsUrl: string;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let receiver: Receiver;
  let phone: SimulatedPhone | undefined;
  const phoneLog: string[] = [];

  beforeAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    smtp = await startSmtpServer();
    receiver = await startReceiver();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const start = startCommand();
    child = spawn(start.command, start.args, {
      cwd: root,
      env: {
        ...start.env,
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PHONE_GATEWAY_CACHE: process.env.PHONE_GATEWAY_CACHE,
        XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
        // The test CA (global setup), so the worker trusts the local HTTPS receiver.
        NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS,
        PORT: String(port),
        DATA_DIR: dataDir,
        EMBEDDED_POSTGRES_PORT: String(await freePort()),
        TEMPORAL_DEV_PORT: String(await freePort()),
        TEMPORAL_UI_PORT: String(await freePort()),
        METRICS_PORT: String(metricsPort),
        SMTP_URL: smtp.url,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        OFFLINE_AFTER_MISSED_HEARTBEATS: '1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    await until('readiness of the start command', 150_000, async () => {
      if (child.exitCode !== null) throw new Error(`start command exited with ${child.exitCode}\n${output}`);
      const res = await fetch(`${base}/readyz`).catch(() => undefined);
      return res?.status === 200 ? true : undefined;
    });
  }, 180_000);

  afterAll(async () => {
    await phone?.stop();
    if (child && child.exitCode === null) {
      // SIGTERM first: a SIGKILL would orphan the embedded Postgres and the dev server.
      child.kill('SIGTERM');
      await exited(child).catch(() => child.kill('SIGKILL'));
    }
    await receiver?.close();
    await smtp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 90_000);

  const api = (p: string, init?: RequestInit) => fetch(base + p, init);

  it('runs end to end and shuts down cleanly', async () => {
    // An account, verified with the code the local SMTP server received.
    const email = uniqueEmail('e2e');
    const registered = await api('/v1/auth/register', json('POST', { email, password: PASSWORD }));
    expect(registered.status).toBe(201);
    const cookie = sessionCookie(registered);
    const code = await smtp.codeFor(email, 15_000);
    const verified = await api('/v1/auth/verify-email', json('POST', { code }, { cookie }));
    expect(verified.status).toBe(200);
    expect((await readJson(verified)).user.email_verified_at).not.toBeNull();

    const keyRes = await api('/v1/api-keys', json('POST', { name: 'e2e' }, { cookie }));
    expect(keyRes.status).toBe(201);
    const { key } = await readJson(keyRes);
    const call = (method: string, p: string, body?: unknown) => api(p, json(method, body, { 'x-api-key': key }));

    // A simulated phone pairs through the pair URL of a fresh code.
    const codeRes = await call('POST', '/v1/devices/pairing-codes');
    expect(codeRes.status).toBe(201);
    const pairing = await readJson(codeRes);
    const fromUrl = parsePairUrl(pairing.pair_url);
    expect(fromUrl.code).toBe(pairing.code);
    phone = new SimulatedPhone({
      server: base,
      code: fromUrl.code,
      name: 'E2E phone',
      // Well inside the 1-minute interval set below, so the phone never looks silent while it heartbeats.
      heartbeatSeconds: 15,
      pollSeconds: 1,
      settingsSeconds: 1,
      sentAfterMs: 100,
      deliveredAfterMs: 300,
      log: (line) => phoneLog.push(line),
    });
    await phone.start();
    const deviceId = phone.deviceId!;
    const status = await readJson(await call('GET', `/v1/devices/pairing-codes/${pairing.id}`));
    expect(status).toMatchObject({ consumed: true, device: { id: deviceId, name: 'E2E phone', online: true } });

    const patched = await call('PATCH', `/v1/devices/${deviceId}`, {
      heartbeat_interval_minutes: 1,
      send_delay_seconds: 1,
    });
    expect(patched.status).toBe(200);
    expect((await readJson(patched)).device).toMatchObject({ heartbeat_interval_minutes: 1, send_delay_seconds: 1 });
    // The phone picks the new settings up on its own, through GET /v1/device.
    await until('the phone to reload its settings', 10_000, () =>
      phone!.device?.send_delay_seconds === 1 ? true : undefined,
    );

    const hookRes = await call('POST', '/v1/webhooks', {
      url: receiver.url,
      name: 'e2e receiver',
      events: ['message.sent', 'message.delivered', 'message.received', 'device.offline'],
    });
    expect(hookRes.status).toBe(201);
    const { secret } = await readJson(hookRes);

    // Send to several recipients and follow the batch until every message is delivered.
    const sendRes = await call('POST', '/v1/messages', { body: 'Hello from the whole loop', to: RECIPIENTS });
    expect(sendRes.status).toBe(202);
    const { batch, message_ids: messageIds } = await readJson(sendRes);
    expect(messageIds).toHaveLength(RECIPIENTS.length);
    const done = await until('the batch to be delivered', 60_000, async () => {
      const body = await readJson(await call('GET', `/v1/batches/${batch.id}`));
      return body.batch.delivered_count === RECIPIENTS.length ? body : undefined;
    });
    expect(done.batch).toMatchObject({ status: 'completed', sent_count: 0, failed_count: 0, unknown_count: 0 });
    expect(done.batch.completed_at).not.toBeNull();
    expect(done.messages.map((m: { recipient: string }) => m.recipient)).toEqual(RECIPIENTS);
    for (const message of done.messages) {
      expect(message).toMatchObject({ status: 'delivered', device_id: deviceId, direction: 'outbound' });
      expect(message.sent_at).not.toBeNull();
    }
    // send_delay_seconds was honoured: consecutive sends at least a second apart.
    const sentAt = done.messages.map((m: { sent_at: string }) => Date.parse(m.sent_at)).sort();
    for (let i = 1; i < sentAt.length; i++) expect(sentAt[i] - sentAt[i - 1]).toBeGreaterThanOrEqual(900);

    // Signed message.sent and message.delivered webhooks for each message.
    const ofEvent = (event: string) =>
      receiver.requests.filter((r) => r.event === event).map((r) => ({ request: r, body: JSON.parse(r.raw) }));
    await until('message.sent and message.delivered webhooks', 60_000, () =>
      ofEvent('message.sent').length >= RECIPIENTS.length && ofEvent('message.delivered').length >= RECIPIENTS.length
        ? true
        : undefined,
    );
    for (const event of ['message.sent', 'message.delivered']) {
      const received = ofEvent(event);
      expect(new Set(received.map((r) => r.body.data.id))).toEqual(new Set(messageIds));
      for (const { request, body } of received) {
        expectSigned(request, secret);
        expect(body).toMatchObject({ event, data: { batch_id: batch.id, direction: 'outbound' } });
        expect(request.headers['content-type']).toMatch(/^application\/json/);
      }
    }

    // An inbound text forwarded by the phone arrives as message.received.
    const inbound = await phone.receive('+14155550199', 'Reply from a handset');
    expect(inbound?.inserted).toBe(true);
    const [received] = await until('a message.received webhook', 60_000, () => {
      const found = ofEvent('message.received');
      return found.length > 0 ? found : undefined;
    });
    expectSigned(received.request, secret);
    expect(received.body.data).toMatchObject({
      id: inbound!.message.id,
      direction: 'inbound',
      status: 'received',
      sender: '+14155550199',
      body: 'Reply from a handset',
    });
    const listed = await readJson(await call('GET', '/v1/messages?direction=inbound'));
    expect(listed.data.map((m: { id: string }) => m.id)).toEqual([inbound!.message.id]);

    // The phone goes silent: with a 1-minute interval and 1 missed heartbeat, device.offline follows.
    phone.stopHeartbeats();
    const [offline] = await until('a device.offline webhook', 150_000, () => {
      const found = ofEvent('device.offline');
      return found.length > 0 ? found : undefined;
    });
    expectSigned(offline.request, secret);
    expect(offline.body.data).toMatchObject({ id: deviceId, online: false });
    expect((await readJson(await call('GET', `/v1/devices/${deviceId}`))).device.online).toBe(false);

    // What the simulator said it did, one line per action.
    expect(phoneLog.filter((line) => line.startsWith('sent '))).toHaveLength(RECIPIENTS.length);
    expect(phoneLog.filter((line) => line.startsWith('delivered '))).toHaveLength(RECIPIENTS.length);
    // Heard on the live channel at once, or found by a later settings refresh.
    expect(phoneLog.some((line) => /^settings changed \((live channel|refresh)\): /.test(line))).toBe(true);

    // The operators' view of the same loop, scraped from the metrics port (one registry: api and worker).
    const samples = parseExposition(await (await fetch(metricsUrl)).text());
    expect(valueOf(samples, 'phone_gateway_sends_accepted_total')).toBe(1);
    expect(valueOf(samples, 'phone_gateway_send_recipients_total')).toBe(RECIPIENTS.length);
    expect(
      valueOf(samples, 'phone_gateway_http_requests_total', { method: 'POST', route: '/v1/messages', status: '202' }),
    ).toBe(1);
    expect(valueOf(samples, 'phone_gateway_message_outcomes_total', { status: 'delivered' })).toBe(RECIPIENTS.length);
    expect(valueOf(samples, 'phone_gateway_outbox_messages_total')).toBeGreaterThanOrEqual(RECIPIENTS.length);
    expect(valueOf(samples, 'phone_gateway_inbound_texts_total', { result: 'new' })).toBe(1);
    // The batch's workflow: its start, and the signal-with-start that settled it.
    expect(
      valueOf(samples, 'phone_gateway_workflow_starts_total', { workflow_type: 'batchWorkflow', result: 'started' }),
    ).toBe(2);
    // Every webhook the receiver got (sent and delivered per message, the inbound text, offline); the
    // last attempt is counted just after the receiver answered it.
    await expect
      .poll(async () =>
        valueOf(parseExposition(await (await fetch(metricsUrl)).text()), 'phone_gateway_webhook_attempts_total', {
          outcome: 'delivered',
          response: '2xx',
        }),
      )
      .toBeGreaterThanOrEqual(2 * RECIPIENTS.length + 2);

    // Teardown is part of the loop: the start command stops everything and exits 0.
    await phone.stop();
    phone = undefined;
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(processesUsing(dataDir)).toEqual([]);
  }, 240_000);
});
