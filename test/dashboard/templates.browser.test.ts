/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { readJson } from '../support/http';
import { pairPhone } from '../devices/helpers';
import { onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';
import { expectAxeCleanEverywhere } from './axe-walk';

// A message written as a template over a CSV's columns, in a real Chromium against the real API and
// Postgres: the form names the fields, flags a field no column has and recipients with an empty one,
// previews the first texts, counts the longest, saves the template, and each recipient gets its own
// text in one batch. Saved templates are then changed and deleted on their own screen.

describe('a message with fields from the CSV', () => {
  const { contexts, started } = appSceneHooks({ plan: 'pro' });

  it('flags what is missing, previews each text, saves the template and sends each recipient its own', async () => {
    const { app, account } = started();
    const key = await createKey(app, account);
    await pairPhone(app, key);
    const page = await signInOn(await contexts.page(onApp(app, { locale: 'en-US' })), account.email, PASSWORD);
    await page.goto('/send');
    await shown(page.getByRole('textbox', { name: 'Recipients' }));

    const csv = [
      'Name,Phone,Table',
      'Ann,+14155550501,4',
      'Bob,+14155550502,12',
      'Cleo,+14155550503,',
      'Dev,+14155550504,7',
    ].join('\n');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Add numbers from a CSV file' }).click();
    await (await chooser).setFiles({ name: 'guests.csv', mimeType: 'text/csv', buffer: Buffer.from(`${csv}\n`) });
    await expect.poll(() => page.getByTestId('recipient-summary').textContent()).toBe('4 valid recipients');
    const fields = page.getByRole('list', { name: 'Fields from the CSV' });
    expect(await fields.getByRole('listitem').allTextContents()).toEqual([
      'Fields from the CSV, for the message:',
      '{Name}',
      '{Table}',
    ]);

    const message = page.getByLabel('Message');
    const send = page.getByRole('button', { name: 'Send to 4 recipients' });
    await message.fill('Hi {name}, table {tabel} is ready');
    await expect
      .poll(() => page.getByTestId('template-unknown').textContent())
      .toBe('{tabel} is not a column of the CSV: use one of the fields above.');
    expect(await send.isDisabled()).toBe(true);

    await message.fill('Hi {name}, table {table} is ready');
    await expect.poll(() => page.getByTestId('template-unknown').count()).toBe(0);
    expect(await page.getByTestId('template-empty').getByRole('paragraph').textContent()).toBe(
      '1 recipient has an empty field: +14155550503 ({table}).',
    );
    expect(await send.isDisabled()).toBe(true);
    expect(await page.getByTestId('template-preview-text').allTextContents()).toEqual([
      '+14155550501: Hi Ann, table 4 is ready',
      '+14155550502: Hi Bob, table 12 is ready',
      '+14155550503: Hi Cleo, table  is ready',
    ]);
    // The longest text decides: "Hi Bob, table 12 is ready" is 25 characters.
    expect(await page.getByTestId('segment-counter').textContent()).toBe(
      'Longest text: 25 characters · GSM-7 · 1 segment',
    );
    await expectAxeCleanEverywhere(page, 'templates-flagged');

    await page.getByRole('button', { name: 'Leave out that recipient' }).click();
    await expect.poll(() => page.getByTestId('recipient-summary').textContent()).toBe('3 valid recipients');
    expect(await page.getByTestId('template-empty').count()).toBe(0);
    expect(await page.getByTestId('template-preview-text').allTextContents()).toEqual([
      '+14155550501: Hi Ann, table 4 is ready',
      '+14155550502: Hi Bob, table 12 is ready',
      '+14155550504: Hi Dev, table 7 is ready',
    ]);

    await page.getByRole('button', { name: 'Save as a template' }).click();
    await page.getByLabel('Template name').fill('Table ready');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await shown(page.getByRole('status').filter({ hasText: 'Saved as “Table ready”.' }));
    await expectAxeCleanEverywhere(page, 'templates-preview');

    await page.getByRole('button', { name: 'Send to 3 recipients' }).click();
    await page.waitForURL(/\/batches\/[0-9a-f-]{36}$/);
    const batchId = page.url().split('/').pop();
    const call = (path: string) => app.fetch(path, json('GET', undefined, { 'x-api-key': key }));
    const detail = await readJson(await call(`/v1/batches/${batchId}`));
    expect(detail.batch.body).toBe('Hi {name}, table {table} is ready');
    expect(detail.messages.map((m: { recipient: string; body: string }) => [m.recipient, m.body])).toEqual([
      ['+14155550501', 'Hi Ann, table 4 is ready'],
      ['+14155550502', 'Hi Bob, table 12 is ready'],
      ['+14155550504', 'Hi Dev, table 7 is ready'],
    ]);
    const messages = page.getByRole('table', { name: 'Messages of this batch' });
    await shown(messages.getByText('Hi Bob, table 12 is ready'));

    // The saved template, picked on a fresh Send screen, then changed and deleted on its own screen.
    await page.goto('/send');
    const picker = page.getByRole('combobox', { name: 'Saved template' });
    await expect.poll(() => picker.isEnabled()).toBe(true);
    await picker.click();
    await page.getByRole('option', { name: 'Table ready' }).click();
    await expect.poll(() => message.inputValue()).toBe('Hi {name}, table {table} is ready');
    await page.getByRole('link', { name: 'Manage templates' }).click();
    await shown(page.getByRole('heading', { name: 'Message templates' }));
    const rows = page.getByTestId('template-row');
    await shown(rows.filter({ hasText: 'Table ready' }));
    await expectAxeCleanEverywhere(page, 'templates-manage');
    await page.getByRole('button', { name: 'Change Table ready' }).first().click();
    const form = page.getByRole('form', { name: 'Change Table ready' });
    await form.getByLabel('Name').fill('Table is ready');
    await form.getByRole('button', { name: 'Save the changes' }).click();
    await shown(rows.filter({ hasText: 'Table is ready' }));
    await page.getByRole('button', { name: 'Delete Table is ready' }).first().click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await shown(page.getByText('No saved templates'));
    expect((await readJson(await call('/v1/templates'))).data).toEqual([]);
    expect(contexts.consoleErrors()).toEqual([]);
  }, 180_000);
});
