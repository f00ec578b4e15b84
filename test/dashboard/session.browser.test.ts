/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, type Account } from '../support/accounts';
import type { TestApp } from '../support/app';
import { checkShot, Contexts, onApp, shown, signInOn, submitSignIn, startAppScene, type AppScene } from './browser';

// A session that ends while a tab is open on it, in a real Chromium against the real API and
// Postgres (no workflow runs here, so no Temporal). The server's clock is the test's, so a session
// expires for real when it is moved past the 30 idle days.

const DAY_MS = 86_400_000;

describe('a session that ends while its tab is open', () => {
  let app: TestApp;
  let browser: Browser;
  let account: Account;
  const contexts = new Contexts(() => browser);
  const signedIn = async () => signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
  const signIn = (page: Page) => submitSignIn(page, account.email, PASSWORD);

  let scene: AppScene | undefined;
  beforeAll(async () => {
    scene = await startAppScene(contexts);
    ({ app, browser, account } = scene);
  }, 240_000);
  afterAll(() => scene?.close());

  it('goes back to sign-in when signed out elsewhere, then on to the screen it was going to', async () => {
    const mine = await signedIn();
    const other = await signedIn();
    // Templates does not ask again every few seconds, so it is the click that finds the session
    // ended, not a poll that may win the race to it.
    await other.goto('/templates');
    await shown(other.getByRole('heading', { name: 'Message templates', level: 1 }));

    await mine.goto('/account');
    await mine.getByRole('button', { name: 'Sign out others' }).click();
    await mine
      .getByRole('dialog', { name: 'Sign out everywhere else?' })
      .getByRole('button', { name: 'Sign out others' })
      .click();
    await expect.poll(() => mine.getByTestId('session-row').count()).toBe(1);

    // The other tab moves on: sign-in saying why, not an error with a retry that cannot work.
    await other.getByRole('link', { name: 'Batches', exact: true }).click();
    await shown(other.getByRole('heading', { name: 'Sign in' }));
    expect(await other.getByRole('status').filter({ hasText: 'Your session ended' }).count()).toBe(1);
    expect(await other.getByText('Something went wrong').count()).toBe(0);
    expect(await other.getByRole('navigation', { name: 'Main navigation' }).count()).toBe(0);
    expect(new URL(other.url()).searchParams.get('next')).toBe('/batches');
    await checkShot(other, 'session-ended-1280');

    await signIn(other);
    await shown(other.getByRole('heading', { name: 'Batches', level: 1 }));
    expect(new URL(other.url()).pathname).toBe('/batches');
    // The tab that signed the others out stays signed in.
    await mine.reload();
    await shown(mine.getByRole('heading', { name: 'Account', level: 1 }));
  });

  it('notices an expired session when the tab comes back to the front, and returns to the same view', async () => {
    const page = await signedIn();
    await page.goto('/messages?direction=inbound');
    await shown(page.getByRole('heading', { name: 'Messages', level: 1 }));

    // 31 days idle: past the session's 30-day sliding expiry.
    app.clock.advance(31 * DAY_MS);
    // What the browser fires when a person switches back to this tab or window.
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await shown(page.getByRole('heading', { name: 'Sign in' }));
    expect(await page.getByRole('status').filter({ hasText: 'Your session ended' }).count()).toBe(1);

    await signIn(page);
    await shown(page.getByRole('heading', { name: 'Messages', level: 1 }));
    const url = new URL(page.url());
    expect(url.pathname + url.search).toBe('/messages?direction=inbound');
  });

  it('logged no console errors on any page', () => {
    expect(contexts.consoleErrors()).toEqual([]);
  });
});
