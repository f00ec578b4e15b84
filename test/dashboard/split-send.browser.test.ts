/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { readJson } from '../support/http';
import { pairPhone } from '../devices/helpers';
import { onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';
import { expectAxeCleanEverywhere } from './axe-walk';

// A CSV list longer than the plan allows in one send, in a real Chromium against the real API and
// Postgres: the form says what each limit is, drops the rows that are not numbers, and sends the
// rest as several sends the plan allows (one batch each) with one progress view.

describe('a list over the plan’s recipients per send', () => {
  const { contexts, started } = appSceneHooks({ plan: 'free' });

  it('drops the invalid rows and sends the rest as sends of at most the plan’s size, with one progress', async () => {
    const { app, account } = started();
    const key = await createKey(app, account);
    await pairPhone(app, key);
    const page = await signInOn(await contexts.page(onApp(app, { locale: 'en-US' })), account.email, PASSWORD);
    /** axe at 1280 and 375 px, light and dark, on the page as it is. */
    await page.goto('/send');
    await shown(page.getByRole('textbox', { name: 'Recipients' }));

    // 50 rows: 47 numbers, 3 that are not.
    const rows = Array.from({ length: 47 }, (_, i) => `Guest ${i},+1415555${String(300 + i).padStart(4, '0')}`);
    rows.splice(10, 0, 'Typo,12');
    rows.splice(20, 0, 'Desk,999');
    rows.splice(30, 0, 'Nobody,55');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Add numbers from a CSV file' }).click();
    await (
      await chooser
    ).setFiles({ name: 'guests.csv', mimeType: 'text/csv', buffer: Buffer.from(`Name,Phone\n${rows.join('\n')}\n`) });
    const summary = page.getByTestId('recipient-summary');
    await expect.poll(() => summary.textContent()).toBe('47 valid recipients, 3 invalid');
    expect(await page.getByTestId('send-allowance').textContent()).toBe(
      'The Free plan allows 10 recipients a send, and this list has 47: it can go as 5 sends of at most 10, one batch each. The plans on Account allow more.',
    );
    await page.getByLabel('Message').fill('Doors open at seven');
    const split = page.getByRole('button', { name: 'Send as 5 sends' });
    expect(await split.isDisabled()).toBe(true);
    await expectAxeCleanEverywhere(page, 'split-send-limits');
    await page.getByRole('button', { name: 'Remove the 3 invalid entries' }).click();
    await expect.poll(() => summary.textContent()).toBe('47 valid recipients');
    expect(await page.getByRole('button', { name: 'Send to 47 recipients' }).isDisabled()).toBe(true);
    await split.click();

    const progress = page.getByTestId('split-progress');
    await shown(progress.getByRole('heading', { name: '47 recipients in 5 sends' }));
    expect(await progress.getByTestId('split-send').count()).toBe(5);
    expect(await progress.getByTestId('split-unsent').count()).toBe(0);
    const { data } = await readJson(await app.fetch('/v1/batches', json('GET', undefined, { 'x-api-key': key })));
    expect(data.map((b: { recipient_count: number }) => b.recipient_count).sort()).toEqual([10, 10, 10, 10, 7].sort());
    const links = await progress.getByRole('link').allTextContents();
    expect(links).toEqual([
      'Send 1 of 5: 10 recipients',
      'Send 2 of 5: 10 recipients',
      'Send 3 of 5: 10 recipients',
      'Send 4 of 5: 10 recipients',
      'Send 5 of 5: 7 recipients',
    ]);

    await expectAxeCleanEverywhere(page, 'split-send-progress');
    expect(contexts.consoleErrors()).toEqual([]);
  }, 120_000);
});
