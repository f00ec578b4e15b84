import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app';
import { eventsOf } from '../../support/factories';
import { readJson } from '../../support/http';
import type { WorkflowStack } from '../../support/temporal';
import { startReceiver, type Receiver } from '../../webhooks/receiver';
import { contentToSend, smsDataReceived, statePatch, type FakeApp, type PendingMessage } from './fake-app';
import { registeredApp, startSmsGateStack, tenant } from './helpers';
import { INTEGRATOR_API } from './integrator-client';

// Data SMS (binary, to an application port) both ways: sent from /v1 and from SMSGate's dataMessage
// (client-go domain_messages.go DataMessage), handed to the app as GatewayApi.kt MessageContent.Data
// and sent with sendDataMessage; received by the app on its port 53739 and posted as
// sms:data-received (webhooks/payload/SmsEventPayload.kt SmsDataReceived).

describe('data SMS through the SMSGate app', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    stack = await startSmsGateStack('smsgate-data-sms', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    ({ app } = stack);
    app.clock.set(new Date(await stack.env.currentTimeMs()));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  const dropIn = (key: string, method: string, path: string, body?: unknown) =>
    app.fetch(`${INTEGRATOR_API}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const hookFor = async (phone: FakeApp, event: string) => {
    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const hook = hooks.find((h) => h.event === event);
    if (!hook) throw new Error(`no ${event} webhook listed`);
    return hook;
  };

  it('sends a data SMS from /v1 and from the drop-in: the app gets its bytes and port, and reports it', async () => {
    const { key, call } = await tenant(app);
    const phone = await registeredApp(app, key);
    expect((await call('POST', '/v1/webhooks', { url: receiver.url, events: ['message.sent'] })).status).toBe(201);

    const ours = Buffer.from([0x00, 0x01, 0xfe, 0xff, 0x42]);
    const sent = await call('POST', '/v1/messages', {
      data: { base64: ours.toString('base64'), port: 8080 },
      to: ['+14155550301'],
    });
    expect(sent.status).toBe(202);
    const { batch, message_ids } = await readJson(sent);
    // One SMS per recipient, its bytes never shown as text.
    expect(batch).toMatchObject({
      body: '',
      data: { base64: ours.toString('base64'), port: 8080 },
      segments: 1,
      encoding: 'binary',
    });

    const theirs = Buffer.from('wake up', 'latin1');
    const accepted = await dropIn(key, 'POST', '/messages', {
      id: 'data-1',
      dataMessage: { data: theirs.toString('base64'), port: 53739 },
      phoneNumbers: ['+14155550302'],
    });
    expect(accepted.status).toBe(202);
    expect(await readJson(accepted)).toMatchObject({ id: 'data-1', state: 'Pending' });

    // server converters/messages.go MessageToMobileDTO: dataMessage, no textMessage or message.
    const pending = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    expect(pending).toHaveLength(2);
    for (const message of pending) {
      expect(message).not.toHaveProperty('textMessage');
      expect(message).not.toHaveProperty('message');
    }
    // Two sends at the same instant (the test's clock stands still) have no order between them.
    const first = pending.find((m) => m.id === message_ids[0])!;
    const second = pending.find((m) => m.id !== message_ids[0])!;
    expect(contentToSend(first)).toEqual({ kind: 'data', bytes: ours, port: 8080 });
    expect(contentToSend(second)).toEqual({ kind: 'data', bytes: theirs, port: 53739 });

    const at = (s: number) => new Date(app.clock.now().getTime() + s * 1000);
    for (const message of pending) {
      expect((await phone.patchMessages([statePatch(message, 'Sent', { Processed: at(1), Sent: at(2) })])).status).toBe(
        204,
      );
    }

    // States and events as for any message; the event's message carries the data.
    const mine = await readJson(await call('GET', `/v1/messages/${message_ids[0]}`));
    expect(mine.message).toMatchObject({
      status: 'sent',
      body: '',
      data: { base64: ours.toString('base64'), port: 8080 },
    });
    await expect
      .poll(() => receiver.requests.filter((r) => r.event === 'message.sent' && r.raw.includes(message_ids[0])).length)
      .toBe(1);
    const event = JSON.parse(receiver.requests.find((r) => r.raw.includes(message_ids[0]))!.raw);
    expect(event.data).toMatchObject({ id: message_ids[0], data: { base64: ours.toString('base64'), port: 8080 } });

    // The drop-in's state with its content names it as they do: dataMessage {data, port}.
    const state = await readJson(await dropIn(key, 'GET', '/messages/data-1'));
    expect(state).toMatchObject({
      id: 'data-1',
      state: 'Sent',
      dataMessage: { data: theirs.toString('base64'), port: 53739 },
    });
    expect(state).not.toHaveProperty('textMessage');
  });

  it('refuses a data SMS out of SMSGate’s bounds, or beside a text, and writes nothing', async () => {
    const { account, key, call } = await tenant(app);
    await registeredApp(app, key);
    const to = ['+14155550311'];
    const refusedThere = [
      { data: 'AA=', port: 1 }, // under min=4
      { data: 'not base64!', port: 1 },
      { data: 'AAAA', port: 0 },
      { data: 'AAAA', port: 65_536 },
      { data: 'AAAA' },
      { port: 1 },
      { data: 'A'.repeat(65_536), port: 1 },
    ];
    for (const dataMessage of refusedThere) {
      const res = await dropIn(key, 'POST', '/messages', { dataMessage, phoneNumbers: to });
      expect(res.status, JSON.stringify(dataMessage)).toBe(400);
    }
    const both = await dropIn(key, 'POST', '/messages', {
      textMessage: { text: 'Hi' },
      dataMessage: { data: 'AAAA', port: 1 },
      phoneNumbers: to,
    });
    expect(both.status).toBe(400);

    const refusedHere: [Record<string, unknown>, string][] = [
      [{ body: 'Hi', data: { base64: 'AAAA', port: 9 } }, 'body.body'],
      [{ data: { base64: 'AAAA', port: 0 } }, 'body.data.port'],
      [{ data: { base64: '####', port: 9 } }, 'body.data.base64'],
      [{}, 'body.body'],
    ];
    for (const [content, field] of refusedHere) {
      const res = await call('POST', '/v1/messages', { ...content, to });
      expect(res.status, JSON.stringify(content)).toBe(422);
      expect((await readJson(res)).errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const [row] = await app.orm.em
      .fork()
      .execute('select count(*)::int as n from batches where user_id = ?', [account.userId]);
    expect(row.n).toBe(0);

    // Their largest data and port are taken.
    const largest = await dropIn(key, 'POST', '/messages', {
      dataMessage: { data: 'A'.repeat(65_532), port: 65_535 },
      phoneNumbers: to,
    });
    expect(largest.status).toBe(202);
  });

  it('keeps a received data SMS, lists it in /v1 and the inbox, and tells both kinds of webhook', async () => {
    const { account, key, call } = await tenant(app);
    const phone = await registeredApp(app, key);
    const deviceId = phone.state.registration!.id;
    await call('POST', '/v1/webhooks', { url: receiver.url, events: ['message.data_received', 'message.received'] });
    for (const [id, event] of [
      ['their-data', 'sms:data-received'],
      ['their-text', 'sms:received'],
    ]) {
      const res = await dropIn(key, 'POST', '/webhooks', { id, url: receiver.url, event });
      expect(res.status, event).toBe(201);
    }

    // The app posts it as ReceiverService.kt builds it; it repeats a call until answered 2xx.
    const bytes = Buffer.from([0x0b, 0x05, 0x04, 0xd1, 0x73, 0x00, 0x00, 0x99]);
    const receivedAt = new Date(app.clock.now().getTime() - 30_000);
    const payload = smsDataReceived({ sender: '+15551230777', bytes, receivedAt, simNumber: 2 });
    const hook = await hookFor(phone, 'sms:data-received');
    const first = await phone.sendWebhook(hook, payload);
    expect(first.status).toBe(201);
    expect((await phone.sendWebhook(hook, payload)).status).toBe(200);

    const base64 = bytes.toString('base64');
    const inbound = await readJson(await call('GET', '/v1/messages?direction=inbound'));
    expect(inbound.data).toHaveLength(1);
    const [message] = inbound.data;
    expect(message).toMatchObject({
      device_id: deviceId,
      direction: 'inbound',
      status: 'received',
      sender: '+15551230777',
      body: '',
      data: { base64, port: 53739 },
      segments: 1,
      encoding: 'binary',
      sim_subscription_id: 2,
      received_at: receivedAt.toISOString(),
    });

    // SMSGate's inbox names it DATA_SMS, its preview the bytes as the app sent them.
    const inbox = await readJson(await dropIn(key, 'GET', '/inbox?type=DATA_SMS'));
    expect(inbox).toEqual([
      expect.objectContaining({ id: message.id, type: 'DATA_SMS', sender: '+15551230777', contentPreview: base64 }),
    ]);
    expect(await readJson(await dropIn(key, 'GET', '/inbox?type=SMS'))).toEqual([]);

    // Our event (not message.received: it is no text), and SMSGate's sms:data-received, once each.
    await expect
      .poll(() => receiver.requests.filter((r) => r.raw.includes(base64)).length, { timeout: 20_000 })
      .toBe(2);
    const ourDelivery = receiver.requests.find((r) => r.raw.includes(base64) && r.event === 'message.data_received');
    expect(JSON.parse(ourDelivery!.raw).data).toMatchObject({ id: message.id, data: { base64, port: 53739 } });
    const theirDelivery = receiver.requests
      .filter((r) => r.raw.includes(base64))
      .map((r) => JSON.parse(r.raw))
      .find((body) => body.webhookId === 'their-data');
    expect(theirDelivery).toMatchObject({ event: 'sms:data-received', deviceId });
    // client-go dto_webhooks.go SmsDataReceivedPayload: SmsEventPayload + data + receivedAt.
    expect(theirDelivery.payload).toEqual({
      messageId: message.id,
      phoneNumber: '+15551230777',
      sender: '+15551230777',
      simNumber: 2,
      data: base64,
      receivedAt: receivedAt.toISOString(),
    });
    // An inbox export goes to sms:received webhooks: texts only, so nothing of it.
    const exported = await dropIn(key, 'POST', '/inbox/export', {
      deviceId,
      since: new Date(receivedAt.getTime() - 60_000).toISOString(),
      until: new Date(app.clock.now().getTime() + 60_000).toISOString(),
    });
    expect(exported.status).toBe(202);
    expect(await eventsOf(app.orm, { userId: account.userId, name: 'message.received' })).toEqual([]);

    // Receiving turned off: the app is no longer given the webhook.
    expect((await call('PATCH', `/v1/devices/${deviceId}`, { receive_enabled: false })).status).toBe(200);
    const hooks = (await readJson(await phone.getWebhooks())) as { event: string }[];
    expect(hooks.map((h) => h.event)).toEqual(['app:started', 'system:ping']);
  });
});
