import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app';
import { readJson } from '../support/http';
import type { WorkflowStack } from '../support/temporal';
import { queryRaw, sql } from '../../src/db/sql';
import { registeredApp, startSmsGateStack, tenant } from '../compat/smsgate/helpers';
import { INTEGRATOR_API, integratorClient } from '../compat/smsgate/integrator-client';
import { mmsDownloaded, mmsReceived, type FakeApp } from '../compat/smsgate/fake-app';
import { startReceiver, type Receiver } from '../webhooks/receiver';

// A received MMS through the SMSGate app (src/compat/smsgate) into src/mms/: its attachments kept
// within the account's quota and retention, listed and served on /v1 and on the drop-in API.

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>');
const QUOTA = 1000;

describe('received MMS and their attachments', () => {
  let stack: WorkflowStack;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startSmsGateStack('mms-test', {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      MMS_ATTACHMENT_QUOTA_BYTES: String(QUOTA),
      MMS_ATTACHMENT_RETENTION: '30d',
    });
    ({ app } = stack);
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  const hookFor = async (phone: FakeApp, event: string) => {
    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const hook = hooks.find((h) => h.event === event);
    if (!hook) throw new Error(`no ${event} webhook listed`);
    return hook;
  };

  async function received(phone: FakeApp, mmsId: number, parts: Parameters<typeof mmsDownloaded>[0]['parts']) {
    const payload = mmsDownloaded({
      mmsId,
      sender: '+15551230177',
      receivedAt: app.clock.now(),
      subject: 'Photos',
      body: 'From the trip',
      parts,
    });
    const res = await phone.sendWebhook(await hookFor(phone, 'mms:downloaded'), payload);
    expect(res.status).toBe(201);
    return (await readJson(res)).message.id as string;
  }

  const stored = (metric: string) =>
    app.services.metrics.registry.getSingleMetricAsString('phone_gateway_mms_attachments_total').then((text) => {
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`phone_gateway_mms_attachments_total{result="${metric}"}`));
      return line ? Number(line.split(' ').pop()) : 0;
    });

  it('keeps an MMS’s attachments, lists them on the message and serves each only to its account', async () => {
    const { key, call } = await tenant(app);
    const phone = await registeredApp(app, key);
    // The app's webhook list names both MMS events (the app registers what it is given).
    const events = ((await readJson(await phone.getWebhooks())) as { event: string }[]).map((h) => h.event);
    expect(events).toEqual(expect.arrayContaining(['mms:received', 'mms:downloaded']));

    const id = await received(phone, 501, [
      { partId: 7, contentType: 'image/png', name: 'dot.png', bytes: PNG },
      { partId: 8, contentType: 'image/svg+xml', name: 'evil.svg', bytes: SVG },
    ]);
    const message = (await readJson(await call('GET', `/v1/messages/${id}`))).message;
    expect(message).toMatchObject({ direction: 'inbound', body: 'Photos\nFrom the trip', subject: 'Photos' });
    expect(message.attachments).toEqual([
      {
        id: expect.any(String),
        part_id: 7,
        content_type: 'image/png',
        name: 'dot.png',
        size: PNG.length,
        stored: true,
        not_stored: null,
      },
      {
        id: expect.any(String),
        part_id: 8,
        content_type: 'image/svg+xml',
        name: 'evil.svg',
        size: SVG.length,
        stored: true,
        not_stored: null,
      },
    ]);
    const list = (await readJson(await call('GET', '/v1/messages?direction=inbound'))).data;
    expect(list.find((m: { id: string }) => m.id === id).attachments).toHaveLength(2);

    // message.received carries the list (and mms.downloaded too), in the same transaction.
    const [event] = await queryRaw(
      app.orm.em.fork(),
      sql`select data from events where message_id = ${id} and name = 'message.received'`,
    );
    expect((event.data as { attachments: unknown[] }).attachments).toEqual(message.attachments);

    const png = await call('GET', `/v1/messages/${id}/attachments/${message.attachments[0].id}`);
    expect(png.status).toBe(200);
    expect(Buffer.from(await png.arrayBuffer())).toEqual(PNG);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('content-disposition')).toMatch(/^inline; filename="dot.png"/);
    expect(png.headers.get('x-content-type-options')).toBe('nosniff');
    expect(png.headers.get('content-security-policy')).toMatch(/^sandbox/);

    // An SVG (script inside) is a download, never a page of the dashboard's origin.
    const svg = await call('GET', `/v1/messages/${id}/attachments/${message.attachments[1].id}`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-disposition')).toMatch(/^attachment; filename="evil.svg"/);
    expect(svg.headers.get('x-content-type-options')).toBe('nosniff');
    expect(svg.headers.get('content-security-policy')).toMatch(/^sandbox/);

    // Another account's id is a 404, as is an attachment of another message.
    const other = await tenant(app);
    expect((await other.call('GET', `/v1/messages/${id}/attachments/${message.attachments[0].id}`)).status).toBe(404);
    expect((await call('GET', `/v1/messages/${id}/attachments/${crypto.randomUUID()}`)).status).toBe(404);

    // The app retries a webhook until answered: the same MMS again stores nothing twice.
    const again = await phone.sendWebhook(
      await hookFor(phone, 'mms:downloaded'),
      mmsDownloaded({
        mmsId: 501,
        sender: '+15551230177',
        receivedAt: new Date(message.received_at),
        subject: 'Photos',
        body: 'From the trip',
        parts: [{ partId: 7, contentType: 'image/png', name: 'dot.png', bytes: PNG }],
      }),
    );
    expect(again.status).toBe(200);

    // Deleted with their message.
    await queryRaw(app.orm.em.fork(), sql`delete from events where message_id = ${id}`);
    await queryRaw(app.orm.em.fork(), sql`delete from webhook_deliveries where message_id = ${id}`);
    await queryRaw(app.orm.em.fork(), sql`delete from messages where id = ${id}`);
    const [left] = await queryRaw(
      app.orm.em.fork(),
      sql`select count(*)::int as n from mms_attachments where message_id = ${id}`,
    );
    expect(left.n).toBe(0);
  });

  it('keeps an MMS past the account’s quota, says which attachment was not stored, and drops bytes at retention', async () => {
    const { key, call } = await tenant(app);
    const phone = await registeredApp(app, key);
    const before = await stored('over_quota');
    const big = Buffer.alloc(QUOTA - 100, 1);
    const first = await received(phone, 601, [{ partId: 1, contentType: 'image/jpeg', name: 'a.jpg', bytes: big }]);
    const second = await received(phone, 602, [
      { partId: 2, contentType: 'image/jpeg', name: 'b.jpg', bytes: Buffer.alloc(200, 2) },
      { partId: 3, contentType: 'audio/amr', name: null, bytes: null },
    ]);
    const kept = (await readJson(await call('GET', `/v1/messages/${second}`))).message;
    expect(kept.body).toBe('Photos\nFrom the trip');
    expect(kept.attachments).toEqual([
      expect.objectContaining({ part_id: 2, size: 200, stored: false, not_stored: 'over_quota' }),
      expect.objectContaining({ part_id: 3, stored: false, not_stored: 'no_data' }),
    ]);
    expect(await stored('over_quota')).toBe(before + 1);
    const refused = await call('GET', `/v1/messages/${second}/attachments/${kept.attachments[0].id}`);
    expect(refused.status).toBe(410);
    expect(await readJson(refused)).toMatchObject({ code: 'not_stored' });

    // The reconciler's sweep drops bytes past the retention; the list keeps the attachment.
    const firstView = (await readJson(await call('GET', `/v1/messages/${first}`))).message;
    const path = `/v1/messages/${first}/attachments/${firstView.attachments[0].id}`;
    expect((await call('GET', path)).status).toBe(200);
    const now = app.clock.now();
    app.clock.set(new Date(now.getTime() + 31 * 86_400_000));
    try {
      expect(await app.services.mms.sweep().run()).toBeGreaterThan(0);
    } finally {
      app.clock.set(now);
    }
    expect((await call('GET', path)).status).toBe(410);
    expect((await readJson(await call('GET', `/v1/messages/${first}`))).message.attachments[0]).toMatchObject({
      stored: false,
      not_stored: 'expired',
    });
  });

  it('serves the drop-in inbox’s attachments and sends mms:* webhooks in SMSGate’s shape', async () => {
    const { key } = await tenant(app);
    const phone = await registeredApp(app, key);
    const client = integratorClient(app.url, key);
    // The delivery rows, written with the events, are what is checked.
    for (const event of ['sms:received', 'mms:received', 'mms:downloaded'])
      await client.registerWebhook({ url: `${receiver.url}?${event}`, event: event as never });

    const notice = await phone.sendWebhook(
      await hookFor(phone, 'mms:received'),
      mmsReceived({ transactionId: 'T0abc', sender: '+15551230177', receivedAt: app.clock.now(), size: 2048 }),
    );
    expect(notice.status).toBe(204);
    const id = await received(phone, 701, [{ partId: 9, contentType: 'image/png', name: 'dot.png', bytes: PNG }]);

    const deliveries = await queryRaw(
      app.orm.em.fork(),
      sql`select d.body from webhook_deliveries d join webhooks w on w.id = d.webhook_id
          where w.user_id = (select user_id from messages where id = ${id}) order by d.created_at`,
    );
    const bodies = deliveries.map(
      (d) => JSON.parse(d.body as string) as { event: string; payload: Record<string, unknown> },
    );
    // An MMS is no sms:received.
    expect(bodies.map((b) => b.event).sort()).toEqual(['mms:downloaded', 'mms:received']);
    expect(bodies.find((b) => b.event === 'mms:received')!.payload).toMatchObject({
      messageId: 'T0abc',
      transactionId: 'T0abc',
      sender: '+15551230177',
      size: 2048,
    });
    expect(bodies.find((b) => b.event === 'mms:downloaded')!.payload).toMatchObject({
      messageId: id,
      sender: '+15551230177',
      subject: 'Photos',
      body: 'From the trip',
      attachments: [{ partId: 9, contentType: 'image/png', name: 'dot.png', size: PNG.length }],
    });

    const auth = { Authorization: `Basic ${Buffer.from(`x:${key}`).toString('base64')}` };
    const inbox = await (
      await fetch(`${app.url}${INTEGRATOR_API}/inbox?type=MMS_DOWNLOADED&includeAttachments=true`, { headers: auth })
    ).json();
    expect(inbox).toEqual([
      expect.objectContaining({
        id,
        type: 'MMS_DOWNLOADED',
        attachments: [{ partId: 9, name: 'dot.png', size: PNG.length, contentType: 'image/png' }],
      }),
    ]);
    const file = await fetch(`${app.url}${INTEGRATOR_API}/inbox/${id}/attachments/9`, { headers: auth });
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);
    expect((await fetch(`${app.url}${INTEGRATOR_API}/inbox/${id}/attachments/10`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${app.url}${INTEGRATOR_API}/inbox/${id}/attachments/x`, { headers: auth })).status).toBe(400);
    const other = await tenant(app);
    const theirs = { Authorization: `Basic ${Buffer.from(`x:${other.key}`).toString('base64')}` };
    expect((await fetch(`${app.url}${INTEGRATOR_API}/inbox/${id}/attachments/9`, { headers: theirs })).status).toBe(
      404,
    );
  });
});
