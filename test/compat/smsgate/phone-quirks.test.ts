import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app';
import { readJson } from '../../support/http';
import { gsonDateOn, smsReceived, statePatch, type PendingMessage, type SimCard } from './fake-app';
import { json } from '../../support/accounts';
import type { WorkflowStack } from '../../support/temporal';
import { MOBILE_API, registeredApp, startSmsGateStack, tenant } from './helpers';

// What real phones and real people send that the wire shapes alone do not show: a URL typed with a
// trailing slash, a SIM Android cannot place, an MMS with pictures, the dates of Android 5 and 6.
// Sources: capcom6/android-sms-gateway@0cdc5d86, app/src/main/java/me/capcom/smsgateway/…

describe('what real SMSGate phones send', () => {
  let stack: WorkflowStack;
  let app: TestApp;

  beforeAll(async () => {
    stack = await startSmsGateStack('smsgate-quirks-test');
    app = stack.app;
  });
  afterAll(async () => {
    await stack?.close();
  });

  const paired = (key: string, apiUrl?: string, simCards?: SimCard[]) => registeredApp(app, key, { apiUrl, simCards });

  it('takes an API URL typed with a trailing slash, and never answers its paths with the dashboard', async () => {
    const { key, call } = await tenant(app);
    // GatewayApi.kt builds "$baseUrl/device": `…/v1/` makes `…/v1//device`, `…/v1//settings`.
    const phone = await paired(key, `${app.url}${MOBILE_API}/`);
    const settings = await phone.getSettings();
    expect(settings.status).toBe(200);
    expect(settings.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await readJson(settings)).webhooks.signing_key).toEqual(expect.any(String));
    expect((await phone.getWebhooks()).status).toBe(200);
    await call('POST', '/v1/messages', { body: 'Slash', to: ['+14155550170'] });
    const pending = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
    expect(pending.map((m) => m.message)).toEqual(['Slash']);
    const stream = await phone.openEvents();
    expect(stream.res.status).toBe(200);
    await stream.close();

    // Nothing under /compat or /v1 is the dashboard's page: an unknown path is the API's 404.
    for (const path of [`${MOBILE_API}/nothing`, `${MOBILE_API}//nothing`, '/compat/other', '/compat', '/v1/nothing']) {
      const res = await app.fetch(path);
      expect(res.status, path).toBe(404);
      expect(await readJson(res), path).toMatchObject({ code: 'not_found', status: 404 });
    }
  });

  it('leaves out a SIM without a slot (slotIndex -1) instead of refusing the registration', async () => {
    const { key } = await tenant(app);
    // helpers/SubscriptionsHelper.kt getActiveSimCards: slotIndex = SubscriptionInfo.simSlotIndex
    // (-1 for a SIM Android cannot place, such as an eSIM profile being switched), simNumber = slot + 1.
    const cards: SimCard[] = [
      { slotIndex: -1, simNumber: 0, phoneNumber: null, carrierName: 'eSIM', iccid: null },
      { slotIndex: 0, simNumber: 1, phoneNumber: '*******4567', carrierName: 'T-Mobile', iccid: null },
    ];
    const phone = await paired(key, undefined, cards);
    const id = phone.state.registration!.id;
    const device = (await readJson(await app.fetch(`/v1/devices/${id}`, { headers: { 'x-api-key': key } }))).device;
    expect(device.sims).toEqual([expect.objectContaining({ subscription_id: 1, slot: 0, carrier: 'T-Mobile' })]);
    // The device update (GatewayService.kt updateDevice) with the same SIMs is taken too.
    expect((await phone.patchDevice({ simCards: cards })).status).toBe(204);
  });

  it('takes an MMS with pictures up to 10 MB on the webhook route, its signature checked over the raw body', async () => {
    const { key } = await tenant(app);
    const phone = await paired(key);
    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const mms = hooks.find((h) => h.event === 'mms:downloaded')!;
    // webhooks/payload/MmsDownloadedPayload.kt: attachments carry their data inline (base64).
    const payload = (size: number, messageId: string) => ({
      messageId,
      sender: '+15551230150',
      recipient: null,
      simNumber: 1,
      phoneNumber: '+15551230150',
      body: 'Pictures',
      subject: null,
      attachments: [
        { partId: 1, contentType: 'image/jpeg', name: 'a.jpg', size, data: 'A'.repeat(Math.ceil((size * 4) / 3)) },
      ],
      receivedAt: gsonDateOn(app.clock.now(), { sdk: 33, rawOffsetMinutes: 0 }),
    });
    const stored = await phone.sendWebhook(mms, payload(3_000_000, 'm1'));
    expect(stored.status).toBe(201);
    expect((await readJson(stored)).message).toMatchObject({ body: 'Pictures', sender: '+15551230150' });
    // The same size signed with another key, or not signed at all: no bigger limit, no entry.
    expect((await phone.sendWebhook(mms, payload(3_000_000, 'm2'), { signingKey: 'not-the-key' })).status).toBe(401);
    const unsigned = await app.fetch(
      new URL(mms.url).pathname,
      json('POST', { event: 'mms:downloaded', payload: payload(3_000_000, 'm3') }),
    );
    expect(unsigned.status).toBe(413);
    // Above 10 MB even a signed call is too large.
    const huge = await phone.sendWebhook(mms, payload(8_000_000, 'm4'));
    expect(huge.status).toBe(413);
    expect(await readJson(huge)).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  describe('dates as each Android version writes them', () => {
    // extensions/GsonBuilder.kt: the pattern differs below Android 7 (SDK 24).
    const versions = {
      android13Utc: { sdk: 33, rawOffsetMinutes: 0 },
      android6Utc: { sdk: 23, rawOffsetMinutes: 0 },
      android6India: { sdk: 23, rawOffsetMinutes: 330 },
      android5NewYork: { sdk: 21, rawOffsetMinutes: -300 },
      android6Newfoundland: { sdk: 23, rawOffsetMinutes: -210 },
    };

    it('are written as the app writes them', () => {
      const at = new Date('2026-07-01T12:00:00.000Z');
      expect(gsonDateOn(at, versions.android13Utc)).toBe('2026-07-01T12:00:00.000Z');
      expect(gsonDateOn(at, { sdk: 33, rawOffsetMinutes: -300, dstMinutes: 60 })).toBe('2026-07-01T08:00:00.000-04:00');
      expect(gsonDateOn(at, versions.android6Utc)).toBe('2026-07-01T12:00:00.000+0000');
      expect(gsonDateOn(at, { sdk: 23, rawOffsetMinutes: 0, dstMinutes: 60 })).toBe('2026-07-01T13:00:00.000+0100');
      expect(gsonDateOn(at, versions.android6India)).toBe('2026-07-01T17:30:00.000+05:30');
      expect(gsonDateOn(at, versions.android5NewYork)).toBe('2026-07-01T07:00:00.000+-5:00');
      expect(gsonDateOn(at, versions.android6Newfoundland)).toBe('2026-07-01T08:30:00.000+-3:-30');
    });

    it('are taken when readable and replaced by the server’s time when not, never refusing the report', async () => {
      const { key, call } = await tenant(app);
      const phone = await paired(key);
      const to = Object.keys(versions).map((_, i) => `+1415555020${i}`);
      const { batch } = await readJson(await call('POST', '/v1/messages', { body: 'Dates', to }));
      const pending = (await readJson(await phone.getMessages('fifo'))) as PendingMessage[];
      const sentAt = new Date(app.clock.now().getTime() - 60_000);
      const now = app.clock.now();
      for (const [i, android] of Object.values(versions).entries()) {
        const patch = statePatch(pending[i], 'Sent', { Pending: sentAt, Processed: sentAt, Sent: sentAt }, null, (d) =>
          gsonDateOn(d, android),
        );
        expect((await phone.patchMessages([patch])).status).toBe(204);
      }
      const messages = (await readJson(await call('GET', `/v1/batches/${batch.id}`))).messages as {
        recipient: string;
        status: string;
        sent_at: string;
      }[];
      const sentOf = Object.fromEntries(messages.map((m) => [m.recipient, m]));
      const expected = [sentAt, sentAt, sentAt, now, now];
      to.forEach((recipient, i) =>
        expect(sentOf[recipient], Object.keys(versions)[i]).toMatchObject({
          status: 'sent',
          sent_at: expected[i].toISOString(),
        }),
      );

      // A text received on an Android 5 phone west of UTC: stored at the server's time, once.
      const hook = ((await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[]).find(
        (h) => h.event === 'sms:received',
      )!;
      const text = smsReceived({ sender: '+15551230160', text: 'From an old phone', receivedAt: sentAt }, (d) =>
        gsonDateOn(d, versions.android5NewYork),
      );
      const first = await phone.sendWebhook(hook, text);
      expect(first.status).toBe(201);
      expect((await readJson(first)).message.received_at).toBe(now.toISOString());
      app.clock.advance(30_000);
      const retry = await phone.sendWebhook(hook, text);
      expect(retry.status).toBe(200);
      expect((await readJson(retry)).inserted).toBe(false);
    });
  });
});
