/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD, type Account } from '../support/accounts';
import type { TestApp } from '../support/app';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';
import { axeViolations, checkShot, Contexts, onApp, shown, signInOn, startAppScene, type AppScene } from './browser';
import { smsDataReceived } from '../compat/smsgate/fake-app';
import { registeredApp } from '../compat/smsgate/helpers';

// The Inbox in a real Chromium against the real API and Postgres: a conversation per number that
// texted, found by number or words; texts a phone reports through POST /v1/device/inbound appear
// in their conversation while the screen is open, and its polls ask only for what is new.

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

  /** A text to the account's phone, a second after the one before on the app's clock (its order is the inbox's). */
  const receive = async (sender: string, body: string) => {
    app.clock.advance(1000);
    const res = await app.fetch(
      '/v1/device/inbound',
      json('POST', { sender, body, received_at: new Date().toISOString() }, bearer(phone.token)),
    );
    expect(res.status).toBe(201);
  };

  it('shows a text arriving while it is open, in its conversation, marked new, asking only for what came since', async () => {
    await receive('+14155550301', 'Already here');
    await receive('+14155550303', 'Earlier question');
    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/v1/messages') asked.push(url.search);
    });
    await page.goto('/inbox');
    const conversations = page.getByTestId('conversation');
    await shown(conversations.filter({ hasText: 'Already here' }));
    expect(await conversations.filter({ hasText: 'Already here' }).getByText('new', { exact: true }).count()).toBe(0);

    const url = page.url();
    await receive('+14155550302', 'Just arrived');
    const arrived = conversations.filter({ hasText: 'Just arrived' });
    await shown(arrived);
    await shown(arrived.getByText('new', { exact: true }));
    // A second text from a number already listed joins its conversation, which moves to the top.
    await receive('+14155550303', 'Are you there?');
    const again = conversations.filter({ hasText: 'Are you there?' });
    await shown(again.getByText('new', { exact: true }));
    expect(await again.getByTestId('conversation-count').textContent()).toBe('2 texts, 2 received');
    expect(page.url()).toBe(url);
    // Latest conversation first, each number once.
    await expect
      .poll(() => conversations.evaluateAll((els) => els.map((el) => el.getAttribute('data-contact'))))
      .toEqual(['+14155550303', '+14155550302', '+14155550301']);
    // The newest received text first, then only what arrived since it.
    const first = new URLSearchParams(asked[0]);
    expect(first.get('limit')).toBe('1');
    expect(first.get('from')).toBeNull();
    expect(asked.length).toBeGreaterThan(1);
    for (const search of asked.slice(1)) {
      const query = new URLSearchParams(search);
      expect(query.get('order')).toBe('asc');
      expect(query.get('from')).not.toBeNull();
    }
  });

  it('finds conversations by number or by words of a text, and opens one as its thread', async () => {
    await receive('+14155550321', 'Do you deliver to Springfield?');
    await receive('+14155550322', 'Booking for Friday');
    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto('/inbox');
    const conversations = page.getByTestId('conversation');
    await shown(conversations.filter({ hasText: 'Booking for Friday' }));
    const search = page.getByRole('searchbox', { name: 'Search conversations' });

    await search.fill('springfield');
    await expect
      .poll(() => conversations.evaluateAll((els) => els.map((el) => el.getAttribute('data-contact'))))
      .toEqual(['+14155550321']);
    await search.fill('550322');
    await expect
      .poll(() => conversations.evaluateAll((els) => els.map((el) => el.getAttribute('data-contact'))))
      .toEqual(['+14155550322']);
    await search.fill('no such words');
    await shown(page.getByText('No conversation matches'));
    expect(await conversations.count()).toBe(0);
    expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });

    await search.fill('Friday');
    await conversations.first().getByRole('link', { name: 'Reply to +14155550322' }).click();
    await shown(page.getByRole('heading', { name: 'Texts with +14155550322', level: 1 }));
    await shown(page.getByTestId('thread-message').filter({ hasText: 'Booking for Friday' }));
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
    const received = page.getByTestId('conversation').filter({ hasText: '+14155550399' });
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

  it('offers Reply only to numbers it can send to, warns of an opt-out and shows why a reply failed', async () => {
    await receive('+447700900123', 'Can you call me?');
    await receive('+14155550310', 'STOP');
    await receive('+14155550311', 'Are you open today?');
    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto('/inbox');
    const texts = page.getByTestId('conversation');

    // A number in no country's plan: no Reply to be refused later, and why, in words.
    const fictional = texts.filter({ hasText: 'Can you call me?' });
    await shown(fictional);
    expect(await fictional.getByRole('link', { name: 'Reply to +447700900123' }).count()).toBe(0);
    expect(await fictional.getByTestId('no-reply').textContent()).toBe(
      "No reply: +447700900123 is not a number texts can be sent to: no country's numbering plan gives it to a phone.",
    );
    await fictional.getByRole('link', { name: 'Open the thread with +447700900123' }).click();
    await shown(page.getByRole('heading', { name: 'Texts with +447700900123' }));
    await shown(page.getByTestId('no-reply'));
    expect(await page.getByRole('form', { name: 'Reply' }).count()).toBe(0);

    // A number that texted STOP: its thread says so before anyone writes, and sends nothing.
    await page.goto('/inbox');
    await texts.filter({ hasText: 'STOP' }).getByRole('link', { name: 'Reply to +14155550310' }).click();
    const warning = page.getByTestId('opted-out-warning');
    await shown(warning);
    expect(await warning.textContent()).toMatch(/opted out.*texted STOP.*until it texts START/);
    await page.getByLabel('Reply to +14155550310').fill('Sorry to see you go');
    expect(await page.getByRole('button', { name: 'Send reply' }).isDisabled()).toBe(true);

    // A reply the phone could not send reads as failed, with the phone's reason, not "Sent".
    await page.goto('/inbox');
    await texts.filter({ hasText: 'Are you open today?' }).getByRole('link', { name: 'Reply to +14155550311' }).click();
    await page.getByLabel('Reply to +14155550311').fill('Yes, until six');
    await page.getByRole('button', { name: 'Send reply' }).click();
    const reply = page.getByTestId('thread-message').filter({ hasText: 'Yes, until six' });
    await shown(reply.getByText(/^Waiting to be sent since /));
    const outbox = await (await app.fetch('/v1/device/outbox?limit=10', { headers: bearer(phone.token) })).json();
    const [taken] = outbox.data as Array<{ id: string }>;
    const report = {
      reports: [
        { id: taken.id, status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE', error_message: 'No mobile service.' },
      ],
    };
    expect((await app.fetch('/v1/device/messages/status', json('POST', report, bearer(phone.token)))).status).toBe(200);
    await shown(reply.getByText(/^Failed /));
    expect(await reply.getByTestId('thread-error').textContent()).toBe('No mobile service.');
    expect(await reply.getByText(/^Sent /).count()).toBe(0);

    // At 1280 and 375 px, light and dark: nothing serious for axe on the Inbox and these threads.
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 375, height: 812 },
      ]) {
        const other = await signInOn(
          await contexts.page(onApp(app, { viewport, colorScheme })),
          account.email,
          PASSWORD,
        );
        for (const [href, testId] of [
          ['/inbox', 'no-reply'],
          ['/inbox/%2B447700900123', 'no-reply'],
          ['/inbox/%2B14155550310', 'opted-out-warning'],
          ['/inbox/%2B14155550311', 'thread-error'],
        ]) {
          await other.goto(href);
          await shown(other.getByTestId(testId));
          const at = { colorScheme, width: viewport.width, href };
          expect({ ...at, violations: await axeViolations(other) }).toEqual({ ...at, violations: [] });
        }
        await checkShot(other, `thread-failed-reply-${viewport.width}-${colorScheme}`);
      }
    }
  }, 180_000);

  it('logged no console errors on any page', () => {
    expect(contexts.consoleErrors()).toEqual([]);
  });
});
