/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredApp } from '../compat/smsgate/helpers';
import { createKey, PASSWORD, type Account } from '../support/accounts';
import type { TestApp } from '../support/app';
import { readJson } from '../support/http';
import { axeViolations, checkShot, Contexts, onApp, shown, signInOn, startAppScene, type AppScene } from './browser';

// A phone's pace in the dashboard (issue #37), in a real Chromium against the real API and Postgres:
// a phone paired through the SMSGate app, at Android's 30 texts per 30 minutes, with 45 texts queued.
// Its card says its pace, its queue and when it will be empty; the send form says how long a send
// takes on it and when it would be done, before sending; raising its capacity changes both.

const MINUTE = 60_000;

describe('a phone’s pace, queue and a send’s estimate in the dashboard', () => {
  let app: TestApp;
  let browser: Browser;
  let account: Account;
  let key: string;
  let deviceId: string;
  const contexts = new Contexts(() => browser);

  let scene: AppScene | undefined;
  beforeAll(async () => {
    scene = await startAppScene(contexts, { plan: 'business' });
    ({ app, browser, account } = scene);
    key = await createKey(app, account);
    const phone = await registeredApp(app, key);
    deviceId = phone.state.registration!.id;
    const to = Array.from({ length: 45 }, (_, i) => `+1415558${String(i).padStart(4, '0')}`);
    const res = await app.fetch('/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ body: 'Queued', to, device_id: deviceId }),
    });
    expect(res.status).toBe(202);
  }, 240_000);
  afterAll(() => scene?.close());

  /** The browser's own rendering of an instant, as the dashboard's `when` writes it. */
  const inBrowser = (page: Page, iso: string) =>
    page.evaluate(
      (at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' }).format(new Date(at)),
      iso,
    );
  const estimateOf = async (recipients: number) =>
    (
      await readJson(
        await app.fetch(`/v1/devices/${deviceId}/estimate?recipients=${recipients}`, { headers: { 'x-api-key': key } }),
      )
    ).estimate;

  it('shows the phone’s pace, its queue and when it will be empty, and the send’s length before sending', async () => {
    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto('/phones');
    const card = page.getByTestId('device');
    await shown(card);
    expect(await card.getByTestId('device-pace').textContent()).toBe('30 texts per 30 min');
    // 45 waiting at a minute a text: empty 45 minutes from now, as the API's estimate says.
    const empty = await estimateOf(0);
    expect(new Date(empty.finishes_at).getTime() - new Date(empty.starts_at).getTime()).toBe(45 * MINUTE);
    await expect
      .poll(() => card.getByTestId('device-queue').textContent())
      .toBe(`45 texts waiting, empty around ${await inBrowser(page, empty.finishes_at)}`);
    expect(await axeViolations(page)).toEqual([]);
    await checkShot(page, 'pace-phones-1280');

    // The send form, before sending: 200 texts behind the 45 at a minute a text is 4 h 5 min.
    await page.goto('/send');
    const to = Array.from({ length: 200 }, (_, i) => `+1415559${String(i).padStart(4, '0')}`).join('\n');
    await page.getByLabel('Recipients', { exact: true }).fill(to);
    await page.getByLabel('Message').fill('Hello');
    const estimate = page.getByTestId('send-estimate');
    const expected = await estimateOf(200);
    expect(expected.duration_seconds).toBe(245 * 60);
    await expect
      .poll(() => estimate.textContent())
      .toBe(
        `200 texts on Google/sdk_gphone64_x86_64 at 30 texts per 30 min, behind 45 texts already waiting: ` +
          `about 4 h 5 min, the last one around ${await inBrowser(page, expected.finishes_at)}.`,
      );
    expect(await axeViolations(page)).toEqual([]);
    await checkShot(page, 'pace-send-1280');

    // The owner lifted Android's limit: 300 per 30 minutes (6 s a text) in the phone's settings.
    await page.goto('/phones');
    await card.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog');
    await shown(dialog);
    await dialog.getByLabel('Texts Android allows').fill('300');
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => card.getByTestId('device-pace').textContent()).toBe('300 texts per 30 min');
    await page.goto('/send');
    await page.getByLabel('Recipients', { exact: true }).fill(to);
    // 245 texts at 6 s: 24 min 30 s, said to the minute.
    await expect
      .poll(() => estimate.textContent())
      .toContain('at 300 texts per 30 min, behind 45 texts already waiting: about 25 min,');
  });

  it('logged no console errors', () => {
    expect(contexts.consoleErrors()).toEqual([]);
  });
});
