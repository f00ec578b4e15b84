/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { backdateMessage } from '../support/factories';
import { readJson } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';
import { axeViolations, checkShot, onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';

const DAY = 86_400_000;
const dayIn = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC' }).format(at);

// The Overview's chart of the last 14 days, in a real Chromium against the real API and Postgres:
// texts on the days they were created, each counted once by where it stands, on a value axis, with
// each day's numbers on hover and on keyboard focus.

describe('the Overview’s texts-per-day chart', () => {
  const { contexts, started } = appSceneHooks({ plan: 'pro' });

  it('spreads the texts over their days, on an axis, each once, with the day’s numbers on hover and focus', async () => {
    const { app, account } = started();
    const key = await createKey(app, account);
    const phone = await pairPhone(app, key);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.fetch(path, json(method, body, { 'x-api-key': key }));
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return readJson(res);
    };
    // Six texts: delivered, delivered, failed, sent without a report; one not fetched by the phone.
    const sent = await call('POST', '/v1/messages', {
      body: 'Table for two',
      to: ['+14155550501', '+14155550502', '+14155550503', '+14155550504'],
    });
    const ids = sent.message_ids as string[];
    await app.fetch('/v1/device/outbox?limit=4', { headers: bearer(phone.token) });
    const reports = {
      reports: [
        { id: ids[0], status: 'delivered' },
        { id: ids[1], status: 'delivered' },
        { id: ids[2], status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' },
        { id: ids[3], status: 'sent' },
      ],
    };
    expect((await app.fetch('/v1/device/messages/status', json('POST', reports, bearer(phone.token)))).status).toBe(
      200,
    );
    app.clock.advance(1000);
    await call('POST', '/v1/messages', { body: 'Later today', to: ['+14155550505'] });
    // Two of them were created days ago: the chart draws them there, not on today.
    const threeDaysAgo = new Date(Date.now() - 3 * DAY);
    const tenDaysAgo = new Date(Date.now() - 10 * DAY);
    await backdateMessage(app.orm, ids[0], threeDaysAgo);
    await backdateMessage(app.orm, ids[2], tenDaysAgo);

    const page = await signInOn(
      await contexts.page(onApp(app, { timezoneId: 'UTC', locale: 'en-US' })),
      account.email,
      PASSWORD,
    );
    const chart = page.getByTestId('daily-chart');
    await shown(chart);
    const days = page.getByTestId('chart-day');
    expect(await days.count()).toBe(14);
    const drawn = await days.evaluateAll((els) =>
      els.filter((el) => el.getAttribute('data-total') !== '0').map((el) => [el.getAttribute('data-date'), el.dataset]),
    );
    expect(drawn.map(([date, data]) => [date, { ...(data as Record<string, string>) }])).toEqual([
      [dayIn(tenDaysAgo), expect.objectContaining({ total: '1', failed: '1', delivered: '0' })],
      [dayIn(threeDaysAgo), expect.objectContaining({ total: '1', delivered: '1', failed: '0' })],
      [
        dayIn(new Date()),
        expect.objectContaining({ total: '3', delivered: '1', awaiting: '1', pending: '1', failed: '0' }),
      ],
    ]);

    // Each text once in the legend and in the words for screen readers: 5 texts, not "sent 3, delivered 2".
    expect(await page.getByTestId('chart-legend').allTextContents()).toEqual([
      'Delivered 2',
      'Awaiting report 1',
      'Queued 1',
      'Failed 1',
    ]);
    expect(await chart.getAttribute('aria-label')).toBe(
      'Texts per day, last 14 days: 5 texts: 2 delivered, 1 awaiting report, 1 queued, 1 failed.',
    );
    // A value axis from 0 to above today's three; dates with their month.
    expect(await page.getByTestId('chart-tick').allTextContents()).toEqual(['0', '1', '2', '3']);
    const dates = (await page.getByTestId('chart-date').allTextContents()).filter(Boolean);
    expect(dates).toHaveLength(7);
    expect(dates[0]).toMatch(/^[A-Z][a-z]{2} \d{1,2}$/);
    expect(dates.at(-1)).toMatch(new RegExp(`(^| )${new Date().getUTCDate()}$`));

    // Hover shows the day's numbers; so does reaching the day with the keyboard.
    const today = days.last();
    const longToday = new Date().toLocaleDateString('en-US', {
      weekday: 'short',
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    });
    await today.hover();
    const tip = page.getByRole('tooltip');
    await shown(tip);
    expect(await tip.textContent()).toBe(`${longToday}: 1 delivered, 1 awaiting report, 1 queued`);
    await page.mouse.move(0, 0);
    await expect.poll(() => tip.count()).toBe(0);
    await days.nth(12).focus();
    await page.keyboard.press('Tab');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-date')))
      .toBe(dayIn(new Date()));
    await shown(tip);
    expect(await tip.textContent()).toContain(longToday);
    expect(await today.getAttribute('aria-label')).toBe(`${longToday}: 1 delivered, 1 awaiting report, 1 queued`);
    expect(await days.first().getAttribute('aria-label')).toMatch(/: no texts$/);

    // At 1280 and 375 px, light and dark: axe finds nothing serious, and the phone's width holds.
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
        await shown(other.getByTestId('daily-chart'));
        await other.getByTestId('chart-day').last().hover();
        await shown(other.getByRole('tooltip'));
        const at = { colorScheme, width: viewport.width };
        expect({ ...at, violations: await axeViolations(other) }).toEqual({ ...at, violations: [] });
        expect(await other.evaluate(() => document.documentElement.scrollWidth)).toBe(viewport.width);
        await checkShot(other, `daily-chart-${viewport.width}-${colorScheme}`);
      }
    }
    expect(contexts.consoleErrors()).toEqual([]);
  }, 180_000);
});
