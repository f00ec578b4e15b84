/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, uniqueEmail, type Account } from '../support/accounts';
import type { TestApp } from '../support/app';
import {
  axeViolations,
  checkShot,
  Contexts,
  onApp,
  SCREENS,
  shown,
  signInOn,
  startAppScene,
  type AppScene,
} from './browser';

// The dashboard with the keyboard and axe-core, in a real Chromium against the real API and Postgres:
// a new account's screens (empty states), forms showing their errors and open dialogs, at a desktop
// and a phone width.

const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 375, height: 812 },
];

/** What has the keyboard focus: its role-ish tag, accessible name and how its focus is drawn. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    return {
      tag: el.tagName.toLowerCase(),
      id: el.id,
      name: el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '',
      outline: style.outlineStyle === 'none' ? 0 : parseFloat(style.outlineWidth),
    };
  });

describe('the dashboard for keyboard and screen reader users', () => {
  let app: TestApp;
  let browser: Browser;
  let account: Account;
  const contexts = new Contexts(() => browser);
  const newPage = (viewport = WIDTHS[0]) => contexts.page(onApp(app, { viewport }));
  const signedIn = async (viewport = WIDTHS[0]) => signInOn(await newPage(viewport), account.email, PASSWORD);
  const settled = async (page: Page) => {
    await shown(page.getByRole('heading', { level: 1 }));
    await page.getByRole('status').filter({ hasText: 'Loading' }).first().waitFor({ state: 'detached' });
  };

  let scene: AppScene | undefined;
  beforeAll(async () => {
    scene = await startAppScene(contexts);
    ({ app, browser, account } = scene);
  }, 240_000);
  afterAll(() => scene?.close());

  it('has no serious or critical axe violation on any screen, error state or dialog, at 1280 and 375 px', async () => {
    for (const viewport of WIDTHS) {
      const at = viewport.width;
      const page = await signedIn(viewport);
      // A new account: every screen in its empty state, links in the empty states' text included.
      for (const href of SCREENS) {
        await page.goto(href);
        await settled(page);
        expect({ at, href, violations: await axeViolations(page) }).toEqual({ at, href, violations: [] });
      }

      // A dialog, and the same dialog refusing its input.
      await page.goto('/api-keys');
      await page.getByRole('button', { name: 'Create a key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create an API key' });
      await shown(dialog);
      expect(await dialog.getByRole('button', { name: 'Close' }).count()).toBe(1);
      expect({ at, state: 'dialog', violations: await axeViolations(page) }).toEqual({
        at,
        state: 'dialog',
        violations: [],
      });
      await dialog.getByRole('button', { name: 'Create' }).click();
      await shown(dialog.getByRole('alert'));
      expect({ at, state: 'dialog error', violations: await axeViolations(page) }).toEqual({
        at,
        state: 'dialog error',
        violations: [],
      });
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'detached' });

      // The confirmation every destructive action asks for.
      await page.goto('/account');
      await settled(page);
      await page.getByRole('button', { name: 'Sign out others' }).click();
      const confirm = page.getByRole('dialog', { name: 'Sign out everywhere else?' });
      await shown(confirm);
      expect(await confirm.getByRole('button', { name: 'Close' }).count()).toBe(1);
      expect({ at, state: 'confirm', violations: await axeViolations(page) }).toEqual({
        at,
        state: 'confirm',
        violations: [],
      });
      await confirm.getByRole('button', { name: 'Cancel' }).click();

      // A form's field errors (red text under the fields) on a signed-in screen.
      const form = page.getByRole('form', { name: 'Password' });
      await form.getByLabel('Current password').fill('not my password');
      await form.getByLabel('New password').fill('short');
      await form.getByRole('button', { name: 'Change password' }).click();
      await shown(form.getByRole('alert'));
      await checkShot(page, `a11y-field-errors-${at}`);
      expect({ at, state: 'field errors', violations: await axeViolations(page) }).toEqual({
        at,
        state: 'field errors',
        violations: [],
      });

      // The public screens, the sign-up form refusing a short password.
      const visitor = await newPage(viewport);
      for (const href of ['/sign-in', '/sign-up', '/reset-password']) {
        await visitor.goto(href);
        await settled(visitor);
        expect({ at, href, violations: await axeViolations(visitor) }).toEqual({ at, href, violations: [] });
      }
      await visitor.goto('/sign-up');
      await visitor.getByLabel('Email').fill(uniqueEmail('a11y'));
      const password = visitor.getByRole('textbox', { name: 'Password', exact: true });
      await password.fill('short');
      await visitor.getByRole('button', { name: 'Sign up' }).click();
      // The refusal is said under the field it is about (no banner repeats it).
      await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
      expect({ at, state: 'sign-up error', violations: await axeViolations(visitor) }).toEqual({
        at,
        state: 'sign-up error',
        violations: [],
      });
    }
  }, 180_000);

  it('skips to the content, shows the password and draws focus plainly, by keyboard alone', async () => {
    const visitor = await newPage();
    await visitor.goto('/sign-in');
    await settled(visitor);
    await visitor.getByLabel('Email').focus();
    // Focus is drawn as a thick outline, not a 1 px colour change.
    expect((await focused(visitor)).outline).toBeGreaterThanOrEqual(2);
    await visitor.keyboard.press('Tab');
    await visitor.keyboard.type('a secret typed here');
    await visitor.keyboard.press('Tab');
    const toggle = await focused(visitor);
    expect(toggle).toMatchObject({ tag: 'button', name: 'Show password' });
    expect(toggle.outline).toBeGreaterThanOrEqual(2);
    await visitor.keyboard.press('Space');
    expect(await visitor.getByRole('textbox', { name: 'Password', exact: true }).getAttribute('type')).toBe('text');
    expect(await visitor.getByRole('button', { name: 'Show password' }).getAttribute('aria-pressed')).toBe('true');

    const page = await signedIn();
    await page.goto('/messages');
    await settled(page);
    // The first Tab reaches a link past the header and navigation.
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'a', name: 'Skip to content' });
    expect((await focused(page)).outline).toBeGreaterThanOrEqual(2);
    expect(await page.getByRole('link', { name: 'Skip to content' }).isVisible()).toBe(true);
    await checkShot(page, 'a11y-skip-link-1280');
    await page.keyboard.press('Enter');
    expect((await focused(page)).id).toBe('main');
    // The next Tab lands inside the screen, not in the navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.getElementById('main')!.contains(document.activeElement))).toBe(true);
    expect((await focused(page)).outline).toBeGreaterThanOrEqual(2);
  });

  it('keeps a confirmation named while it fades out', async () => {
    const page = await signedIn();
    await page.goto('/account');
    await settled(page);
    await page.getByRole('button', { name: 'Sign out others' }).click();
    const confirm = page.getByRole('dialog', { name: 'Sign out everywhere else?' });
    await shown(confirm);
    // Every frame until the dialog is gone: the title its aria-labelledby points to.
    const names = page.evaluate(
      () =>
        new Promise<string[]>((resolve) => {
          const seen: string[] = [];
          const sample = () => {
            const dialog = document.querySelector('[role="dialog"]');
            if (!dialog) return resolve(seen);
            const title = document.getElementById(dialog.getAttribute('aria-labelledby') ?? '');
            seen.push(title?.textContent ?? '');
            requestAnimationFrame(sample);
          };
          sample();
        }),
    );
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    const sampled = await names;
    expect(sampled.length).toBeGreaterThan(1);
    expect(new Set(sampled)).toEqual(new Set(['Sign out everywhere else?']));
  });

  it('logged no console errors on any page', () => {
    expect(contexts.consoleErrors()).toEqual([]);
  });
});
