/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, PASSWORD, type Account } from '../support/accounts';
import type { TestApp } from '../support/app';
import { pairPhone } from '../devices/helpers';
import { checkShot, Contexts, onApp, shown, signInOn, startAppScene, type AppScene } from './browser';

// What the dashboard says about counts, limits and times, in a real Chromium against the real API and
// Postgres. The account's usage is set through the plans service (as operators correct it), so a
// limit can be near without sending ten thousand texts.

describe('the dashboard words counts, limits and times plainly', () => {
  let app: TestApp;
  let browser: Browser;
  let account: Account;
  const contexts = new Contexts(() => browser);

  // A fixed locale and zone, so the expected words do not depend on the machine running the test.
  const signedIn = async () =>
    signInOn(
      await contexts.page(onApp(app, { locale: 'en-US', timezoneId: 'America/New_York' })),
      account.email,
      PASSWORD,
    );

  let scene: AppScene | undefined;
  beforeAll(async () => {
    scene = await startAppScene(contexts, { plan: 'business' });
    ({ app, browser, account } = scene);
  }, 240_000);
  afterAll(() => scene?.close());

  it('a new account’s Messages page says there are none yet, not that filters hide them', async () => {
    const page = await signedIn();
    await page.goto('/messages');
    await shown(page.getByText('No messages yet'));
    expect(await page.getByText('No messages match').count()).toBe(0);
    expect(await page.getByTestId('empty').getByRole('link', { name: 'send' }).getAttribute('href')).toBe('/send');
    // A filter that matches nothing still says so.
    await page.goto('/messages?q=nothing+like+this');
    await shown(page.getByText('No messages match'));
  });

  it('groups large numbers, says how many messages are left and refuses a send beyond them', async () => {
    await app.services.plans.setUsage(account.userId, {
      sentToday: 9_998,
      sentThisMonth: 123_456,
      receivedToday: 1_234,
      receivedThisMonth: 45_678,
    });
    const page = await signedIn();
    await shown(page.getByTestId('usage-sent-today'));
    expect(await page.getByTestId('usage-sent-today').textContent()).toBe('9,998 / 10,000');
    expect(await page.getByTestId('usage-sent-today-left').textContent()).toBe('2 messages left');
    expect(await page.getByTestId('usage-sent-this-month').textContent()).toBe('123,456 / 300,000');
    expect(await page.getByTestId('usage-sent-this-month-left').textContent()).toBe('176,544 messages left');
    expect(await page.getByText('1,234 today').count()).toBe(1);
    await checkShot(page, 'words-overview-1280');

    // Send: the allowance before typing, and a send beyond it refused with the count left.
    await pairPhone(app, await createKey(app, account), { name: 'Counting phone' });
    await page.goto('/send');
    await shown(page.getByTestId('send-allowance'));
    expect(await page.getByTestId('send-allowance').textContent()).toBe('2 messages left today (10,000 a day).');
    await page.getByLabel('Recipients', { exact: true }).fill('+14155550101, +14155550102, +14155550103');
    await page.getByLabel('Message').fill('Three is one too many');
    expect(await page.getByTestId('send-allowance').textContent()).toBe(
      'This send has 3 recipients; the plan has 2 messages left today (10,000 a day).',
    );
    expect(await page.getByRole('button', { name: 'Send to 3 recipients' }).isDisabled()).toBe(true);
    await checkShot(page, 'words-send-over-1280');
    await page.getByLabel('Recipients', { exact: true }).fill('+14155550101, +14155550102');
    expect(await page.getByRole('button', { name: 'Send to 2 recipients' }).isDisabled()).toBe(false);
  });

  it('shows times to the second with their zone', async () => {
    const page = await signedIn();
    await page.goto('/account');
    const profile = page.getByRole('form', { name: 'Profile' });
    await shown(profile.getByText(/verified/));
    // New York's zone by its abbreviation: EST in winter, EDT in summer.
    expect(await profile.getByText(/verified/).textContent()).toMatch(
      /verified \w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M E[SD]T/,
    );
  });

  it('draws the Overview chart in UTC, and says so, when the server does not know the browser’s zone', async () => {
    // Emulated as "GMT+05:30", Chromium's Intl reports the zone as the offset "+05:30", which
    // GET /v1/stats/daily refuses (a 422: an offset is not a place, src/devices/send-window.ts).
    const page = await signInOn(
      await contexts.page(onApp(app, { locale: 'en-US', timezoneId: 'GMT+05:30' })),
      account.email,
      PASSWORD,
    );
    expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe('+05:30');
    await shown(page.getByTestId('chart-zone'));
    expect(await page.getByTestId('chart-zone').textContent()).toBe(
      ' Days are in UTC: the server does not know this browser’s time zone.',
    );
    expect(await page.getByTestId('chart-day').count()).toBe(14);
    expect(await page.getByRole('alert').count()).toBe(0);
    // A zone the server knows draws no such note.
    const known = await signedIn();
    await shown(known.getByTestId('daily-chart'));
    expect(await known.getByTestId('chart-zone').count()).toBe(0);
  });

  it('logged no console errors on any page', () => {
    expect(contexts.consoleErrors()).toEqual([]);
  });
});
