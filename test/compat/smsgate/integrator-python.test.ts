import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/accounts';
import type { TestApp } from '../../support/app';
import type { WorkflowStack } from '../../support/temporal';
import { readJson } from '../../support/http';
import { contentToSend, mmsDownloaded, smsReceived, type PendingMessage } from './fake-app';
import { registeredApp, startSmsGateStack, tenant } from './helpers';
import { INTEGRATOR_API } from './integrator-client';

// SMSGate's published Python client (PyPI android-sms-gateway 4.3.3, android_sms_gateway/client.py
// APIClient), installed by python/install.sh into the cache on first use, runs python/integrator.py
// against the integrator API: Basic with the key as password, then Bearer with the key alone, then a
// token it mints (generate_token) as Bearer until it revokes it (revoke_token).

const run = promisify(execFile);
const here = path.join(__dirname, 'python');

describe('SMSGate’s Python client', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  let python: string;

  beforeAll(async () => {
    // The webhook URL is only registered (nothing is sent to it): loopback is allowed.
    stack = await startSmsGateStack('smsgate-python', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    ({ app } = stack);
    python = (await run(path.join(here, 'install.sh'), [], { timeout: 170_000 })).stdout.trim();
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('lists, sends, reads, cancels, lists the inbox, manages webhooks and settings, mints tokens with Basic and Bearer credentials', async () => {
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const deviceId = phone.state.registration!.id;
    // Two texts the phone received (the app's sms:received), for the inbox.
    const inbound = ((await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[]).find(
      (hook) => hook.event === 'sms:received',
    )!;
    for (const [text, ago] of [['First reply', 120_000], ['Second reply', 60_000]] as const) {
      const receivedAt = new Date(app.clock.now().getTime() - ago);
      expect((await phone.sendWebhook(inbound, smsReceived({ sender: '+14155550180', text, receivedAt }))).status).toBe(201);
    }
    const { stdout } = await run(
      python,
      [path.join(here, 'integrator.py'), `${app.url}${INTEGRATOR_API}`, key, 'https://127.0.0.1:9/smsgate'],
      { timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toEqual({
      health: 'pass',
      devices: [deviceId],
      webhook: { id: 'py-hook', event: 'sms:sent' },
      webhooks: ['py-hook'],
      phone_webhook: { id: 'py-phone-hook', device_id: deviceId },
      phone_webhooks: { 'py-hook': null, 'py-phone-hook': deviceId },
      phone_webhook_elsewhere: { status: 400, message: expect.any(String) },
      sent: { id: 'py-1', state: 'Pending' },
      state: { id: 'py-1', state: 'Pending', recipients: ['+14155550170'] },
      list: ['py-1'],
      unknown: { status: 404, message: expect.any(String) },
      data_sent: { id: 'py-data', state: 'Pending' },
      data_webhook: { id: 'py-data-hook', event: 'sms:data-received' },
      cancelled: { state: 'Failed', recipients: ['Failed'] },
      cancel_again: { status: 409, message: expect.any(String) },
      inbox: [
        ['+14155550180', 'SMS', 'Second reply', 1],
        ['+14155550180', 'SMS', 'First reply', 1],
      ],
      inbox_page: ['First reply'],
      inbox_mms: [],
      webhooks_after: [],
      bearer_devices: [deviceId],
      settings: { sim_selection_mode: 'RoundRobin', limit_period: 'PerDay', limit_value: 500, processing_order: 'LIFO' },
      token: { type: 'Bearer', prefix: 'tk_', expires_at: expect.any(String) },
      token_devices: [deviceId],
      token_other_scope: { status: 403, message: expect.any(String) },
      token_revoked: { status: 401, message: expect.any(String) },
      token_unknown_scope: { status: 400, message: expect.any(String) },
      refreshed_devices: [deviceId],
      refreshed: { new_token: true, new_refresh: true },
      refresh_again: { status: 401, message: expect.any(String) },
      refresh_revoked: { status: 401, message: expect.any(String) },
    });
    // The phone is handed the client's data SMS as bytes to its port.
    const pending = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    const data = pending.filter((message) => message.dataMessage).map(contentToSend);
    expect(data).toEqual([{ kind: 'data', bytes: Buffer.from('\x00\x01ping', 'latin1'), port: 53739 }]);
    // patch_settings set the phone's own settings.
    const device = (await readJson(await app.fetch(`/v1/devices/${deviceId}`, { headers: { 'x-api-key': key } }))).device;
    expect(device).toMatchObject({ sim_selection: 'round_robin', max_sends_per_day: 500, processing_order: 'lifo' });
    const { token } = JSON.parse(stdout) as { token: { expires_at: string } };
    // ttl=600 asked: the token lives ten minutes from its minting.
    expect(new Date(token.expires_at).getTime() - Date.now()).toBeGreaterThan(540_000);
    expect(new Date(token.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(600_000);
  });

  it('probes health, replaces and patches settings, reads logs, exports the inbox and removes a phone', async () => {
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const deviceId = phone.state.registration!.id;
    const since = new Date(Date.now() - 3_600_000).toISOString();
    // A send to an opted-out number fails at once: message.failed is in the account's log.
    const headers = { 'x-api-key': key };
    expect((await app.fetch('/v1/opt-outs', json('POST', { phone_number: '+14155550171' }, headers))).status).toBe(201);
    const sent = await app.fetch('/v1/messages', json('POST', { to: ['+14155550171'], body: 'for the log' }, headers));
    expect(sent.status).toBe(202);
    const until = new Date(Date.now() + 60_000).toISOString();
    const { stdout } = await run(
      python,
      [path.join(here, 'surface.py'), `${app.url}${INTEGRATOR_API}`, key, deviceId, since, until],
      { timeout: 60_000, cwd: here },
    );
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({
      probes: ['pass', 'pass', 'pass'],
      after_put: { send_interval_min: 5, send_interval_max: 9, limit_period: 'PerHour', limit_value: 40, ping: 900 },
      after_patch: { limit_period: 'PerHour', limit_value: 25, send_interval_min: 5, send_interval_max: 12 },
      refused_setting: { status: 400, message: expect.any(String) },
      export_backwards: { status: 400, message: expect.any(String) },
      devices_after_removal: [],
      remove_again: { status: 404, message: expect.any(String) },
    });
    expect(out.checks.length).toBeGreaterThan(0);
    expect(out.logs).toContain('message.failed');
    // 202 with an empty body, which the client reads as {} (a text body fails its JSON parse).
    expect(out.export).toEqual({});
    expect(out.refresh).toEqual({});
  });

  it('lists a received MMS with its attachments and downloads each (download_attachment)', async () => {
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const hook = ((await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[]).find(
      (h) => h.event === 'mms:downloaded',
    )!;
    const picture = Buffer.from('ffd8ffe000104a464946', 'hex');
    const payload = mmsDownloaded({
      mmsId: 42,
      sender: '+14155550181',
      receivedAt: app.clock.now(),
      body: 'See attached',
      parts: [{ partId: 31, contentType: 'image/jpeg', name: 'photo.jpg', bytes: picture }],
    });
    const res = await phone.sendWebhook(hook, payload);
    expect(res.status).toBe(201);
    const { id } = (await readJson(res)).message;
    const { stdout } = await run(python, [path.join(here, 'mms.py'), `${app.url}${INTEGRATOR_API}`, key], {
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      mms: [
        {
          id,
          type: 'MMS_DOWNLOADED',
          attachments: [{ part_id: 31, name: 'photo.jpg', size: picture.length, content_type: 'image/jpeg' }],
        },
      ],
      downloads: { '31': picture.toString('hex') },
      missing: 404,
    });
  });
});
