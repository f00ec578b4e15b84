/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedPhone } from '../../tools/phone/phone';
import { createFakeApp } from '../compat/smsgate/fake-app';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { axeViolations, CHECK_SHOTS, launchBrowser, SCREENS, startStack, watchConsole, type Stack } from './browser';

// The dashboard in a real Chromium against the real `npm start` stack (embedded Postgres, Temporal
// dev server, api, worker), with mail to a local SMTP server, a simulated phone speaking the public
// /v1/device API and a local HTTPS webhook receiver. One stack and one browser for the whole file;
// the journey's account is reused by the per-screen tests that follow it.

const PUBLIC_SCREENS = ['/sign-in', '/sign-up', '/reset-password'];

const shown = (locator: Locator, timeout = 15_000) => locator.first().waitFor({ state: 'visible', timeout });
const gone = (locator: Locator, timeout = 15_000) => locator.first().waitFor({ state: 'hidden', timeout });

describe('the dashboard in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let receiver: Receiver;
  let phone: SimulatedPhone | undefined;
  const consoleErrors: string[][] = [];
  const email = uniqueEmail('dash');
  let password = PASSWORD;

  const contexts: BrowserContext[] = [];
  async function newPage(
    viewport = { width: 1280, height: 900 },
    options: { baseURL?: string; permissions?: string[] } = {},
  ): Promise<Page> {
    const context = await browser.newContext({ viewport, baseURL: stack.base, ...options });
    contexts.push(context);
    consoleErrors.push(watchConsole(context));
    return context.newPage();
  }
  async function signedIn(viewport?: { width: number; height: number }): Promise<Page> {
    const page = await newPage(viewport);
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await shown(page.getByRole('heading', { name: 'Overview' }));
    return page;
  }
  /** Sign up from the sign-in screen and verify with the code the local SMTP server received. */
  async function signUp(page: Page, address: string) {
    await page.getByRole('link', { name: 'Sign up' }).click();
    await shown(page.getByRole('heading', { name: 'Create your account' }));
    await page.getByLabel('Email').fill(address);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await shown(page.getByRole('heading', { name: 'Verify your email' }));
    const code = await stack.smtp.codeFor(address, 15_000);
    await page.getByLabel('Verification code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await shown(page.getByRole('heading', { name: 'Overview' }));
  }
  const go = async (page: Page, href: string, heading: string) => {
    await page.goto(href);
    await shown(page.getByRole('heading', { name: heading, level: 1 }));
  };
  const nav = async (page: Page, label: string, heading = label) => {
    // The navigation collapses behind the burger below the small breakpoint.
    const burger = page.getByRole('button', { name: 'Toggle navigation' });
    if (await burger.isVisible()) await burger.click();
    await page.getByRole('link', { name: label, exact: true }).click();
    await shown(page.getByRole('heading', { name: heading, level: 1 }));
  };

  beforeAll(async () => {
    mkdirSync(CHECK_SHOTS, { recursive: true });
    receiver = await startReceiver();
    // Business plan: room for a second phone (make default, unpair) and webhooks beside the journey's.
    stack = await startStack('dashboard', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DEFAULT_PLAN: 'business' });
    browser = await launchBrowser();
  }, 240_000);

  afterAll(async () => {
    await phone?.stop();
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await stack?.stop();
    await receiver?.close();
  }, 90_000);

  it('takes a new user from sign-up to a delivered text, an inbound reply and a webhook ping', async () => {
    const page = await newPage();
    await page.goto('/');
    // Signed out, every screen leads to sign-in.
    await shown(page.getByRole('heading', { name: 'Sign in' }));
    await signUp(page, email);
    await shown(page.getByText('Nothing sent yet'));

    // An API key, shown once, that works against the API.
    await nav(page, 'API keys');
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('dashboard key');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    const key = (await page.getByTestId('secret-value').textContent())!;
    expect(key).toMatch(/^sk_/);
    const me = await fetch(`${stack.base}/v1/auth/me`, { headers: { 'x-api-key': key } });
    expect(me.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await gone(page.getByTestId('secret-value'));
    expect(await page.getByRole('row', { name: /dashboard key/ }).textContent()).toContain(key.slice(0, 8));

    // Pair the simulator with the code on screen; the page notices by itself.
    await nav(page, 'Phones');
    await shown(page.getByText('No phones yet'));
    await page.getByRole('button', { name: 'Create a pairing code' }).click();
    await shown(page.getByTestId('pairing-code'));
    const pairingCode = (await page.getByTestId('pairing-code').textContent())!.trim();
    expect(await page.getByRole('timer').textContent()).toMatch(/expires in (29|30):\d\d/);
    phone = new SimulatedPhone({
      server: stack.base,
      code: pairingCode,
      name: 'Browser phone',
      heartbeatSeconds: 15,
      pollSeconds: 1,
      settingsSeconds: 1,
      sentAfterMs: 100,
      deliveredAfterMs: 300,
      log: () => undefined,
    });
    await phone.start();
    await shown(page.getByTestId('paired'), 20_000);
    const card = page.getByRole('region', { name: 'Browser phone' });
    await shown(card.getByText('online'));
    expect(await card.textContent()).toContain('1.0.0-simulator');
    expect(await card.textContent()).toContain('Simulated Carrier');

    // Settings: no delay between sends.
    await card.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Delay between sends (seconds)').fill('0');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await gone(dialog);
    await expect.poll(() => phone!.device?.send_delay_seconds).toBe(0);

    // Send to two numbers and watch them delivered.
    await nav(page, 'Send', 'Send a text');
    await page.getByLabel('Recipients', { exact: true }).fill('+14155550101\n+14155550102');
    expect(await page.getByTestId('recipient-summary').textContent()).toBe('2 valid recipients');
    await page.getByLabel('Message').fill('Hello from the dashboard');
    expect(await page.getByTestId('segment-counter').textContent()).toBe('24 characters · GSM-7 · 1 segment');
    await page.getByRole('button', { name: 'Send to 2 recipients' }).click();
    await page.waitForURL(/\/batches\/[0-9a-f-]{36}$/);
    await expect
      .poll(() => page.getByTestId('batch-counts').textContent(), { timeout: 45_000 })
      .toContain('2 delivered');
    expect(await page.getByTestId('message-row').count()).toBe(2);

    // A reply appears in the open inbox without a reload.
    await nav(page, 'Inbox');
    await shown(page.getByText('No texts received yet'));
    const url = page.url();
    await phone.receive('+14155550199', 'Reply from a handset');
    await shown(page.getByTestId('conversation').filter({ hasText: 'Reply from a handset' }), 20_000);
    expect(page.url()).toBe(url);
    expect(await page.getByTestId('conversation').textContent()).toContain('+14155550199');

    // A webhook: its secret once, then a test ping in the delivery log.
    await nav(page, 'Webhooks');
    await page.getByRole('button', { name: 'Add a webhook' }).click();
    await page.getByRole('dialog').getByLabel('URL').fill(receiver.url);
    await page.getByRole('dialog').getByLabel('Name').fill('local receiver');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    const secret = (await page.getByTestId('secret-value').textContent())!;
    expect(secret.length).toBeGreaterThan(20);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Send test ping' }).click();
    const ping = page.getByTestId('delivery-row').filter({ hasText: 'ping' });
    await shown(ping.filter({ hasText: 'delivered' }), 30_000);
    expect(receiver.requests.map((r) => r.event)).toContain('ping');
    await ping.getByRole('button', { name: 'Redeliver' }).click();
    // A second delivery of the same ping event, with its own delivery id.
    await shown(ping.filter({ hasText: 'delivered' }).nth(1), 30_000);
    const pings = receiver.requests.filter((r) => r.event === 'ping');
    expect(JSON.parse(pings[1].raw).id).toBe(JSON.parse(pings[0].raw).id);
    expect(pings[1].deliveryId).not.toBe(pings[0].deliveryId);
    await ping.first().getByRole('button').first().click();
    await shown(page.getByRole('dialog', { name: 'Delivery of ping' }).getByText('1 attempt'));
    await page.keyboard.press('Escape');

    // The overview now has something to show: the README's screenshot (docs/screenshots/overview.png).
    await nav(page, 'Overview');
    await shown(page.getByTestId('batch-row').or(page.getByRole('link', { name: 'All batches' })));
    expect(await page.getByTestId('usage-sent-today').textContent()).toMatch(/^2 \/ [\d,]+$/);
    expect(await page.getByTestId('phones-online').textContent()).toBe('1 / 1');
    await page.screenshot({ path: path.join(CHECK_SHOTS, 'dashboard-overview.png') });

    // Sign out: the session is gone for the API too.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await shown(page.getByRole('heading', { name: 'Sign in' }));
    expect(await page.evaluate(() => fetch('/v1/auth/me').then((r) => r.status))).toBe(401);
  }, 240_000);

  it('pairs the SMSGate app with the API URL and Private Token the Phones page shows', async () => {
    // Opened under another name than PUBLIC_URL: the URL shown must come from the server's configuration.
    const page = await newPage(undefined, {
      baseURL: stack.otherOrigin,
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    await page.goto('/');
    await shown(page.getByRole('heading', { name: 'Sign in' }));
    await signUp(page, uniqueEmail('dash-smsgate'));
    await nav(page, 'Phones');
    await page.getByRole('button', { name: 'Create a pairing code' }).click();
    const steps = page.getByTestId('pairing-steps');
    await shown(steps);

    // The app's words in the app's order: where to get it, its Cloud server screen and the fields there
    // (cloud_server_preferences.xml), then the home screen's switch, button and first-start dialog.
    const said = (await steps.textContent())!;
    const order = [
      'SMSGate',
      'SETTINGS → Cloud server…',
      'API URL',
      'Private Token',
      'Notification channel: SSE Only',
      'Home',
      'Cloud server',
      'Offline',
      'Sign Up',
      'Continue',
    ];
    let from = 0;
    for (const words of order) {
      const at = said.indexOf(words, from);
      expect({ words, found: at >= 0 }).toEqual({ words, found: true });
      from = at + words.length;
    }
    expect(await steps.getByRole('link', { name: 'app’s releases' }).getAttribute('href')).toBe(
      'https://github.com/capcom6/android-sms-gateway/releases',
    );

    // What a person copies off the page.
    const apiUrl = (await page.getByTestId('smsgate-api-url').textContent())!;
    const code = (await page.getByTestId('pairing-code').textContent())!;
    expect(apiUrl).toBe(`${stack.base}/compat/smsgate/api/mobile/v1`);
    expect(code).toMatch(/^[A-Z0-9]{8}$/);
    // A phone cannot reach this test's PUBLIC_URL, and the card says why.
    expect(await page.getByTestId('unreachable').textContent()).toContain(
      '127.0.0.1 is this computer, not the phone, and the app connects only over https',
    );

    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(CHECK_SHOTS, 'pairing-card-1280.png'), fullPage: true });

    // Each copy button puts exactly its value on the clipboard.
    await page.getByRole('button', { name: 'Copy API URL' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiUrl);
    await page.getByRole('button', { name: 'Copy Private Token' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);
    // On a phone-sized screen the long URL wraps instead of pushing the page sideways.
    await page.setViewportSize({ width: 375, height: 812 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBe(375);
    const box = (await page.getByTestId('smsgate-api-url').boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    await page.screenshot({ path: path.join(CHECK_SHOTS, 'pairing-card-375.png'), fullPage: true });

    // The app registers as it does with these two fields (Sign Up with the Private Token as Bearer).
    const app = createFakeApp({ apiUrl });
    expect((await app.register(code)).status).toBe(201);
    await shown(page.getByTestId('paired'), 20_000);
    expect(await page.getByTestId('paired').textContent()).toContain(`${app.name} is paired and online`);
    const card = page.getByRole('region', { name: app.name });
    await shown(card.getByText('online'));
    expect(await card.textContent()).toContain('T-Mobile');
    // The app's long "<manufacturer>/<product>" name and the badges beside it still fit.
    for (const badge of ['default', 'online']) {
      const edge = (await card.getByText(badge, { exact: true }).boundingBox())!;
      expect({ badge, right: edge.x + edge.width <= 375 }).toEqual({ badge, right: true });
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(375);
    await page.screenshot({ path: path.join(CHECK_SHOTS, 'pairing-card-paired-375.png'), fullPage: true });
  }, 120_000);

  it('passes an axe check on every screen at 1280 and 375 px and fits a 375 px wide phone', async () => {
    const wide = await signedIn();
    for (const href of SCREENS) {
      await wide.goto(href);
      await shown(wide.getByRole('heading', { level: 1 }));
      await wide.getByRole('status').filter({ hasText: 'Loading' }).first().waitFor({ state: 'detached' });
      expect({ at: 1280, href, violations: await axeViolations(wide) }).toEqual({ at: 1280, href, violations: [] });
    }
    const page = await signedIn({ width: 375, height: 812 });
    for (const href of SCREENS) {
      await page.goto(href);
      await shown(page.getByRole('heading', { level: 1 }));
      await page.getByRole('status').filter({ hasText: 'Loading' }).first().waitFor({ state: 'detached' });
      expect({ href, violations: await axeViolations(page) }).toEqual({ href, violations: [] });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect({ href, width }).toEqual({ href, width: 375 });
    }
    await go(page, '/', 'Overview');
    await shown(page.getByTestId('phones-online'));
    await page.screenshot({ path: path.join(CHECK_SHOTS, 'dashboard-overview-375.png'), fullPage: true });

    const visitor = await newPage({ width: 375, height: 812 });
    for (const href of PUBLIC_SCREENS) {
      await visitor.goto(href);
      await shown(visitor.getByRole('heading', { level: 1 }));
      expect({ href, violations: await axeViolations(visitor) }).toEqual({ href, violations: [] });
    }
  }, 120_000);

  it('signs in and moves between screens with the keyboard alone', async () => {
    const page = await newPage();
    await page.goto('/sign-in');
    await shown(page.getByRole('heading', { name: 'Sign in' }));
    await page.keyboard.press('Tab');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await shown(page.getByRole('heading', { name: 'Overview' }));
    // Tab to the Phones link and follow it.
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Phones') break;
    }
    await page.keyboard.press('Enter');
    await shown(page.getByRole('heading', { name: 'Phones', level: 1 }));
  });

  describe('each screen: its main action and its error state', () => {
    let page: Page;
    beforeAll(async () => {
      page = await signedIn();
    });

    it('sign in refuses a wrong password on screen', async () => {
      const visitor = await newPage();
      await visitor.goto('/sign-in');
      await visitor.getByLabel('Email').fill(email);
      await visitor.getByRole('textbox', { name: 'Password', exact: true }).fill('not the password');
      await visitor.getByRole('button', { name: 'Sign in', exact: true }).click();
      await shown(visitor.getByRole('alert'));
      expect(await visitor.getByRole('alert').textContent()).toMatch(/email or password/i);
      expect(visitor.url()).toContain('/sign-in');

      // A failed Google sign-in comes back to / with an error flag, shown on the sign-in screen.
      await visitor.goto('/?error=google_sign_in_failed');
      await shown(visitor.getByRole('alert').filter({ hasText: 'Signing in with Google failed' }));
      expect(visitor.url()).toContain('/sign-in?error=google_sign_in_failed');
    });

    it('sign up shows why an address cannot be used', async () => {
      const visitor = await newPage();
      await visitor.goto('/sign-up');
      await visitor.getByLabel('Email').fill(email);
      await visitor.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
      await visitor.getByRole('button', { name: 'Sign up' }).click();
      await shown(visitor.getByRole('alert'));
      expect(visitor.url()).toContain('/sign-up');
    });

    it('verify email refuses a wrong code and shows the resend wait', async () => {
      const visitor = await newPage();
      const other = uniqueEmail('dash-verify');
      await visitor.goto('/sign-up');
      await visitor.getByLabel('Email').fill(other);
      await visitor.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
      await visitor.getByRole('button', { name: 'Sign up' }).click();
      await shown(visitor.getByRole('heading', { name: 'Verify your email' }));
      expect(await visitor.getByRole('button', { name: /Resend code in \d+s/ }).isDisabled()).toBe(true);
      const code = await stack.smtp.codeFor(other, 15_000);
      await visitor.getByLabel('Verification code').fill(code === '000000' ? '111111' : '000000');
      await visitor.getByRole('button', { name: 'Verify' }).click();
      await shown(visitor.getByRole('alert'));
      await visitor.getByLabel('Verification code').fill(code);
      await visitor.getByRole('button', { name: 'Verify' }).click();
      await shown(visitor.getByRole('heading', { name: 'Overview' }));
    });

    it('overview shows usage against the plan, and a failed load offers a retry', async () => {
      await go(page, '/', 'Overview');
      expect(await page.getByTestId('usage-sent-this-month').textContent()).toMatch(/^2 \/ [\d,]+$/);
      // The network failing is the one error the real stack cannot be made to produce on demand.
      await page.route('**/v1/batches?*', (route) => route.abort());
      await page.reload();
      await shown(page.getByRole('alert').filter({ hasText: 'could not be reached' }));
      await page.unroute('**/v1/batches?*');
      await page.getByRole('button', { name: 'Try again' }).click();
      await shown(page.getByTestId('phones-online'));
    });

    it('send checks each number as it is typed, counts segments and refuses what the API refuses', async () => {
      await go(page, '/send', 'Send a text');
      await page.getByLabel('Recipients', { exact: true }).fill('+14155550101, 12, +1 415 555 0101');
      expect(await page.getByTestId('recipient-summary').textContent()).toBe(
        '1 valid recipient, 1 invalid, 1 duplicate (sent once)',
      );
      await page.getByLabel('Message').fill('Grüße 👋');
      expect(await page.getByTestId('segment-counter').textContent()).toBe('7 characters · UCS-2 · 1 segment');
      expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      // Scheduled in the past: the API's answer is shown.
      await page.getByLabel('Recipients', { exact: true }).fill('+14155550103');
      await page.getByLabel('Schedule for later').check();
      await page.getByLabel(/^Send at/).fill('2020-01-01T10:00');
      await page.getByRole('button', { name: 'Send' }).click();
      await shown(page.getByRole('alert'));
      expect(page.url()).toContain('/send');
    });

    it('batches list newest first with progress, and an unknown batch is not found', async () => {
      await go(page, '/batches', 'Batches');
      await shown(page.getByTestId('batch-row'));
      expect(await page.getByTestId('batch-row').first().textContent()).toContain('2 delivered');
      await go(page, '/batches/00000000-0000-4000-8000-000000000000', 'Batch');
      await shown(page.getByText('Not found', { exact: true }));
      expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    });

    it('messages filter by direction and text, with an empty state', async () => {
      await go(page, '/messages?direction=inbound', 'Messages');
      await shown(page.getByTestId('message-row'));
      expect(await page.getByTestId('message-row').count()).toBe(1);
      await page.getByLabel('Search text or number').fill('no such text anywhere');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await shown(page.getByText('No messages match'));
      expect(page.url()).toContain('q=no+such+text+anywhere');
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect.poll(() => page.getByTestId('message-row').count()).toBe(3);
    });

    it('phones: an invalid setting is refused; a second phone becomes the default, then is unpaired after asking', async () => {
      await go(page, '/phones', 'Phones');
      const first = page.getByRole('region', { name: 'Browser phone' });
      await first.getByRole('button', { name: 'Settings' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Heartbeat interval (minutes)').fill('5000');
      await dialog.getByRole('button', { name: 'Save' }).click();
      // Said beside the field, once.
      await expect
        .poll(() => dialog.getByLabel('Heartbeat interval (minutes)').getAttribute('aria-invalid'))
        .toBe('true');
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      await page.getByRole('button', { name: 'Create a pairing code' }).click();
      const second = new SimulatedPhone({
        server: stack.base,
        code: (await page.getByTestId('pairing-code').textContent())!.trim(),
        name: 'Second phone',
        heartbeatSeconds: 60,
        pollSeconds: 5,
        log: () => undefined,
      });
      try {
        await second.start();
        const card = page.getByRole('region', { name: 'Second phone' });
        await shown(card, 20_000);
        await card.getByRole('button', { name: 'Make default' }).click();
        await shown(card.getByText('default'));
        await shown(first.getByRole('button', { name: 'Make default' }));

        await card.getByRole('button', { name: 'Unpair' }).click();
        await page
          .getByRole('dialog', { name: 'Unpair Second phone?' })
          .getByRole('button', { name: 'Cancel' })
          .click();
        expect(await page.getByTestId('device').count()).toBe(2);
        await card.getByRole('button', { name: 'Unpair' }).click();
        await page
          .getByRole('dialog', { name: 'Unpair Second phone?' })
          .getByRole('button', { name: 'Unpair' })
          .click();
        await gone(card);
        expect(await page.getByTestId('device').count()).toBe(1);
      } finally {
        await second.stop();
      }
    });

    it('webhooks refuse a plain http URL, pause and resume, and rotate the secret after asking', async () => {
      await go(page, '/webhooks', 'Webhooks');
      await page.getByRole('button', { name: 'Add a webhook' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('URL').fill('http://example.com/hook');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await expect.poll(() => dialog.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      const card = page.getByTestId('webhook').first();
      await card.getByRole('switch').click({ force: true });
      await page
        .getByRole('dialog', { name: /^Pause / })
        .getByRole('button', { name: 'Pause' })
        .click();
      await shown(card.getByText('paused'));
      // The dialog's overlay fades out after it: a click before then lands on the overlay.
      await page.locator('.mantine-Modal-overlay').waitFor({ state: 'detached' });
      await card.getByRole('switch').click({ force: true });
      await shown(card.getByText('active'));

      await card.getByRole('button', { name: 'Rotate secret' }).click();
      await page
        .getByRole('dialog', { name: 'Rotate the signing secret?' })
        .getByRole('button', { name: 'Rotate' })
        .click();
      await shown(page.getByTestId('shown-once'));
      expect((await page.getByTestId('secret-value').textContent())!.length).toBeGreaterThan(20);
    });

    it('API keys: a nameless key is refused; rename, revoke and delete ask first', async () => {
      await go(page, '/api-keys', 'API keys');
      await page.getByRole('button', { name: 'Create a key' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
      await shown(page.getByRole('dialog').getByRole('alert'));
      await page.getByRole('dialog').getByLabel('Name').fill('short-lived');
      await page
        .getByRole('dialog')
        .getByLabel(/^Expires/)
        .fill('2099-01-01T12:00');
      await page.getByRole('dialog').getByLabel('webhooks: manage webhooks').uncheck();
      await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
      await shown(page.getByTestId('shown-once'));
      await page.getByRole('button', { name: 'Done' }).click();
      const row = page.getByRole('row', { name: /short-lived/ });
      expect(await row.textContent()).toContain('send, read, devices');
      expect(await row.textContent()).toContain('2099');

      await page.getByRole('button', { name: 'Rename short-lived' }).click();
      await page.getByRole('dialog').getByLabel('New name').fill('renamed key');
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      const renamed = page.getByRole('row', { name: /renamed key/ });
      await shown(renamed);

      await page.getByRole('button', { name: 'Revoke renamed key' }).click();
      await page.getByRole('dialog', { name: 'Revoke renamed key?' }).getByRole('button', { name: 'Revoke' }).click();
      await shown(renamed.getByText('revoked'));

      await page.getByRole('button', { name: 'Delete renamed key' }).click();
      await page.getByRole('dialog', { name: 'Delete renamed key?' }).getByRole('button', { name: 'Delete' }).click();
      await gone(renamed);
    });

    it('account: a wrong current password is refused; the name is saved; other sessions are signed out', async () => {
      await go(page, '/account', 'Account');
      await page.getByLabel('Current password').fill('not my password');
      await page.getByLabel('New password').fill('another new password');
      await page.getByRole('button', { name: 'Change password' }).click();
      await shown(page.getByRole('form', { name: 'Password' }).getByRole('alert'));

      await page.getByLabel('Name').fill('Dana Dashboard');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await shown(page.getByText('Saved.'));

      await expect.poll(() => page.getByTestId('session-row').count()).toBeGreaterThan(1);
      await page.getByRole('button', { name: 'Sign out others' }).click();
      await page
        .getByRole('dialog', { name: 'Sign out everywhere else?' })
        .getByRole('button', { name: 'Sign out others' })
        .click();
      await expect.poll(() => page.getByTestId('session-row').count()).toBe(1);
    });

    // Last: a reset signs every session out.
    it('password reset sets a new password with the mailed code and refuses a wrong one', async () => {
      const visitor = await newPage();
      await visitor.goto('/reset-password');
      await visitor.getByLabel('Email').fill(email);
      const before = stack.smtp.received.length;
      await visitor.getByRole('button', { name: 'Email me a code' }).click();
      await shown(visitor.getByLabel('Code from the email'));
      await expect.poll(() => stack.smtp.received.length).toBeGreaterThan(before);
      const code = await stack.smtp.codeFor(email, 15_000);
      await visitor.getByLabel('Code from the email').fill(code === '000000' ? '111111' : '000000');
      await visitor.getByLabel('New password').fill('a brand new password');
      await visitor.getByRole('button', { name: 'Set the new password' }).click();
      await shown(visitor.getByRole('alert'));
      await visitor.getByLabel('Code from the email').fill(code);
      await visitor.getByRole('button', { name: 'Set the new password' }).click();
      await shown(visitor.getByText('Your password was changed'));
      password = 'a brand new password';
    });
  });

  it('logged no console errors on any page', () => {
    expect(consoleErrors.flat()).toEqual([]);
  });
});

describe('sign-in extras when the server enables them', () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    // The API alone is enough here (no workflow runs); the build is the one the stack above made.
    app = await startTestApp({
      env: {
        TURNSTILE_SITE_KEY: 'test-site-key',
        TURNSTILE_SECRET: 'test-secret',
        TURNSTILE_VERIFY_URL: 'http://127.0.0.1:1/siteverify',
        GOOGLE_CLIENT_ID: 'test-client',
        GOOGLE_CLIENT_SECRET: 'test-secret',
      },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('renders the Turnstile widget with the site key, sends its token, and offers Google sign-in', async () => {
    const context = await browser.newContext({ baseURL: app.url });
    const errors = watchConsole(context);
    const page = await context.newPage();
    // Cloudflare cannot be reached from here: a stand-in script speaking Turnstile's render() API.
    const rendered: string[] = [];
    await page.exposeFunction('turnstileRendered', (siteKey: string) => rendered.push(siteKey));
    await page.route('https://challenges.cloudflare.com/turnstile/v0/api.js*', (route) =>
      route.fulfill({
        contentType: 'text/javascript',
        body: `window.turnstile = {
          render(el, options) { window.turnstileRendered(options.sitekey); el.textContent = 'bot check passed'; options.callback('token-from-widget'); return 'w1'; },
          remove() {},
        };`,
      }),
    );
    await page.goto('/sign-in');
    await shown(page.getByText('bot check passed'));
    expect(rendered).toEqual(['test-site-key']);
    expect(await page.getByRole('link', { name: 'Sign in with Google' }).getAttribute('href')).toBe(
      '/v1/auth/google/start',
    );

    await page.getByLabel('Email').fill(uniqueEmail('turnstile'));
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    const [login] = await Promise.all([
      page.waitForRequest((request) => request.url().endsWith('/v1/auth/login')),
      page.getByRole('button', { name: 'Sign in', exact: true }).click(),
    ]);
    expect(login.postDataJSON()).toMatchObject({ turnstile_token: 'token-from-widget' });
    // The server could not verify the token (its verify URL is closed): the refusal is on screen.
    await shown(page.getByRole('alert'));
    await context.close();
    expect(errors).toEqual([]);
  });
});
