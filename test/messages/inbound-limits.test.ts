import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger';
import { INBOUND_BODY_MAX, INBOUND_SENDER_MAX, cutText } from '../../src/messages/inbound-limits';
import { startTestApp, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { readJson } from '../support/http';
import { freePort } from '../support/net';
import { accountWithKey, bearer, pairPhone, type PairedPhone } from '../devices/helpers';
import { registeredApp } from '../compat/smsgate/helpers';
import { smsReceived, type FakeApp } from '../compat/smsgate/fake-app';

// A phone forwards what it received and drops it after a few refused retries (the SMSGate app: 15):
// every text a phone can receive is taken through both APIs, and what is still refused is logged and
// counted. Issue 37, point 4.

/** The longest concatenated SMS: 255 parts of 153 GSM-7 characters. */
const LONGEST_SMS = 'Lorem ipsum dolor sit amet. '.repeat(1400).slice(0, 255 * 153);
/** Senders a handset shows: an alphanumeric sender id, a short code, an e-mail address from a CDMA network. */
const SENDERS = ['ACME Bank', '72975', `alerts.for.your.account.${'x'.repeat(60)}@notifications.example.com`];

describe('inbound texts are never dropped', () => {
  let app: TestApp;
  const logLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({
      port,
      env: { PUBLIC_URL: `http://127.0.0.1:${port}` },
      logger: createLogger('warn', { write: (line: string) => void logLines.push(JSON.parse(line)) }),
    });
  });
  afterAll(() => app?.close());

  const metric = async (name: 'inbound' | 'inboundCut', label: Record<string, string>) =>
    (await app.services.metrics.phone[name].get()).values.find((v) =>
      Object.entries(label).every(([k, value]) => (v.labels as Record<string, unknown>)[k] === value),
    )?.value ?? 0;

  const forward = (phone: PairedPhone, text: Record<string, unknown>) =>
    app.fetch('/v1/device/inbound', json('POST', text, bearer(phone.token)));

  it('takes the longest concatenated text and any sender a handset shows on /v1, as they are', async () => {
    expect(LONGEST_SMS).toHaveLength(39_015);
    expect(INBOUND_BODY_MAX).toBe(39_015);
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    for (const [i, sender] of SENDERS.entries()) {
      const res = await forward(phone, {
        body: LONGEST_SMS,
        sender,
        received_at: new Date().toISOString(),
        fingerprint: `long-${i}`,
      });
      expect(res.status, sender).toBe(201);
      const { message } = await readJson(res);
      expect(message).toMatchObject({ direction: 'inbound', sender });
      expect(message.body).toBe(LONGEST_SMS);
    }
    const list = await readJson(await app.fetch('/v1/messages?direction=inbound', { headers: { 'x-api-key': key } }));
    expect(list.data.map((m: { sender: string }) => m.sender).sort()).toEqual([...SENDERS].sort());
  });

  it('takes the same through the SMSGate app’s sms:received and mms:downloaded webhooks', async () => {
    const { key } = await accountWithKey(app);
    const phone: FakeApp = await registeredApp(app, key);
    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const sms = hooks.find((h) => h.event === 'sms:received')!;
    const mms = hooks.find((h) => h.event === 'mms:downloaded')!;
    for (const sender of SENDERS) {
      const res = await phone.sendWebhook(sms, smsReceived({ sender, text: LONGEST_SMS, receivedAt: app.clock.now() }));
      expect(res.status, sender).toBe(201);
      expect((await readJson(res)).message).toMatchObject({ sender, body: LONGEST_SMS });
    }
    // An MMS's text part is not bound by the SMS figures: past them it is kept in part, never refused.
    const longMms = 'M'.repeat(INBOUND_BODY_MAX + 500);
    const before = await metric('inboundCut', { field: 'body' });
    const res = await phone.sendWebhook(mms, {
      messageId: 'mms-long',
      sender: 'ACME Bank',
      recipient: null,
      simNumber: 1,
      phoneNumber: 'ACME Bank',
      subject: null,
      body: longMms,
      size: 1000,
      contentClass: null,
      attachments: [],
      receivedAt: new Date(app.clock.now()).toISOString(),
    });
    expect(res.status).toBe(201);
    expect((await readJson(res)).message.body).toBe(longMms.slice(0, INBOUND_BODY_MAX));
    expect(await metric('inboundCut', { field: 'body' })).toBe(before + 1);
    const line = logLines.find((l) => String(l.msg).startsWith('inbound: a received text kept in part'));
    expect(line).toMatchObject({ bodyLength: INBOUND_BODY_MAX + 500, cutBody: 'M'.repeat(500) });
  });

  it('keeps a text and a sender past those bounds in part, and logs and counts it', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const before = await metric('inboundCut', { field: 'sender' });
    const res = await forward(phone, {
      body: `${LONGEST_SMS}😀 and more`,
      sender: 'S'.repeat(INBOUND_SENDER_MAX + 10),
      received_at: new Date().toISOString(),
      fingerprint: 'too-long',
    });
    expect(res.status).toBe(201);
    const { message } = await readJson(res);
    expect(message.body).toBe(LONGEST_SMS);
    expect(message.sender).toBe('S'.repeat(INBOUND_SENDER_MAX));
    expect(await metric('inboundCut', { field: 'sender' })).toBe(before + 1);
    // A repeat is the same text, not a second one.
    const again = await forward(phone, {
      body: `${LONGEST_SMS}😀 and more`,
      sender: 'S'.repeat(INBOUND_SENDER_MAX + 10),
      received_at: new Date().toISOString(),
      fingerprint: 'too-long',
    });
    expect(again.status).toBe(200);
    // Never between the halves of a surrogate pair.
    expect(cutText('ab😀', 3)).toBe('ab');
    expect(cutText('ab😀', 4)).toBe('ab😀');
  });

  it('logs and counts a forward still refused, with its text and without the sender’s number', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const before = await metric('inbound', { result: 'refused' });
    const res = await forward(phone, { body: 'No time given', sender: '+14155550100' });
    expect(res.status).toBe(422);
    expect(await readJson(res)).toMatchObject({ code: 'validation_failed', status: 422 });
    expect(await metric('inbound', { result: 'refused' })).toBe(before + 1);
    const line = logLines.filter((l) => String(l.msg).startsWith('inbound: a forwarded text was refused')).at(-1);
    expect(line).toMatchObject({ status: 422, text: { body: 'No time given', sender: '[12 characters]' } });
    expect(JSON.stringify(line)).not.toContain('4155550100');
  });
});
