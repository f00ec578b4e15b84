/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';
import { axeViolations, onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';

// Every id the dashboard shows (a message's, a batch's, a phone's, an API key's, a webhook's, a
// delivery's) has a copy button beside it, in a real Chromium against the real API and Postgres:
// the button puts exactly that id on the clipboard.

describe('ids with copy buttons', () => {
  const { contexts, started } = appSceneHooks({ plan: 'pro' });

  /** Empties the clipboard, clicks the copy button named `name` and reads what it put there. */
  async function copied(page: Page, name: string) {
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await page.getByRole('button', { name, exact: true }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).not.toBe('');
    return page.evaluate(() => navigator.clipboard.readText());
  }

  it('copies each shown id exactly, on every screen that shows one, axe clean', async () => {
    const { app, account } = started();
    const key = await createKey(app, account);
    const phone = await pairPhone(app, key, { name: 'Front desk' });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.fetch(path, json(method, body, { 'x-api-key': key }));
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return readJson(res);
    };
    const sent = await call('POST', '/v1/messages', { body: 'Your table is ready', to: ['+14155550801'] });
    const messageId = sent.message_ids[0] as string;
    const { webhook } = await call('POST', '/v1/webhooks', {
      url: 'https://8.8.8.8/sms',
      name: 'Orders',
      events: ['message.received'],
    });
    const inbound = { sender: '+14155550801', body: 'Thanks', received_at: new Date().toISOString() };
    expect((await app.fetch('/v1/device/inbound', json('POST', inbound, bearer(phone.token)))).status).toBeLessThan(
      300,
    );
    const keys = (await readJson(await app.fetch('/v1/api-keys', { headers: { cookie: account.cookie } }))).data;
    let deliveryId = '';
    await expect
      .poll(async () => {
        deliveryId = (await call('GET', `/v1/webhooks/deliveries?webhook_id=${webhook.id}`)).data[0]?.id ?? '';
        return deliveryId;
      })
      .not.toBe('');

    const page = await signInOn(
      await contexts.page(onApp(app, { permissions: ['clipboard-read', 'clipboard-write'] })),
      account.email,
      PASSWORD,
    );

    await page.goto(`/messages/${messageId}`);
    await shown(page.getByTestId('message-id'));
    expect(await page.getByTestId('message-id').textContent()).toBe(messageId);
    expect(await copied(page, 'Copy ID of the message')).toBe(messageId);
    expect(await copied(page, 'Copy ID of the batch')).toBe(sent.batch.id);

    await page.goto(`/batches/${sent.batch.id}`);
    await shown(page.getByTestId('batch-id'));
    expect(await page.getByTestId('batch-id').textContent()).toBe(sent.batch.id);
    expect(await copied(page, 'Copy ID of the batch')).toBe(sent.batch.id);

    await page.goto('/phones');
    await shown(page.getByTestId('device-id'));
    expect(await page.getByTestId('device-id').textContent()).toBe(phone.id);
    expect(await copied(page, 'Copy ID of Front desk')).toBe(phone.id);

    await page.goto('/api-keys');
    await shown(page.getByTestId('key-id'));
    expect(await copied(page, `Copy ID of the key ${keys[0].name}`)).toBe(keys[0].id);

    await page.goto('/webhooks');
    await shown(page.getByTestId('webhook-id'));
    expect(await copied(page, 'Copy ID of the webhook Orders')).toBe(webhook.id);
    // The delivery log's row opens the delivery, with its id and its message's.
    await page.getByTestId('delivery-row').first().getByRole('button').first().click();
    const dialog = page.getByRole('dialog');
    await shown(dialog.getByTestId('delivery-id'));
    expect(await copied(page, 'Copy ID of the delivery')).toBe(deliveryId);
    const received = (await call('GET', '/v1/messages?direction=inbound')).data[0].id;
    expect(await copied(page, 'Copy ID of the delivery’s message')).toBe(received);
    expect(contexts.consoleErrors()).toEqual([]);

    // At 1280 and 375 px, light and dark: axe finds nothing serious, and no id widens the phone.
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
          [`/messages/${messageId}`, 'message-id'],
          [`/batches/${sent.batch.id}`, 'batch-id'],
          ['/phones', 'device-id'],
          ['/api-keys', 'key-id'],
          ['/webhooks', 'webhook-id'],
        ]) {
          await other.goto(href);
          await shown(other.getByTestId(testId));
          const at = { colorScheme, width: viewport.width, href };
          expect({ ...at, violations: await axeViolations(other) }).toEqual({ ...at, violations: [] });
          expect({ ...at, width: await other.evaluate(() => document.documentElement.scrollWidth) }).toEqual(at);
        }
      }
    }
  }, 240_000);
});
