/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { axeViolations, shown, startScene, type Scene } from './browser';

// Redelivering a ping that is still retrying, in a real Chromium against the real `npm start` stack
// with local HTTPS receivers: one that refuses each event the first time only (the redelivery
// reaches it, and the original stops retrying), one that is down (the redelivery fails, and the
// original keeps its retries). The log links each redelivery and the delivery it repeats.

describe('redelivering from the delivery log', () => {
  let scene: Scene;
  let flaky: Receiver;
  let down: Receiver;
  const seen = new Set<string>();
  const eventOf = (raw: string) => (JSON.parse(raw) as { id: string }).id;

  beforeAll(async () => {
    flaky = await startReceiver((request) => {
      const first = !seen.has(eventOf(request.raw));
      seen.add(eventOf(request.raw));
      return { status: first ? 503 : 200, body: first ? 'busy' : 'ok' };
    });
    down = await startReceiver(() => ({ status: 503, body: 'down' }));
    scene = await startScene('redelivery', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DEFAULT_PLAN: 'business' });
    await scene.call('POST', '/v1/webhooks', { url: flaky.url, name: 'Flaky receiver', events: ['message.received'] });
    await scene.call('POST', '/v1/webhooks', { url: down.url, name: 'Down receiver', events: ['message.received'] });
  }, 240_000);

  afterAll(async () => {
    await scene?.stop();
    await flaky?.close();
    await down?.close();
  }, 90_000);

  it('ends a retrying ping with a redelivery that arrives, once, and links the two', async () => {
    const page = await scene.signedIn();
    await page.goto('/webhooks');
    const card = page.getByRole('region', { name: 'Flaky receiver' });
    await card.getByRole('button', { name: 'Send test ping' }).click();
    const result = card.getByTestId('ping-result');
    await expect
      .poll(() => result.textContent(), { timeout: 30_000 })
      .toMatch(/^Ping not accepted: HTTP 503\. Retrying in \d+ (seconds|minutes?)\.$/);

    const log = page.getByRole('region', { name: 'Delivery log' });
    const rows = log.getByTestId('delivery-row');
    await expect.poll(() => rows.count()).toBe(1);
    await rows.first().getByRole('button', { name: 'Redeliver' }).click();

    // The card beside the button no longer counts down to a retry.
    await expect
      .poll(() => result.textContent(), { timeout: 30_000 })
      .toBe('Ping redelivered: the redelivery reached the receiver, so this ping is not retried.');
    await expect.poll(() => rows.count()).toBe(2);
    const [redelivery, original] = [rows.nth(0), rows.nth(1)];
    await shown(redelivery.getByText('delivered', { exact: true }), 30_000);
    await shown(original.getByText('redelivered', { exact: true }), 30_000);
    await shown(original.getByText('Delivered by its redelivery, so it is not retried.'));
    // The receiver had the event twice: the refused first try and the redelivery.
    expect(flaky.requests).toHaveLength(2);
    expect(new Set(flaky.requests.map((r) => eventOf(r.raw))).size).toBe(1);

    // From the original to its redelivery, and back.
    await original.getByRole('button', { name: 'Open its redelivery' }).click();
    const detail = page.getByRole('dialog', { name: 'Delivery of ping' });
    const links = detail.getByTestId('delivery-detail-links');
    await shown(links.getByRole('button', { name: 'Redelivery of an earlier delivery' }));
    expect(await detail.getByTestId('delivery-summary').textContent()).toBe('Answer: HTTP 200');
    await links.getByRole('button', { name: 'Redelivery of an earlier delivery' }).click();
    await shown(links.getByRole('button', { name: 'Open its redelivery' }));
    expect(await detail.getByTestId('delivery-summary').textContent()).toBe('Answer: HTTP 503');
    expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });
    await detail.getByRole('button', { name: 'Close' }).click();
  }, 120_000);

  it('says a redelivery that failed leaves the original retrying', async () => {
    const page = await scene.signedIn();
    await page.goto('/webhooks');
    const card = page.getByRole('region', { name: 'Down receiver' });
    await card.getByRole('button', { name: 'Send test ping' }).click();
    const result = card.getByTestId('ping-result');
    await expect.poll(() => result.textContent(), { timeout: 30_000 }).toMatch(/^Ping not accepted: HTTP 503\./);

    const rows = page.getByRole('region', { name: 'Delivery log' }).getByTestId('delivery-row');
    const retrying = rows.filter({ has: page.getByText('retrying', { exact: true }) });
    await expect.poll(() => retrying.count(), { timeout: 30_000 }).toBe(1);
    await retrying.getByRole('button', { name: 'Redeliver' }).click();

    const failed = rows.filter({ hasText: 'This redelivery failed' });
    await shown(failed, 30_000);
    expect(await failed.getByTestId('delivery-links').textContent()).toMatch(
      /This redelivery failed; the original keeps its retries \(in \d+ (seconds|minutes?)\)\./,
    );
    await expect
      .poll(() => result.textContent(), { timeout: 30_000 })
      .toMatch(
        /^Ping not accepted: HTTP 503\. Redelivered; until a redelivery reaches the receiver, this ping keeps its retries\. Retrying in \d+ (seconds|minutes?)\.$/,
      );
    expect(down.requests).toHaveLength(2);

    // At 1280 and 375 px, light and dark: the log with both kinds of link is axe clean.
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 375, height: 812 },
      ]) {
        const other = await scene.signedIn({ viewport, colorScheme });
        await other.goto('/webhooks');
        await shown(other.getByText('This redelivery failed', { exact: false }), 30_000);
        await shown(other.getByText('Delivered by its redelivery, so it is not retried.'));
        expect({ colorScheme, viewport, violations: await axeViolations(other) }).toEqual({
          colorScheme,
          viewport,
          violations: [],
        });
      }
    }
  }, 180_000);
});
