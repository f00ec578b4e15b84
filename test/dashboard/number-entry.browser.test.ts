/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { readJson } from '../support/http';
import { pairPhone } from '../devices/helpers';
import { checkShot, onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';
import { expectAxeCleanEverywhere } from './axe-walk';

// Numbers as people type them, in a real Chromium against the real API and Postgres: on the Send
// form and the opt-out form, local formats with spaces and brackets are one number each, read in the
// account's country (here the browser's, en-US: the test app sets no DEFAULT_COUNTRY), and what is
// not a number is said once, in words.

describe('typing phone numbers', () => {
  const { contexts, started } = appSceneHooks({ plan: 'pro' });

  it('reads local formats as one number, sends and lists them as E.164, and says once what is not one', async () => {
    const { app, account } = started();
    const key = await createKey(app, account);
    await pairPhone(app, key);
    const page = await signInOn(await contexts.page(onApp(app, { locale: 'en-US' })), account.email, PASSWORD);

    await page.goto('/send');
    const recipients = page.getByRole('textbox', { name: 'Recipients' });
    await shown(recipients);
    expect(await page.getByText('Numbers without + and a country code are read as US numbers.').count()).toBe(1);
    await recipients.fill('(415) 555-0125\n+1 415 555 0126, 415.555.0127\n+14155550128 +14155550129\n12 34');
    const chips = page.getByRole('list', { name: 'Recipients as checked' }).getByRole('listitem');
    expect(await chips.allTextContents()).toEqual([
      '(415) 555-0125',
      '+1 415 555 0126',
      '415.555.0127',
      '+14155550128',
      '+14155550129',
      '12 34: invalid',
    ]);
    expect(await page.getByTestId('recipient-summary').textContent()).toBe('5 valid recipients, 1 invalid');
    expect(await page.getByTestId('recipient-error').textContent()).toBe(
      '“12 34” is not a phone number: write it with + and its country code, or as a US number, e.g. +14155550123.',
    );
    await checkShot(page, 'number-entry-send-1280');
    await expectAxeCleanEverywhere(page, 'number-entry-send');

    // Without the entry that is not a number, the send goes to each number once, in E.164.
    await recipients.fill('(415) 555-0125\n+1 415 555 0126, 415.555.0127');
    await page.getByLabel('Message').fill('Typed as people type');
    await page.getByRole('button', { name: 'Send to 3 recipients' }).click();
    await page.waitForURL(/\/batches\/[0-9a-f-]{36}$/);
    const batchId = page.url().split('/').pop()!;
    const { messages } = await readJson(
      await app.fetch(`/v1/batches/${batchId}`, json('GET', undefined, { 'x-api-key': key })),
    );
    expect(messages.map((m: { recipient: string }) => m.recipient).sort()).toEqual([
      '+14155550125',
      '+14155550126',
      '+14155550127',
    ]);

    // The opt-out form: a local number is added as E.164; one that is not a number is said once.
    await page.goto('/opt-outs');
    const field = page.getByLabel('Number to add');
    await shown(field);
    await field.fill('(415) 555-0130');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await shown(page.getByRole('status').filter({ hasText: '+14155550130 is on the list.' }));
    await field.fill('555');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    const said =
      '“555” is not a phone number: write it with + and its country code, or as a US number, e.g. +14155550123.';
    await shown(page.getByText(said));
    expect(await page.getByText(said).count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await page.getByText(/phone number is not a valid phone number/).count()).toBe(0);
    await checkShot(page, 'number-entry-opt-out-1280');
    await expectAxeCleanEverywhere(page, 'number-entry-opt-outs');
    expect(contexts.consoleErrors()).toEqual([]);
  }, 120_000);
});
