/// <reference lib="dom" />
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, uniqueEmail, type Account } from '../support/accounts';
import { memoryMailer, type TestApp } from '../support/app';
import { checkShot, Contexts, onApp, shown, submitSignIn, startAppScene, type AppScene } from './browser';

// What the dashboard's forms say before and after the API refuses them, in a real Chromium against
// the real API and Postgres: the rules up front, each refusal beside its field in the form's words.

/** What a screen reader reads after a field's label: its hint and its error (aria-describedby). */
const described = (field: Locator) =>
  field.evaluate((input) =>
    (input.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' | '),
  );
const invalid = async (field: Locator) => (await field.getAttribute('aria-invalid')) === 'true';

describe('the dashboard forms say what is wrong, in plain words, beside the field', () => {
  let app: TestApp;
  let browser: Browser;
  let account: Account;
  const mailer = memoryMailer();
  const contexts = new Contexts(() => browser);
  const newPage = () => contexts.page(onApp(app));

  let scene: AppScene | undefined;
  beforeAll(async () => {
    scene = await startAppScene(contexts, { mailer });
    ({ app, browser, account } = scene);
  }, 240_000);
  afterAll(() => scene?.close());

  it('sign up states the password rule the API applies and shows its refusal under the password', async () => {
    const page = await newPage();
    await page.goto('/sign-up');
    const password = page.getByRole('textbox', { name: 'Password', exact: true });
    expect(await described(password)).toBe('At least 10 characters');

    await page.getByLabel('Email').fill(uniqueEmail('forms'));
    await password.fill('nine char');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect.poll(() => invalid(password)).toBe(true);
    expect(await described(password)).toContain('The password must be at least 10 characters.');
    expect(await invalid(page.getByLabel('Email'))).toBe(false);
    // Said once, under its field: no banner repeats what a field shows.
    expect(await page.getByText('The password must be at least 10 characters.').count()).toBe(1);
  });

  it('change password tells a wrong current password from a short new one', async () => {
    const page = await newPage();
    await page.goto('/sign-in');
    await submitSignIn(page, account.email, PASSWORD);
    await shown(page.getByRole('heading', { name: 'Overview' }));
    await page.goto('/account');
    const form = page.getByRole('form', { name: 'Password' });
    const current = form.getByLabel('Current password');
    const next = form.getByLabel('New password');
    expect(await described(next)).toBe('At least 10 characters');

    await current.fill('not my password');
    await next.fill('a long enough new password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => invalid(current)).toBe(true);
    expect(await described(current)).toContain('The current password is wrong.');
    expect(await invalid(next)).toBe(false);

    await current.fill(PASSWORD);
    await next.fill('too short');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => invalid(next)).toBe(true);
    expect(await described(next)).toContain('The new password must be at least 10 characters.');
    expect(await invalid(current)).toBe(false);
    expect(await form.getByRole('alert').textContent()).not.toContain('The request is invalid');
    await checkShot(page, 'forms-change-password-1280');

    // Messages name the field as the form does, never as the API's JSON does.
    await page.goto('/api-keys');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('dated key');
    await dialog.getByLabel(/^Expires/).fill('2020-01-01T10:00');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await shown(dialog.getByRole('alert'));
    expect(await dialog.getByRole('alert').textContent()).toBe('The expiry time must be in the future.');
    expect(await described(dialog.getByLabel(/^Expires/))).toContain('The expiry time must be in the future.');
    await dialog.getByLabel('Name').fill('   ');
    await dialog.getByLabel(/^Expires/).fill('');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await shown(dialog.getByRole('alert').filter({ hasText: 'The name is required.' }));
    expect(await dialog.getByRole('alert').textContent()).not.toMatch(/\bname must|expires_at|characters/);
  });

  it('password reset counts down to a resend that sends a new code, and the new code works', async () => {
    const page = await newPage();
    // The browser's clock and the server's move together past the one-code-a-minute throttle.
    await page.clock.install();
    await page.goto('/reset-password');
    await page.getByLabel('Email').fill(account.email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await shown(page.getByText('a code is on its way'));
    const mails = () => mailer.sent.filter((m) => m.to === account.email && /reset/i.test(m.text)).length;
    await expect.poll(mails).toBe(1);
    const first = mailer.lastCode(account.email);

    const resend = page.getByRole('button', { name: /^Resend code/ });
    expect(await resend.textContent()).toBe('Resend code in 60s');
    expect(await resend.isDisabled()).toBe(true);
    await checkShot(page, 'forms-reset-countdown-1280');
    await page.clock.fastForward(20_000);
    await expect.poll(() => resend.textContent()).toBe('Resend code in 40s');

    await page.clock.fastForward(41_000);
    app.clock.advance(61_000);
    await expect.poll(() => resend.textContent()).toBe('Resend code');
    await resend.click();
    await shown(page.getByText('A new code is on its way'));
    await expect.poll(mails).toBe(2);
    const second = mailer.lastCode(account.email);
    expect(await resend.textContent()).toBe('Resend code in 60s');

    // The first code stopped working when the second was sent.
    const newPassword = page.getByLabel('New password');
    expect(await described(newPassword)).toBe('At least 10 characters');
    await page.getByLabel('Code from the email').fill(first === second ? '000000' : first);
    await newPassword.fill('a brand new password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await shown(page.getByRole('alert').filter({ hasText: 'The code is wrong, expired or already used.' }));
    await page.getByLabel('Code from the email').fill(second);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await shown(page.getByText('Your password was changed'));
  });

  it('logged no console errors on any page', () => {
    expect(contexts.consoleErrors()).toEqual([]);
  });
});
