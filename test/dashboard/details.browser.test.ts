/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { readJson } from '../support/http';
import { pairPhone } from '../devices/helpers';
import { axeViolations, onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';

// The small things of the dashboard a person trips on, in a real Chromium against the real API and
// Postgres: which product the sign-in is for, a refused field said once, a send's page named after
// it, the cancel dialog's words, an unknown batch, sessions in plain names, the simulator command,
// and message cards at a phone's width.

const CHROME_ON_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const PHONE = { width: 375, height: 812 };

describe('the small things of the dashboard', () => {
  const { contexts, started } = appSceneHooks({ plan: 'pro' });

  let paired: Promise<string> | undefined;
  /** The API with a key of the account, which has a phone to send through. */
  const calls = async () => {
    const { app, account } = started();
    paired ??= createKey(app, account).then(async (created) => (await pairPhone(app, created), created));
    const key = await paired;
    return async (method: string, path: string, body?: unknown) => {
      const res = await app.fetch(path, json(method, body, { 'x-api-key': key }));
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return readJson(res);
    };
  };
  const later = () => new Date(Date.now() + 3_600_000).toISOString();
  const axeClean = async (page: Page, where: string) =>
    expect({ where, violations: await axeViolations(page) }).toEqual({ where, violations: [] });

  it('names the product on sign-in and sign-up, and says a refused field once, beside it', async () => {
    const { app } = started();
    const page = await contexts.page(onApp(app));
    await page.goto('/sign-in');
    await shown(page.getByRole('heading', { name: 'Sign in' }));
    expect(await page.getByTestId('product-name').textContent()).toBe('Phone-Gateway');
    await page
      .getByRole('link', { name: /create an account|sign up/i })
      .first()
      .click();
    await shown(page.getByRole('heading', { name: 'Create your account' }));
    expect(await page.getByTestId('product-name').textContent()).toBe('Phone-Gateway');

    await page.getByLabel('Email').fill('not an address');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Sign up' }).click();
    const email = page.getByLabel('Email');
    await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
    const said = (await page.locator('.mantine-TextInput-error').first().textContent())!;
    expect(said.length).toBeGreaterThan(0);
    // Beside the field only: no banner repeats it.
    expect(await page.getByText(said, { exact: false }).count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('titles a send by its words, asks to cancel in plain words, and finds no unknown batch', async () => {
    const { app, account } = started();
    const call = await calls();
    const two = await call('POST', '/v1/messages', {
      body: 'See you tomorrow at the station by the clock',
      to: ['+14155550501', '+14155550502'],
      scheduled_at: later(),
    });
    const one = await call('POST', '/v1/messages', { body: 'Bye', to: ['+14155550503'], scheduled_at: later() });

    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto(`/batches/${two.batch.id}`);
    const title = '“See you tomorrow at the station…” to 2 recipients';
    await shown(page.getByRole('heading', { name: title }));
    await expect.poll(() => page.title()).toBe(`${title} · Phone-Gateway`);

    await page.getByRole('button', { name: 'Cancel the send' }).click();
    const ask = page.getByRole('dialog', { name: 'Cancel this send?' });
    await shown(ask);
    expect(await ask.getByRole('button').allTextContents()).toEqual(
      expect.arrayContaining(['Keep sending', 'Cancel send']),
    );
    expect(await ask.getByRole('button', { name: 'Cancel', exact: true }).count()).toBe(0);
    expect(await ask.textContent()).toContain('Its 2 texts not yet taken by a phone are not sent');
    await ask.getByRole('button', { name: 'Keep sending' }).click();
    await page.locator('.mantine-Modal-overlay').waitFor({ state: 'detached' });
    await shown(page.getByTestId('batch-status').getByText('scheduled', { exact: true }));

    await page.goto(`/batches/${one.batch.id}`);
    await shown(page.getByRole('heading', { name: '“Bye” to 1 recipient' }));
    await page.getByRole('button', { name: 'Cancel the send' }).click();
    expect(await page.getByRole('dialog', { name: 'Cancel this send?' }).textContent()).toContain(
      'Its text is not sent if no phone has taken it yet',
    );
    await page.getByRole('button', { name: 'Cancel send' }).click();
    await shown(page.getByTestId('batch-status').getByText('cancelled', { exact: true }));

    // An id no batch has: not found, nothing to try again.
    await page.goto(`/batches/${randomUUID()}`);
    await shown(page.getByText('Not found', { exact: true }));
    expect(await page.getByText('No batch has this id in this account.', { exact: false }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    expect(await page.getByText('Something went wrong').count()).toBe(0);
  });

  it('names sessions by browser and system, with plain IPv4 addresses', async () => {
    const { app, account } = started();
    const page = await signInOn(
      await contexts.page(
        onApp(app, { userAgent: CHROME_ON_LINUX, extraHTTPHeaders: { 'x-forwarded-for': '::ffff:10.20.30.40' } }),
      ),
      account.email,
      PASSWORD,
    );
    await page.goto('/account');
    const mine = page.getByTestId('session-row').filter({ hasText: 'This browser' });
    await shown(mine);
    expect(await mine.getByTestId('session-browser').textContent()).toBe('This browser · Chrome on Linux');
    expect(await mine.getByTestId('session-ip').textContent()).toBe('10.20.30.40');
    expect(await page.getByText('::ffff:', { exact: false }).count()).toBe(0);
    expect(await page.getByText('Mozilla/5.0', { exact: false }).count()).toBe(0);
  });

  it('gives the simulator command a Copy button and keeps it inside a phone screen', async () => {
    const { app, account } = started();
    const page = await signInOn(
      await contexts.page(onApp(app, { viewport: PHONE, permissions: ['clipboard-read', 'clipboard-write'] })),
      account.email,
      PASSWORD,
    );
    await page.goto('/phones');
    const card = page.getByTestId('pairing-card');
    await card.getByRole('button', { name: 'Create a pairing code' }).click();
    const command = card.getByTestId('simulator-command');
    await shown(command);
    const text = (await command.textContent())!;
    expect(text).toMatch(/^npm run phone -- --pair-url 'phonegateway:\/\/pair\?code=[A-Z0-9]+&server=.+'$/);
    await card.getByRole('button', { name: 'Copy simulator command' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(text);
    // Wrapped at its spaces, slashes, ? and &: nothing wider than the screen.
    expect(await command.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  });

  it('gives a message card its text across the whole card at 375 px', async () => {
    const { app, account } = started();
    const call = await calls();
    await call('POST', '/v1/messages', {
      body: 'A text long enough to need several lines on a phone, which it should fill from edge to edge',
      to: ['+14155550504'],
      scheduled_at: later(),
    });
    const page = await signInOn(await contexts.page(onApp(app, { viewport: PHONE })), account.email, PASSWORD);
    await page.goto('/messages');
    const row = page.getByTestId('message-row').filter({ hasText: 'edge to edge' });
    await shown(row);
    const widths = await row.evaluate((card) => {
      const field = Array.from(card.querySelectorAll('dt')).find((dt) => dt.textContent === 'Message')!.parentElement!;
      return { field: field.getBoundingClientRect().width, fields: field.parentElement!.getBoundingClientRect().width };
    });
    expect(widths.field).toBe(widths.fields);
  });

  it('stays axe clean on these screens at 1280 and 375 px, light and dark', async () => {
    const { app, account } = started();
    const call = await calls();
    const send = await call('POST', '/v1/messages', { body: 'Axe check', to: ['+14155550505'], scheduled_at: later() });
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [{ width: 1280, height: 900 }, PHONE]) {
        const out = await contexts.page(onApp(app, { viewport, colorScheme }));
        await out.goto('/sign-in');
        await shown(out.getByTestId('product-name'));
        await axeClean(out, `sign-in ${colorScheme} ${viewport.width}`);
        const page = await signInOn(
          await contexts.page(onApp(app, { viewport, colorScheme })),
          account.email,
          PASSWORD,
        );
        for (const [href, ready] of [
          [`/batches/${send.batch.id}`, '“Axe check” to 1 recipient'],
          [`/batches/${randomUUID()}`, 'Not found'],
          ['/account', 'This browser'],
        ] as const) {
          await page.goto(href);
          await shown(page.getByText(ready, { exact: false }));
          await axeClean(page, `${href} ${colorScheme} ${viewport.width}`);
        }
        await page.goto('/phones');
        await page.getByTestId('pairing-card').getByRole('button', { name: 'Create a pairing code' }).click();
        await shown(page.getByTestId('simulator-command'));
        await axeClean(page, `/phones ${colorScheme} ${viewport.width}`);
      }
    }
  }, 180_000);
});
