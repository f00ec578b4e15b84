/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { axeViolations, checkShot, SCREENS, shown, startScene, type Scene } from './browser';

// Every screen of an account with something on each (a phone, a delivered send, a received text, a
// webhook with deliveries, an opted-out number, API keys), in a real Chromium against the real
// `npm start` stack: at a desktop and a phone width, in the light and the dark colour scheme.

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };

/** Waits for a screen to have its heading and no loading spinner. */
async function settled(page: Page) {
  await shown(page.getByRole('heading', { level: 1 }));
  await page.getByRole('status').filter({ hasText: 'Loading' }).first().waitFor({ state: 'detached' });
}

/**
 * What does not fit the viewport's width: the page scrolling sideways, and any status badge, button,
 * link or field of the screen whose right edge is past the viewport's (so off-screen without a
 * sideways scroll).
 */
function overflow(page: Page) {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const main = document.getElementById('main')!;
    const off = Array.from(main.querySelectorAll<HTMLElement>('.mantine-Badge-root, button, a, input, [role="switch"]'))
      .filter((el) => {
        const box = el.getBoundingClientRect();
        // Out of layout (a collapsed panel, a hidden file input) is not off-screen.
        return box.width > 0 && box.height > 0 && box.right > width + 0.5;
      })
      .map((el) => `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim()}"`);
    return { scrollWidth: document.documentElement.scrollWidth, off };
  });
}

describe('every screen at 1280 and 375 px, light and dark', () => {
  let scene: Scene;
  let receiver: Receiver;
  const pages: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    scene = await startScene('responsive', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DEFAULT_PLAN: 'business' });
    const phone = await scene.pair('Pixel 7a of the front desk', { deliveredAfterMs: 200 });
    const failing = await scene.pair('Failing phone', { failureRatio: 1 });
    const { webhook } = await scene.call('POST', '/v1/webhooks', {
      url: receiver.url,
      name: 'Orders service',
      events: ['message.sent', 'message.delivered', 'message.failed', 'message.received'],
    });
    const sent = await scene.call('POST', '/v1/messages', {
      body: 'Your table for four is ready at the front desk, welcome back!',
      to: ['+14155550101', '+14155550102', '+14155550103'],
      device_id: phone.device!.id,
    });
    const [delivered] = await scene.reached(sent.batch.id, 'delivered');
    const refused = await scene.call('POST', '/v1/messages', {
      body: 'This one fails',
      to: ['+14155550104'],
      device_id: failing.device!.id,
    });
    await scene.reached(refused.batch.id, 'failed');
    await phone.receive('+14155550109', 'Thanks, on our way');
    await scene.call('POST', '/v1/opt-outs', { phone_number: '+14155550199' });
    await scene.call('POST', `/v1/webhooks/${webhook.id}/test`, {});
    pages.push(...SCREENS, `/batches/${sent.batch.id}`, `/messages/${delivered.id}`);
  }, 240_000);

  afterAll(async () => {
    await scene?.stop();
    await receiver?.close();
  }, 90_000);

  it('shows rows as cards at 375 px with their status and actions on screen, and nothing scrolls sideways', async () => {
    const page = await scene.signedIn({ viewport: PHONE });
    for (const href of pages) {
      await page.goto(href);
      await settled(page);
      // Every list of the screen has its rows by now (they come with the screen's first answer).
      expect({ href, tables: await page.getByRole('table').count() }).toEqual({ href, tables: 0 });
      expect({ href, ...(await overflow(page)) }).toEqual({ href, scrollWidth: PHONE.width, off: [] });
      await checkShot(page, `responsive${href.replace(/\//g, '-')}-375`);
    }
    // Cards, with the row's status on the card's first line.
    await page.goto('/messages');
    const card = page.getByTestId('message-row').filter({ hasText: '+14155550104' });
    await shown(card);
    expect(await card.evaluate((el) => el.tagName)).toBe('LI');
    await shown(card.getByText('failed', { exact: true }));
    await page.goto('/api-keys');
    await shown(page.getByTestId('api-key-row').getByRole('button', { name: /Revoke/ }));
  }, 180_000);

  it('keeps the Messages filters in a panel that opens at 375 px', async () => {
    const page = await scene.signedIn({ viewport: PHONE });
    await page.goto('/messages');
    await settled(page);
    const toggle = page.getByRole('button', { name: 'Filters' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByLabel('Search text or number').isVisible()).toBe(false);
    // The first screen shows messages, not filters.
    const first = (await page.getByTestId('message-row').first().boundingBox())!;
    expect(first.y).toBeLessThan(PHONE.height);
    await toggle.click();
    await shown(page.getByLabel('Search text or number'));
    await page.getByLabel('Search text or number').fill('fails');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.getByTestId('message-row').count()).toBe(1);
    await shown(page.getByRole('button', { name: /Filters \(1 on\)|Hide filters \(1 on\)/ }));
  }, 60_000);

  it('has no serious or critical axe violation on any screen at 1280 and 375 px, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [DESKTOP, PHONE]) {
        const at = `${viewport.width} ${colorScheme}`;
        const page = await scene.signedIn({ viewport, colorScheme });
        for (const href of pages) {
          await page.goto(href);
          await settled(page);
          expect({ at, href, violations: await axeViolations(page) }).toEqual({ at, href, violations: [] });
        }
      }
    }
  }, 240_000);

  it('follows the system colour scheme', async () => {
    const dark = await scene.signedIn({ colorScheme: 'dark' });
    const light = await scene.signedIn({ colorScheme: 'light' });
    const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const luminance = (rgb: string) => {
      const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    expect(await dark.evaluate(() => document.documentElement.dataset.mantineColorScheme)).toBe('dark');
    expect(luminance(await background(dark))).toBeLessThan(64);
    expect(await light.evaluate(() => document.documentElement.dataset.mantineColorScheme)).toBe('light');
    expect(luminance(await background(light))).toBeGreaterThan(192);
    await checkShot(dark, 'overview-dark-1280');
    // A change of the system's scheme shows at once, without a reload.
    await light.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => light.evaluate(() => document.documentElement.dataset.mantineColorScheme)).toBe('dark');
  }, 60_000);

  it('logged no console errors on any page', () => {
    expect(scene.contexts.consoleErrors()).toEqual([]);
  });
});
