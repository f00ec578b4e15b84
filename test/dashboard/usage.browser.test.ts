/// <reference lib="dom" />
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { backdateMessage } from '../support/factories';
import { readJson } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';
import { axeViolations, checkShot, onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';

const DAY = 86_400_000;
const dayIn = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC' }).format(at);

// The account's usage per day and per month on the Account page, in a real Chromium against the
// real API and Postgres, and the same numbers downloaded as a CSV file.

describe('usage per day and per month on the Account page', () => {
  const { contexts, started } = appSceneHooks({ plan: 'pro' });

  it('lists the texts of each day and month and downloads them as CSV, axe clean', async () => {
    const { app, account } = started();
    const key = await createKey(app, account);
    const phone = await pairPhone(app, key);
    const sent = await app.fetch(
      '/v1/messages',
      json('POST', { body: 'Your order is ready', to: ['+14155550601', '+14155550602'] }, { 'x-api-key': key }),
    );
    const ids = (await readJson(sent)).message_ids as string[];
    await app.fetch('/v1/device/outbox?limit=2', { headers: bearer(phone.token) });
    const reports = {
      reports: [
        { id: ids[0], status: 'delivered' },
        { id: ids[1], status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' },
      ],
    };
    expect((await app.fetch('/v1/device/messages/status', json('POST', reports, bearer(phone.token)))).status).toBe(
      200,
    );
    const inbound = { sender: '+14155550601', body: 'Thanks!', received_at: new Date().toISOString() };
    expect((await app.fetch('/v1/device/inbound', json('POST', inbound, bearer(phone.token)))).status).toBeLessThan(
      300,
    );
    // The delivered one was sent two days ago.
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    await backdateMessage(app.orm, ids[0], twoDaysAgo);

    const page = await signInOn(
      await contexts.page(onApp(app, { timezoneId: 'UTC', locale: 'en-US', acceptDownloads: true })),
      account.email,
      PASSWORD,
    );
    await page.goto('/account');
    const usage = page.getByRole('region', { name: 'Usage' });
    await shown(usage);
    const table = usage.getByRole('table', { name: 'Texts per day' });
    await shown(table);
    // Thirty days, newest first: today has the failed text and the reply, two days ago the delivered one.
    const rows = table.getByTestId('usage-row');
    expect(await rows.count()).toBe(30);
    const cells = async (i: number) => (await rows.nth(i).getByRole('cell').allTextContents()).map((c) => c.trim());
    const label = (at: Date) =>
      at.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
    expect(await cells(0)).toEqual([label(new Date()), '0', '0', '1', '1', '0']);
    expect(await cells(2)).toEqual([label(twoDaysAgo), '1', '1', '0', '0', '1']);
    expect(await usage.getByTestId('usage-totals').textContent()).toMatch(
      /: 1 sent, 1 delivered, 1 failed, 1 received, 1 segments$/,
    );

    // The same numbers as a file, oldest day first.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      usage.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^usage-day-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = (await readFile((await download.path())!, 'utf8')).split('\r\n');
    expect(csv[0]).toBe('day,sent,delivered,failed,cancelled,opted_out,received,segments');
    expect(csv).toHaveLength(32);
    expect(csv).toContain(`${dayIn(twoDaysAgo)},1,1,0,0,0,0,1`);
    expect(csv[30]).toBe(`${dayIn(new Date())},0,0,1,0,0,1,0`);

    // Per month: this month's row holds all of it (unless two days ago was last month).
    await usage.getByText('Per month').click();
    const months = usage.getByRole('table', { name: 'Texts per month' });
    await shown(months);
    expect(await months.getByTestId('usage-row').count()).toBe(12);
    const month = (at: Date) => at.toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
    const thisMonth = (await months.getByTestId('usage-row').first().getByRole('cell').allTextContents()).map((c) =>
      c.trim(),
    );
    expect(thisMonth[0]).toBe(month(new Date()));
    const together = month(twoDaysAgo) === month(new Date());
    expect(thisMonth.slice(1)).toEqual(together ? ['1', '1', '1', '1', '1'] : ['0', '0', '1', '1', '0']);
    const [monthly] = await Promise.all([
      page.waitForEvent('download'),
      usage.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(monthly.suggestedFilename()).toMatch(/^usage-month-/);
    expect((await readFile((await monthly.path())!, 'utf8')).split('\r\n')[0]).toBe(
      'month,sent,delivered,failed,cancelled,opted_out,received,segments',
    );

    // At 1280 and 375 px, light and dark: axe finds nothing serious, and nothing widens the phone.
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 375, height: 812 },
      ]) {
        const other = await signInOn(
          await contexts.page(onApp(app, { viewport, colorScheme, timezoneId: 'UTC' })),
          account.email,
          PASSWORD,
        );
        await other.goto('/account');
        await shown(other.getByTestId('usage-row'));
        const at = { colorScheme, width: viewport.width };
        expect({ ...at, violations: await axeViolations(other) }).toEqual({ ...at, violations: [] });
        expect(await other.evaluate(() => document.documentElement.scrollWidth)).toBe(viewport.width);
        await other.getByRole('region', { name: 'Usage' }).scrollIntoViewIfNeeded();
        await checkShot(other, `usage-${viewport.width}-${colorScheme}`);
      }
    }
    expect(contexts.consoleErrors()).toEqual([]);
  }, 180_000);
});
