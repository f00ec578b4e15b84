/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD, type Account } from '../support/accounts';
import type { TestApp } from '../support/app';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';
import { Contexts, onApp, shown, signInOn, startAppScene, type AppScene } from './browser';
import { smsDataReceived } from '../compat/smsgate/fake-app';
import { registeredApp } from '../compat/smsgate/helpers';

// The Inbox in a real Chromium against the real API and Postgres: texts a phone reports through
// POST /v1/device/inbound appear while the screen is open, and its polls ask only for what is new.

describe('the Inbox', () => {
  let app: TestApp;
  let browser: Browser;
  let account: Account;
  let phone: PairedPhone;
  const contexts = new Contexts(() => browser);

  let scene: AppScene | undefined;
  beforeAll(async () => {
    // Two phones: the one texts arrive on, and the SMSGate app of the data SMS test.
    scene = await startAppScene(contexts, { plan: 'pro' });
    ({ app, browser, account } = scene);
    phone = await pairPhone(app, await createKey(app, account), { name: 'Front desk' });
  }, 240_000);
  afterAll(() => scene?.close());

  const receive = async (sender: string, body: string) => {
    const res = await app.fetch(
      '/v1/device/inbound',
      json('POST', { sender, body, received_at: new Date().toISOString() }, bearer(phone.token)),
    );
    expect(res.status).toBe(201);
  };

  it('shows a text arriving while it is open, marked new, asking only for what came since the newest', async () => {
    await receive('+14155550301', 'Already here');
    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/v1/messages') asked.push(url.search);
    });
    await page.goto('/inbox');
    const texts = page.getByTestId('inbox-message');
    await shown(texts.filter({ hasText: 'Already here' }));
    expect(await texts.filter({ hasText: 'Already here' }).getByText('new', { exact: true }).count()).toBe(0);

    const url = page.url();
    await receive('+14155550302', 'Just arrived');
    const arrived = texts.filter({ hasText: 'Just arrived' });
    await shown(arrived);
    await shown(arrived.getByText('new', { exact: true }));
    expect(page.url()).toBe(url);
    // Newest first, each once.
    expect(await texts.allTextContents()).toEqual([
      expect.stringContaining('Just arrived'),
      expect.stringContaining('Already here'),
    ]);
    // The latest page first, then only what arrived since the newest text held.
    const first = new URLSearchParams(asked[0]);
    expect(first.get('limit')).toBe('50');
    expect(first.get('from')).toBeNull();
    expect(asked.length).toBeGreaterThan(1);
    for (const search of asked.slice(1)) {
      const query = new URLSearchParams(search);
      expect(query.get('order')).toBe('asc');
      expect(query.get('from')).not.toBeNull();
    }
  });

  it('shows a data SMS by its port and size, never its bytes as text, in the inbox, the messages and its own screen', async () => {
    const key = await createKey(app, account);
    const bytes = Buffer.from('SECRETBYTES!', 'latin1');
    const base64 = bytes.toString('base64');
    // Received: the SMSGate app posts sms:data-received to the call back it is given.
    const smsgate = await registeredApp(app, key);
    const deviceId = smsgate.state.registration!.id;
    const hook = { id: 'data', url: `${app.url}/compat/smsgate/webhooks/${deviceId}`, event: 'sms:data-received' };
    const payload = smsDataReceived({ sender: '+14155550399', bytes, receivedAt: new Date() });
    expect((await smsgate.sendWebhook(hook, payload)).status).toBe(201);
    // Sent: a data SMS through /v1.
    const sent = await app.fetch(
      '/v1/messages',
      json('POST', { to: ['+14155550398'], data: { base64, port: 8080 }, device_id: deviceId }, { 'x-api-key': key }),
    );
    expect(sent.status).toBe(202);
    const [messageId] = (await sent.json()).message_ids as string[];

    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto('/inbox');
    const received = page.getByTestId('inbox-message').filter({ hasText: '+14155550399' });
    await shown(received);
    expect(await received.getByTestId('data-sms').textContent()).toBe('Data SMS to port 53739, 12 bytes');

    await page.goto('/messages');
    const row = page.getByTestId('message-row').filter({ hasText: '+14155550398' });
    await shown(row);
    expect(await row.getByTestId('data-sms').textContent()).toBe('Data SMS to port 8080, 12 bytes');

    await page.goto(`/messages/${messageId}`);
    await shown(page.getByTestId('message-size'));
    expect(await page.getByTestId('message-size').textContent()).toBe('1 segment · binary');
    expect(await page.getByTestId('data-sms').textContent()).toBe('Data SMS to port 8080, 12 bytes');

    for (const path of ['/inbox', '/messages', `/messages/${messageId}`]) {
      await page.goto(path);
      await shown(page.getByTestId('data-sms'));
      const text = await page.locator('body').innerText();
      expect({ path, bytes: text.includes(base64) || text.includes('SECRETBYTES') }).toEqual({ path, bytes: false });
    }
  });

  it('logged no console errors on any page', () => {
    expect(contexts.consoleErrors()).toEqual([]);
  });
});
