import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json } from '../support/accounts';
import { readJson } from '../support/http';
import { exited, freeStartPorts, signUpFromLog, spawnStart, waitFor } from '../support/start-command';
import { expectSigned } from '../webhooks/helpers';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { createAppTime } from '../compat/smsgate/app-time';
import { createSmsGateApp, type SmsGateApp } from '../compat/smsgate/app-behaviour';
import { MOBILE_API } from '../compat/smsgate/helpers';

// The SMSGate app's path from a fresh `npm start` (src/dev/start.ts on its own data folder: embedded
// Postgres, the Temporal dev server, the api and the worker), driven as a person and the app would:
// an account verified with the code from the log, a key, a webhook, the server URL and pairing code
// the Phones page shows, then the fake app (test/compat/smsgate/app-behaviour.ts) on app time.
// The dev server's clock is the wall clock and cannot be moved, so app time keeps to it: it catches
// up with the wall clock before each wait, never runs ahead of it, and each wait is bounded by a
// minute, far short of the app's 15-minute pull.

const MINUTE = 60_000;
const root = path.resolve(__dirname, '..', '..');
const dataDir = path.join(root, '.test-data', `start-smsgate-${process.pid}`);

describe('the SMSGate app against a fresh npm start', () => {
  let child: ChildProcess | undefined;
  let receiver: Receiver | undefined;
  let phone: SmsGateApp | undefined;

  afterAll(async () => {
    await phone?.stop();
    await receiver?.close();
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs up, pairs, imports, sends, forwards and drains a 300-recipient send at the app pace', async () => {
    mkdirSync(dataDir, { recursive: true });
    const ports = await freeStartPorts();
    const publicUrl = `http://127.0.0.1:${ports.api}`;
    const started = spawnStart(
      { dataDir, ports },
      {
        PUBLIC_URL: publicUrl,
        // The webhook receiver is on loopback.
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // Billing is outside this service: new accounts start on a plan that allows a 300-recipient send.
        DEFAULT_PLAN: 'pro',
      },
    );
    child = started.child;
    const output = started.output;
    await waitFor(`${publicUrl}/readyz`, child, 120_000).catch((error) => {
      throw new Error(`${error.message}\n${output()}`);
    });
    const api = (pathname: string, init: RequestInit) => fetch(`${publicUrl}${pathname}`, init);

    // Sign up, verify with the code from the log, and make a key.
    const { key } = await signUpFromLog(publicUrl, output, 'smsgate');
    const call = (method: string, pathname: string, body?: unknown) =>
      api(pathname, json(method, body, { 'x-api-key': key }));

    receiver = await startReceiver();
    const hookRes = await call('POST', '/v1/webhooks', { url: receiver.url, events: ['message.received'] });
    expect(hookRes.status).toBe(201);
    const hook = await readJson(hookRes);

    // What the Phones page shows: the app's API URL and a pairing code.
    const pairing = await call('POST', '/v1/devices/pairing-codes');
    expect(pairing.status).toBe(201);
    const { code, smsgate_api_url: serverUrl } = await readJson(pairing);
    expect(serverUrl).toBe(`${publicUrl}${MOBILE_API}`);

    // App time never runs ahead of the wall clock (the server's): a move past it waits for it, so
    // the app's backoffs and the server's per-second rates see the same seconds.
    const time = createAppTime({
      start: new Date(),
      maxRealWaitMs: 10_000,
      onMove: (to) => new Promise((resolve) => setTimeout(resolve, Math.max(0, to.getTime() - Date.now()))),
    });
    /** App time up to the wall clock, then on until `done`, within a minute. */
    const appRunsUntil = async (done: () => boolean, what: string) => {
      await time.runFor(Math.max(0, Date.now() - time.now()));
      await time.runUntil(done, { within: MINUTE, what });
    };

    // Settings → Cloud Server: API URL, Private Token, SSE Only; then Cloud server switched on.
    phone = createSmsGateApp({
      time,
      serverUrl,
      privateToken: code,
      notificationChannel: 'SSE_ONLY',
      radio: { sentAfterMs: 300, deliveredAfterMs: 1_500 },
      // Its owner lifted Android's 30 texts per 30 minutes, and says so below.
      smsLimit: null,
    });
    const app = phone;
    app.start();
    await appRunsUntil(
      () => app.webhooks().length === 6 && app.settings.ping.intervalSeconds !== null,
      'pairing, settings and webhooks',
    );
    const deviceId = app.registration()!.id;
    const devices = await readJson(await call('GET', '/v1/devices'));
    expect(devices.data).toEqual([expect.objectContaining({ id: deviceId, online: true })]);
    // Imported without a restart.
    expect(app.settings.webhooks.signingKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(app.settings.restartNotices()).toBe(1);

    // A send is delivered.
    const one = await readJson(await call('POST', '/v1/messages', { body: 'Hello, phone', to: ['+14155550140'] }));
    const messageId = one.message_ids[0];
    await appRunsUntil(() => app.messages.get(messageId)?.state === 'Delivered', 'the first text delivered');
    await time.runFor(1_000);
    await expect
      .poll(async () => (await readJson(await call('GET', `/v1/messages/${messageId}`))).message.status)
      .toBe('delivered');

    // A text arrives on the phone: the integrator's webhook hears of it, signed.
    app.receiveSms({ sender: '+15551230140', text: 'A reply from a handset' });
    await appRunsUntil(() => app.seen.webhookCalls.some((c) => c.event === 'sms:received'), 'the text forwarded');
    expect(app.seen.webhookCalls.filter((c) => c.event === 'sms:received').map((c) => c.status)).toEqual([201]);
    await expect
      .poll(() => receiver!.requests.some((r) => r.event === 'message.received'), { timeout: 30_000 })
      .toBe(true);
    const delivery = receiver.requests.find((r) => r.event === 'message.received')!;
    expectSigned(delivery, hook.secret);
    expect(JSON.parse(delivery.raw).data).toMatchObject({ sender: '+15551230140', body: 'A reply from a handset' });

    // 300 recipients with no pause (send_delay_seconds 0): the app sends back to back, and each
    // page of 100 is fetched as soon as the last one is reported, not by the 15-minute pull.
    expect(app.settings.messages.sendIntervalRange).toBeNull();
    expect((await call('PATCH', `/v1/devices/${deviceId}`, { sending_capacity: null })).status).toBe(200);
    const to = Array.from({ length: 300 }, (_, i) => `+1415556${String(i).padStart(4, '0')}`);
    const big = await call('POST', '/v1/messages', { body: 'To everyone', to });
    expect(big.status).toBe(202);
    const { batch } = await readJson(big);
    const sentBefore = app.seen.sent.length;
    const pullsBefore = app.seen.pulled.length;
    const start = time.now();
    await appRunsUntil(() => app.seen.sent.length - sentBefore === 300, 'the 300 texts sent');
    expect(time.now() - start).toBeLessThan(MINUTE);
    // In pages of at most 100: more than one fetch, each the moment the server said more was waiting.
    const pages = app.seen.pulled.slice(pullsBefore).filter((n) => n > 0);
    expect(pages.reduce((sum, n) => sum + n, 0)).toBe(300);
    expect(Math.max(...pages)).toBeLessThanOrEqual(100);
    // Its reports go out as the app goes on, on the wall clock's time.
    await expect
      .poll(
        async () => {
          await time.runFor(Math.max(0, Date.now() - time.now()));
          return (await readJson(await call('GET', `/v1/batches/${batch.id}`))).batch;
        },
        { timeout: 30_000 },
      )
      .toMatchObject({ status: 'completed', delivered_count: 300 });

    await app.stop();
    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
  }, 180_000);
});
