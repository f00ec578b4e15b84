import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebHookEventType } from 'android-sms-gateway';
import { createKey } from '../../support/accounts';
import type { TestApp } from '../../support/app';
import { readJson } from '../../support/http';
import type { WorkflowStack } from '../../support/temporal';
import { startReceiver, type Receiver } from '../../webhooks/receiver';
import type { Message } from 'android-sms-gateway';
import { contentToSend, smsDataReceived, smsReceived, statePatch, type PendingMessage } from './fake-app';
import { registeredApp, startSmsGateStack, tenant } from './helpers';
import { INTEGRATOR_API, integratorClient, refusal, smsgateSignatureValid } from './integrator-client';

// SMSGate's integrator API (src/compat/smsgate/integrator.routes.ts) driven by its published npm
// client `android-sms-gateway` 3.0.0, against SMSGate's phone app (the fake app) paired with us.
// Shapes as in android-sms-gateway/server@22074dda internal/sms-gateway/handlers/*/3rdparty.go and
// android-sms-gateway/client-go@9b599876 smsgateway/*.go.

describe('SMSGate’s integrator API with its npm client', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await startSmsGateStack('smsgate-integrator', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    ({ app } = stack);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  /** The phone takes what is pending and reports each Sent, then Delivered. */
  async function deliverAll(phone: Awaited<ReturnType<typeof registeredApp>>) {
    const pending = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    const at = (s: number) => new Date(app.clock.now().getTime() + s * 1000);
    for (const message of pending) {
      expect((await phone.patchMessages([statePatch(message, 'Sent', { Processed: at(1), Sent: at(2) })])).status).toBe(204);
      const delivered = statePatch(message, 'Delivered', { Processed: at(1), Sent: at(2), Delivered: at(3) });
      expect((await phone.patchMessages([delivered])).status).toBe(204);
    }
    return pending;
  }

  it('sends, follows the state until delivered, and signs its webhooks as SMSGate does', async () => {
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const client = integratorClient(app.url, key);

    // Webhooks registered through the client (one before and one after the account sets its own
    // signing key: both sign with it), the key never shown back.
    const sent = await client.registerWebhook({ url: receiver.url, event: WebHookEventType.SmsSent });
    const signingKey = 'integrator-chosen-signing-key-42';
    await client.patchSettings({ webhooks: { signingKey } });
    expect(JSON.stringify(await client.getSettings())).not.toContain(signingKey);
    const delivered = await client.registerWebhook({ id: 'my-delivered-hook', url: receiver.url, event: WebHookEventType.SmsDelivered });
    expect(delivered).toEqual({ id: 'my-delivered-hook', deviceId: null, url: receiver.url, event: 'sms:delivered' });
    expect((await client.getWebhooks()).map((w) => w.event).sort()).toEqual(['sms:delivered', 'sms:sent']);

    // One SMSGate message to two numbers is one send of ours; the client's id names it.
    const state = await client.send({ id: 'order-1234', message: 'Your code is 1234', phoneNumbers: ['+14155550101', '+14155550102'] });
    expect(state).toMatchObject({
      id: 'order-1234',
      deviceId: phone.state.registration!.id,
      state: 'Pending',
      recipients: [
        { phoneNumber: '+14155550101', state: 'Pending' },
        { phoneNumber: '+14155550102', state: 'Pending' },
      ],
    });
    // The same id and body again: the first answer, not a second send.
    expect((await client.send({ id: 'order-1234', message: 'Your code is 1234', phoneNumbers: ['+14155550101', '+14155550102'] })).id).toBe('order-1234');

    // The same id with another text is another message: 409, as on their server.
    expect((await refusal(client.send({ id: 'order-1234', message: 'Another text', phoneNumbers: ['+14155550101'] }))).status).toBe(409);

    const pending = await deliverAll(phone);
    expect(pending).toHaveLength(2);
    const done = await client.getState('order-1234');
    expect(done.state).toBe('Delivered');
    expect(done.recipients.map((r) => r.state)).toEqual(['Delivered', 'Delivered']);
    expect(Object.keys((done as unknown as { states: object }).states).sort()).toEqual(['Delivered', 'Pending', 'Processed', 'Sent']);

    // Two sms:sent and two sms:delivered, in SMSGate's envelope, signed as it documents.
    await expect.poll(() => receiver.requests.filter((r) => r.raw.includes('order-1234')).length, { timeout: 20_000 }).toBe(4);
    const calls = receiver.requests.filter((r) => r.raw.includes('order-1234'));
    for (const call of calls) {
      expect(smsgateSignatureValid(call, signingKey)).toBe(true);
      expect(smsgateSignatureValid(call, 'another key')).toBe(false);
      const body = JSON.parse(call.raw) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['deviceId', 'event', 'id', 'payload', 'webhookId']);
      expect(body.webhookId).toBe(body.event === 'sms:sent' ? sent.id : 'my-delivered-hook');
      expect(body.payload).toMatchObject({ messageId: 'order-1234' });
    }
    expect(calls.map((c) => (JSON.parse(c.raw) as { event: string }).event).sort()).toEqual([
      'sms:delivered',
      'sms:delivered',
      'sms:sent',
      'sms:sent',
    ]);

    // They are our deliveries: in the delivery log, redeliverable.
    const log = await readJson(await app.fetch('/v1/webhooks/deliveries?limit=10', { headers: { 'x-api-key': key } }));
    expect(log.data.length).toBeGreaterThanOrEqual(4);
    const again = await app.fetch(`/v1/webhooks/deliveries/${log.data[0].id}/redeliver`, { method: 'POST', headers: { 'x-api-key': key } });
    expect(again.status).toBeLessThan(300);

    // The list, with their filters and X-Total-Count.
    const list = await app.fetch(`${INTEGRATOR_API}/messages?state=Delivered&limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('1');
    expect((await readJson(list))[0]).toMatchObject({ id: 'order-1234', state: 'Delivered' });

    // Registering the same id again replaces the webhook.
    await client.registerWebhook({ id: 'my-delivered-hook', url: `${receiver.url}?v=2`, event: WebHookEventType.SmsDelivered });
    expect((await client.getWebhooks()).filter((w) => w.id === 'my-delivered-hook').map((w) => w.url)).toEqual([`${receiver.url}?v=2`]);
    await client.deleteWebhook(sent.id!);
    expect((await client.getWebhooks()).map((w) => w.id)).toEqual(['my-delivered-hook']);
  });

  it('ties a webhook to one phone with deviceId: its texts reach it, another phone’s do not', async () => {
    const { key } = await tenant(app);
    const other = await tenant(app);
    const [phoneA, phoneB] = [await registeredApp(app, key), await registeredApp(app, key)];
    const [a, b] = [phoneA, phoneB].map((phone) => phone.state.registration!.id);
    const theirPhone = (await registeredApp(app, other.key)).state.registration!.id;
    const client = integratorClient(app.url, key);
    const onA = await client.registerWebhook({ id: 'on-a', deviceId: a, url: receiver.url, event: WebHookEventType.SmsReceived });
    expect(onA).toEqual({ id: 'on-a', deviceId: a, url: receiver.url, event: 'sms:received' });
    await client.registerWebhook({ id: 'on-b', deviceId: b, url: receiver.url, event: WebHookEventType.SmsReceived });
    await client.registerWebhook({ id: 'every', url: receiver.url, event: WebHookEventType.SmsReceived });
    const listed = () => client.getWebhooks().then((hooks) => Object.fromEntries(hooks.map((w) => [w.id, w.deviceId])));
    expect(await listed()).toEqual({ 'on-a': a, 'on-b': b, every: null });

    // Another account's phone, or an id that names no phone: 400 as their server answers, nothing written.
    for (const deviceId of [theirPhone, 'PyDmBQZZXYmyxMwED8Fzy']) {
      const refused = await refusal(client.registerWebhook({ id: 'far', deviceId, url: receiver.url, event: WebHookEventType.SmsSent }));
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/deviceId/);
    }
    expect(await listed()).toEqual({ 'on-a': a, 'on-b': b, every: null });

    // A text received on phone A reaches on-a and every, never on-b.
    const hooks = (await readJson(await phoneA.getWebhooks())) as { id: string; url: string; event: string }[];
    const text = smsReceived({ sender: '+14155550198', text: 'only for phone A', receivedAt: app.clock.now() });
    expect((await phoneA.sendWebhook(hooks.find((hook) => hook.event === 'sms:received')!, text)).status).toBeLessThan(300);
    const reached = () => receiver.requests.filter((r) => r.raw.includes('only for phone A')).map((r) => JSON.parse(r.raw).webhookId);
    await expect.poll(() => reached().sort(), { timeout: 20_000 }).toEqual(['every', 'on-a']);
    const log = await readJson(await app.fetch('/v1/webhooks/deliveries?event=message.received', { headers: { 'x-api-key': key } }));
    expect(log.data).toHaveLength(2);
    expect(log.data.map((d: { device_id: string }) => d.device_id)).toEqual([a, a]);
  });

  it('answers every other public method of the client, or refuses it plainly', async () => {
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const client = integratorClient(app.url, key);
    const deviceId = phone.state.registration!.id;

    expect(await client.getHealth()).toMatchObject({ status: 'pass' });
    expect((await client.getDevices()).map((d) => d.id)).toEqual([deviceId]);

    // Settings map onto the phone's (their keys are snake_case, client-go domain_settings.go; the npm
    // client's types are camelCase: both are read); what does not map is refused with its name.
    await client.patchSettings({ messages: { sendIntervalMin: 5, sendIntervalMax: 8 } });
    const settings = (await client.getSettings()) as unknown as { messages: Record<string, unknown> };
    expect(settings.messages).toMatchObject({ send_interval_min: 5, send_interval_max: 8 });
    const refused = await refusal(client.updateSettings({ encryption: { passphrase: 'secret' } }));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('encryption.passphrase');

    // A received text, exported again to the sms:received webhook.
    await client.registerWebhook({ url: receiver.url, event: WebHookEventType.SmsReceived });
    const at = new Date(app.clock.now().getTime() - 60_000);
    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const received = hooks.find((hook) => hook.event === 'sms:received')!;
    const forwarded = await phone.sendWebhook(received, smsReceived({ sender: '+14155550199', text: 'export me please', receivedAt: at }));
    expect(forwarded.status).toBeLessThan(300);
    const before = receiver.requests.filter((r) => r.raw.includes('export me please')).length;
    await client.exportInbox({ deviceId, since: new Date(at.getTime() - 60_000), until: app.clock.now() });
    await expect.poll(() => receiver.requests.filter((r) => r.raw.includes('export me please')).length, { timeout: 20_000 }).toBeGreaterThan(before);

    const logs = await client.getLogs(new Date(Date.now() - 3_600_000));
    expect(logs.length).toBeGreaterThan(0);
    expect(logs[0]).toMatchObject({ id: 1, module: expect.any(String), priority: expect.any(String) });

    await client.deleteDevice(deviceId);
    expect(await client.getDevices()).toEqual([]);
  });

  it('cancels a pending message, refuses one the phone has (409), and lists the account’s inbox with X-Total-Count', async () => {
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const other = await tenant(app);
    await registeredApp(app, other.key);
    const client = integratorClient(app.url, key);
    const bearer = (apiKey: string) => ({ headers: { Authorization: `Bearer ${apiKey}` } });
    const cancel = (id: string, apiKey = key) => app.fetch(`${INTEGRATOR_API}/messages/${id}`, { method: 'DELETE', ...bearer(apiKey) });

    // DELETE /messages/{id}: the state after, every recipient cancelled (a failure with its reason).
    await client.send({ id: 'to-cancel', message: 'Not needed after all', phoneNumbers: ['+14155550111', '+14155550112'] });
    expect((await cancel('to-cancel', other.key)).status).toBe(404);
    const cancelled = await cancel('to-cancel');
    expect(cancelled.status).toBe(200);
    expect(await readJson(cancelled)).toMatchObject({
      id: 'to-cancel',
      state: 'Failed',
      recipients: [
        { phoneNumber: '+14155550111', state: 'Failed', error: expect.stringContaining('cancelled') },
        { phoneNumber: '+14155550112', state: 'Failed', error: expect.stringContaining('cancelled') },
      ],
    });
    // One the phone has taken is no longer pending: 409, in their shape, and it goes on.
    await client.send({ id: 'taken', message: 'On its way', phoneNumbers: ['+14155550113'] });
    expect((await readJson(await phone.getMessages('fifo'))) as PendingMessage[]).toHaveLength(1);
    const refused = await cancel('taken');
    expect(refused.status).toBe(409);
    expect((await readJson(refused)).message).toEqual(expect.any(String));
    expect((await client.getState('taken')).state).toBe('Processed');
    expect((await cancel('no-such-message')).status).toBe(404);

    // GET /inbox: the texts this account's phone received, newest first, by offset.
    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const received = hooks.find((hook) => hook.event === 'sms:received')!;
    for (const [text, ago] of [['one', 180], ['two', 120], ['three', 60]] as const) {
      const receivedAt = new Date(app.clock.now().getTime() - ago * 1000);
      expect((await phone.sendWebhook(received, smsReceived({ sender: '+14155550198', text, receivedAt, simNumber: 2 }))).status).toBe(201);
    }
    const inbox = async (query: string, apiKey = key) => {
      const res = await app.fetch(`${INTEGRATOR_API}/inbox${query}`, bearer(apiKey));
      expect(res.status, query).toBe(200);
      return { total: res.headers.get('X-Total-Count'), items: (await readJson(res)) as Record<string, unknown>[] };
    };
    const all = await inbox('');
    expect(all.total).toBe('3');
    expect(all.items.map((m) => m.contentPreview)).toEqual(['three', 'two', 'one']);
    expect(all.items[0]).toEqual({
      id: expect.any(String),
      type: 'SMS',
      sender: '+14155550198',
      simNumber: 2,
      contentPreview: 'three',
      createdAt: new Date(app.clock.now().getTime() - 60_000).toISOString(),
    });
    const page = await inbox(`?limit=1&offset=1&deviceId=${phone.state.registration!.id}`);
    expect(page).toEqual({ total: '3', items: [expect.objectContaining({ contentPreview: 'two' })] });
    const since = new Date(app.clock.now().getTime() - 90_000).toISOString();
    expect((await inbox(`?from=${encodeURIComponent(since)}`)).items.map((m) => m.contentPreview)).toEqual(['three']);
    expect(await inbox('?type=MMS')).toEqual({ total: '0', items: [] });
    // Another account's inbox, and another account's phone named: nothing of these.
    expect(await inbox('', other.key)).toEqual({ total: '0', items: [] });
    expect(await inbox(`?deviceId=${phone.state.registration!.id}`, other.key)).toEqual({ total: '0', items: [] });
    for (const bad of ['?limit=0', '?limit=501', '?offset=-1', '?type=FAX', '?from=yesterday']) {
      const res = await app.fetch(`${INTEGRATOR_API}/inbox${bad}`, bearer(key));
      expect(res.status, bad).toBe(400);
      expect((await readJson(res)).message, bad).toEqual(expect.any(String));
    }
  });

  it('sends a dataMessage and delivers sms:data-received to a webhook registered through the client', async () => {
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const client = integratorClient(app.url, key);
    const signingKey = 'integrator-data-signing-key-77';
    await client.patchSettings({ webhooks: { signingKey } });
    // Client 3.0.0's types know neither dataMessage nor sms:data-received; it sends what it is given,
    // as an integrator writing plain JavaScript does.
    const bytes = Buffer.from([0xca, 0xfe, 0x00, 0x01]);
    const message = { id: 'npm-data', dataMessage: { data: bytes.toString('base64'), port: 2948 }, phoneNumbers: ['+14155550131'] };
    expect(await client.send(message as unknown as Message)).toMatchObject({ id: 'npm-data', state: 'Pending' });
    const hook = await client.registerWebhook({ id: 'npm-data-hook', url: receiver.url, event: 'sms:data-received' as WebHookEventType });
    expect(hook).toEqual({ id: 'npm-data-hook', deviceId: null, url: receiver.url, event: 'sms:data-received' });

    const pending = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    expect(pending.map(contentToSend)).toEqual([{ kind: 'data', bytes, port: 2948 }]);

    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const received = smsDataReceived({ sender: '+14155550132', bytes: Buffer.from('npm-data-in'), receivedAt: app.clock.now() });
    expect((await phone.sendWebhook(hooks.find((h) => h.event === 'sms:data-received')!, received)).status).toBe(201);
    const reached = () => receiver.requests.filter((r) => r.raw.includes(received.data));
    await expect.poll(() => reached().length, { timeout: 20_000 }).toBe(1);
    expect(JSON.parse(reached()[0].raw)).toMatchObject({
      webhookId: 'npm-data-hook',
      event: 'sms:data-received',
      payload: { sender: '+14155550132', data: received.data },
    });
    expect(smsgateSignatureValid(reached()[0], signingKey)).toBe(true);
  });

  it('keeps accounts apart, refuses bad credentials and bad input with 4xx in SMSGate’s error shape', async () => {
    const mine = await tenant(app);
    await registeredApp(app, mine.key);
    const theirs = await tenant(app);
    const state = await integratorClient(app.url, mine.key).send({ message: 'hello', phoneNumbers: ['+14155550103'] });

    const other = await refusal(integratorClient(app.url, theirs.key).getState(state.id));
    expect(other.status).toBe(404);
    expect(other.body.message).toEqual(expect.any(String));

    expect((await refusal(integratorClient(app.url, 'sk_wrong').getDevices())).status).toBe(401);
    // Scopes as on /v1: a key that may only read cannot list phones or send.
    const readOnly = integratorClient(app.url, await createKey(app, mine.account, ['read']));
    expect((await refusal(readOnly.getDevices())).status).toBe(403);
    expect((await refusal(readOnly.send({ message: 'x', phoneNumbers: ['+14155550103'] }))).status).toBe(403);
    expect((await readOnly.getState(state.id)).id).toBe(state.id);

    const client = integratorClient(app.url, mine.key);
    for (const bad of [
      { message: 'x', phoneNumbers: [] },
      { message: 'x', phoneNumbers: ['not a number'] },
      { phoneNumbers: ['+14155550103'] },
      { message: 'x', phoneNumbers: ['+14155550103'], simNumber: 9 },
      { message: 'x', phoneNumbers: ['+14155550103'], ttl: 60, validUntil: new Date(Date.now() + 60_000).toISOString() },
    ]) {
      const error = await refusal(client.send(bad as never));
      expect(error.status, JSON.stringify(bad)).toBe(400);
      expect(error.body.message).toEqual(expect.any(String));
    }
    // Another account's phone and webhook: not found, and left alone.
    const minePhone = (await integratorClient(app.url, mine.key).getDevices())[0].id;
    expect((await refusal(integratorClient(app.url, theirs.key).deleteDevice(minePhone))).status).toBe(404);
    const hook = await integratorClient(app.url, mine.key).registerWebhook({ url: 'https://127.0.0.1:9/x', event: WebHookEventType.SmsFailed });
    expect((await refusal(integratorClient(app.url, theirs.key).deleteWebhook(hook.id!))).status).toBe(404);
    expect((await integratorClient(app.url, mine.key).getWebhooks()).map((w) => w.id)).toEqual([hook.id]);
    expect((await integratorClient(app.url, mine.key).getDevices()).map((d) => d.id)).toEqual([minePhone]);

    // Malformed input anywhere is a 4xx in their shape, never a 500.
    const bearer = { Authorization: `Bearer ${mine.key}`, 'content-type': 'application/json' };
    for (const [method, pathname, body] of [
      ['GET', '/messages?limit=abc', undefined],
      ['GET', '/messages?state=Lost', undefined],
      ['GET', '/messages?from=yesterday', undefined],
      ['GET', `/messages/${'x'.repeat(300)}`, undefined],
      ['POST', '/webhooks', { url: 'http://example.com/hook', event: 'sms:sent' }],
      ['POST', '/webhooks', { url: 'https://127.0.0.1:9/x', event: 'sms:nothing' }],
      ['PATCH', '/settings', { messages: 5 }],
      ['PATCH', '/settings', { messages: { limit_period: 'PerDay', limit_value: 0 } }],
      ['PUT', '/settings', [1, 2]],
      ['POST', '/inbox/export', { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }],
      ['POST', '/messages', '{"message": "x", "phoneNumbers": '],
      ['GET', '/logs?to=never', undefined],
    ] as const) {
      const res = await app.fetch(`${INTEGRATOR_API}${pathname}`, {
        method,
        headers: bearer,
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      expect(res.status, `${method} ${pathname}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${pathname}`).toBeLessThan(500);
      expect((await readJson(res)).message, `${method} ${pathname}`).toEqual(expect.any(String));
    }

    // An API key is no refresh token.
    const notRefresh = await app.fetch(`${INTEGRATOR_API}/auth/token/refresh`, { method: 'POST', headers: { Authorization: `Bearer ${mine.key}` } });
    expect(notRefresh.status).toBe(401);
    expect((await readJson(notRefresh)).message).toMatch(/refresh token/);
    const unknown = await app.fetch(`${INTEGRATOR_API}/no-such-thing`, { headers: { Authorization: `Bearer ${mine.key}` } });
    expect(unknown.status).toBe(404);
    expect((await readJson(unknown)).message).toMatch(/not served/);
  });
});
