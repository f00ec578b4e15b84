/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';
import { axeViolations, checkShot, onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';

// A send a person cancelled and a text to a number that opted out, beside one a phone could not send,
// in a real Chromium against the real API and Postgres: the first two are quiet states of their own
// on the batch, in Batches, in Recent sends and in the daily chart; only the third is a failure.

describe('cancelled and opted-out texts on the dashboard', () => {
  const { contexts, started } = appSceneHooks({ plan: 'pro' });

  it('shows them as cancelled and opted out, not failed, on every screen, axe clean', async () => {
    const { app, account } = started();
    const key = await createKey(app, account);
    const phone = await pairPhone(app, key);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.fetch(path, json(method, body, { 'x-api-key': key }));
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return readJson(res);
    };
    // A text the phone could not send: the one failure.
    const lost = await call('POST', '/v1/messages', { body: 'No signal', to: ['+14155550401'] });
    await app.fetch('/v1/device/outbox?limit=1', { headers: bearer(phone.token) });
    const report = { reports: [{ id: lost.message_ids[0], status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' }] };
    expect((await app.fetch('/v1/device/messages/status', json('POST', report, bearer(phone.token)))).status).toBe(200);
    // The test app's clock stands still unless moved: each send a second after the one before.
    app.clock.advance(1000);
    // A number that texted STOP.
    await call('POST', '/v1/opt-outs', { phone_number: '+14155550402' });
    const stopped = await call('POST', '/v1/messages', { body: 'Sale today', to: ['+14155550402'] });
    app.clock.advance(1000);
    // A send for later, which the person cancels on its screen.
    const later = await call('POST', '/v1/messages', {
      body: 'See you tomorrow',
      to: ['+14155550403', '+14155550404'],
      scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    });

    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto(`/batches/${later.batch.id}`);
    await page.getByRole('button', { name: 'Cancel the send' }).click();
    await page.getByRole('dialog', { name: 'Cancel this send?' }).getByRole('button', { name: 'Cancel send' }).click();
    await shown(page.getByTestId('batch-status').getByText('cancelled', { exact: true }));
    expect(await page.getByTestId('batch-counts').textContent()).toContain('0 failed · 0 unknown · 2 cancelled');
    expect(await page.getByTestId('batch-summary').textContent()).toBe('2 cancelled · 2 recipients');
    // The batch's own note says it was cancelled, without the colour of an error.
    const note = page.getByTestId('batch-error');
    expect(await note.textContent()).toBe('The send was cancelled.');
    expect(await colourOf(note)).not.toBe(await page.evaluate(danger));
    const statuses = page.getByTestId('message-row').getByText('cancelled', { exact: true });
    await expect.poll(() => statuses.count()).toBe(2);

    await page.goto(`/batches/${stopped.batch.id}`);
    await shown(page.getByTestId('batch-status').getByText('opted out', { exact: true }));
    await shown(page.getByTestId('message-row').getByText('opted out', { exact: true }));

    // Batches: each its own state, only the phone's failure red.
    await page.goto('/batches');
    const rows = page.getByTestId('batch-row');
    await expect.poll(() => rows.count()).toBe(3);
    const stateOf = async (text: string) =>
      (await rows.filter({ hasText: text }).locator('.mantine-Badge-root').textContent())?.trim();
    expect([await stateOf('See you tomorrow'), await stateOf('Sale today'), await stateOf('No signal')]).toEqual([
      'cancelled',
      'opted out',
      'failed',
    ]);

    // Recent sends and the chart: 1 failed today, the cancelled and the opted-out apart.
    await page.goto('/');
    const recent = page.getByRole('table', { name: 'Recent sends' });
    await shown(recent);
    expect(await recent.getByTestId('batch-summary').allTextContents()).toEqual([
      '2 cancelled · 2 recipients',
      '1 opted out · 1 recipient',
      '1 failed · 1 recipient',
    ]);
    const today = page.getByTestId('chart-day').last();
    expect({
      failed: await today.getAttribute('data-failed'),
      cancelled: await today.getAttribute('data-cancelled'),
      optedOut: await today.getAttribute('data-opted-out'),
    }).toEqual({ failed: '1', cancelled: '2', optedOut: '1' });
    expect(await page.getByTestId('daily-chart').getAttribute('aria-label')).toBe(
      'Texts per day, last 14 days: 4 texts: 1 failed, 2 cancelled, 1 opted out.',
    );

    // Messages: the same words for each text.
    await page.goto('/messages');
    const messages = page.getByTestId('message-row');
    await expect.poll(() => messages.count()).toBe(4);
    expect((await messages.locator('.mantine-Badge-root').allTextContents()).sort()).toEqual([
      'cancelled',
      'cancelled',
      'failed',
      'opted out',
    ]);

    // At 1280 and 375 px, light and dark: axe finds nothing serious on these screens.
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 375, height: 812 },
      ]) {
        const other = await signInOn(
          await contexts.page(onApp(app, { viewport, colorScheme })),
          account.email,
          PASSWORD,
        );
        for (const [href, testId] of [
          [`/batches/${later.batch.id}`, 'batch-status'],
          ['/batches', 'batch-row'],
          ['/', 'daily-chart'],
          ['/messages', 'message-row'],
        ]) {
          await other.goto(href);
          await shown(other.getByTestId(testId));
          const at = { colorScheme, width: viewport.width, href };
          expect({ ...at, violations: await axeViolations(other) }).toEqual({ ...at, violations: [] });
        }
        await checkShot(other, `withdrawn-messages-${viewport.width}-${colorScheme}`);
      }
    }
    expect(contexts.consoleErrors()).toEqual([]);
  }, 180_000);
});

/** The computed text colour of an element. */
const colourOf = (locator: ReturnType<Page['getByTestId']>) => locator.evaluate((el) => getComputedStyle(el).color);

/** The colour the dashboard gives errors, as computed. */
function danger(): string {
  const probe = document.createElement('span');
  probe.style.color = 'var(--pg-danger)';
  document.body.append(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  return colour;
}
