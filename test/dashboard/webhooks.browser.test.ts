/// <reference lib="dom" />
import { createServer as createPlainServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Locator } from 'playwright-core';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { axeViolations, checkShot, shown, startScene, type Scene } from './browser';

// The Webhooks screen when receivers misbehave, in a real Chromium against the real `npm start`
// stack: a local HTTPS receiver answering 500 (its deliveries retry), and one whose certificate is
// self-signed (the worker's TLS check refuses it, as it would a real misconfigured server).

describe('the Webhooks screen when a receiver fails', () => {
  let scene: Scene;
  let refusing: Receiver;
  let selfSigned: Server;
  let selfSignedUrl: string;
  let plain: ReturnType<typeof createPlainServer>;
  let plainUrl: string;
  let plainPosts = 0;
  const call = (method: string, path: string, body?: unknown) => scene.call(method, path, body);
  const signedIn = () => scene.signedIn();
  /** Whether a badge shows its whole word (Mantine cuts it with an ellipsis when squeezed). */
  const whole = (badge: Locator) =>
    badge.evaluate((el) => {
      const label = el.closest('.mantine-Badge-root')!.querySelector('.mantine-Badge-label') as HTMLElement;
      return label.scrollWidth <= label.clientWidth;
    });

  beforeAll(async () => {
    refusing = await startReceiver(() => ({ status: 500, body: 'not today' }));
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keyType: 'ec', algorithm: 'sha256' });
    selfSigned = createServer({ key: pems.private, cert: pems.cert }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => selfSigned.listen(0, '127.0.0.1', resolve));
    selfSignedUrl = `https://127.0.0.1:${(selfSigned.address() as AddressInfo).port}/hook`;
    // A receiver as one tries it on a laptop: plain http on this machine, no certificate.
    plain = createPlainServer((_req, res) => {
      plainPosts += 1;
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/hook`;
    scene = await startScene('webhooks', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DEFAULT_PLAN: 'business' });
    await call('POST', '/v1/webhooks', { url: refusing.url, name: 'Refusing receiver', events: ['message.received'] });
    await call('POST', '/v1/webhooks', {
      url: selfSignedUrl,
      name: 'Self-signed receiver',
      events: ['message.received'],
    });
  }, 240_000);

  afterAll(async () => {
    await scene?.stop();
    await refusing?.close();
    await new Promise((resolve) => selfSigned?.close(resolve));
    await new Promise((resolve) => plain?.close(resolve));
  }, 90_000);

  it('says beside the button what became of a test ping, in plain words for a TLS failure', async () => {
    const page = await signedIn();
    await page.goto('/webhooks');
    const refusingCard = page.getByRole('region', { name: 'Refusing receiver' });
    await shown(refusingCard.getByText('0 delivered · 0 failed', { exact: false }));
    await refusingCard.getByRole('button', { name: 'Send test ping' }).click();
    await shown(refusingCard.getByTestId('ping-result'));
    await expect
      .poll(() => refusingCard.getByTestId('ping-result').textContent(), { timeout: 30_000 })
      .toMatch(/^Ping not accepted: HTTP 500\. Retrying in \d+ (seconds|minutes?)\.$/);

    // The card's counts follow the failed attempt without a reload.
    await shown(refusingCard.getByText('0 delivered · 1 failed', { exact: false }), 15_000);

    const tlsCard = page.getByRole('region', { name: 'Self-signed receiver' });
    await tlsCard.getByRole('button', { name: 'Send test ping' }).click();
    await expect
      .poll(() => tlsCard.getByTestId('ping-result').textContent(), { timeout: 30_000 })
      .toContain('The receiver’s TLS certificate is self-signed');

    // The delivery log leads with the meaning; the detail keeps the connection's own words too.
    const log = page.getByRole('region', { name: 'Delivery log' });
    const tlsRow = log.getByTestId('delivery-row').filter({ hasText: 'TLS certificate is self-signed' });
    await shown(tlsRow, 30_000);
    await tlsRow.getByRole('button').first().click();
    const detail = page.getByRole('dialog', { name: 'Delivery of ping' });
    expect(await detail.getByTestId('delivery-summary').textContent()).toContain('self-signed');
    await shown(detail.getByText(/As the connection reported it: .*self[- ]signed certificate/));
    await detail.getByRole('button', { name: 'Close' }).click();

    // "retrying" is shown whole, at both widths.
    const retrying = log.getByTestId('delivery-row').getByText('retrying', { exact: true }).first();
    await shown(retrying, 30_000);
    expect(await whole(retrying)).toBe(true);
    expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });
    await checkShot(page, 'webhooks-failing-1280');
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await whole(retrying)).toBe(true);
    await checkShot(page, 'webhooks-failing-375');
  }, 120_000);

  it('asks before pausing, saying how many waiting deliveries pausing fails', async () => {
    const page = await signedIn();
    await page.goto('/webhooks');
    const card = page.getByRole('region', { name: 'Refusing receiver' });
    await shown(card);
    const webhookId = (await call('GET', '/v1/webhooks')).data.find(
      (w: { name: string }) => w.name === 'Refusing receiver',
    ).id;
    const waiting = async () =>
      (await call('GET', `/v1/webhooks/deliveries?webhook_id=${webhookId}&status=retrying`)).data.length;
    await expect.poll(waiting, { timeout: 30_000 }).toBe(1);

    await card.getByRole('switch').click({ force: true });
    const ask = page.getByRole('dialog', { name: 'Pause Refusing receiver?' });
    await shown(ask);
    expect(await ask.textContent()).toContain('1 delivery still waiting to be sent or retried is failed now.');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    // The dialog's overlay fades out after it: a click before then lands on the overlay.
    await page.locator('.mantine-Modal-overlay').waitFor({ state: 'detached' });
    expect(await waiting()).toBe(1);
    expect(await card.getByRole('switch').isChecked()).toBe(true);

    await card.getByRole('switch').click({ force: true });
    await ask.getByRole('button', { name: 'Pause' }).click();
    await shown(card.getByText('paused', { exact: true }));
    expect(await waiting()).toBe(0);
    // Resuming asks nothing; by keyboard this time.
    await card.getByRole('switch').focus();
    await page.keyboard.press('Space');
    await shown(card.getByText('active', { exact: true }));
  }, 60_000);

  it('ties a webhook to one phone from the form, and says which phones each one hears from', async () => {
    await scene.pair('Front desk phone');
    const phoneId = (await call('GET', '/v1/devices')).data.find((d: { name: string }) => d.name === 'Front desk phone').id;
    const page = await signedIn();
    await page.goto('/webhooks');
    const everyPhone = page.getByRole('region', { name: 'Refusing receiver' }).getByTestId('webhook-phone');
    await shown(everyPhone);
    expect(await everyPhone.textContent()).toBe('Phones: All phones');

    await page.getByRole('button', { name: 'Add a webhook' }).click();
    const form = page.getByRole('dialog', { name: 'Add a webhook' });
    await form.getByLabel('URL').fill(refusing.url);
    await form.getByLabel('Name').fill('Front desk only');
    await form.getByLabel('Phones').click();
    await page.getByRole('option', { name: 'Front desk phone' }).click();
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'Done' }).click();
    const tied = page.getByRole('region', { name: 'Front desk only' }).getByTestId('webhook-phone');
    await expect.poll(() => tied.textContent(), { timeout: 15_000 }).toBe('Phones: Front desk phone');
    const created = (await call('GET', '/v1/webhooks')).data.find((w: { name: string }) => w.name === 'Front desk only');
    expect(created.device_id).toBe(phoneId);
  }, 60_000);

  it('takes a plain http receiver on this machine under npm start, as its form says', async () => {
    const page = await signedIn();
    await page.goto('/webhooks');
    await page.getByRole('button', { name: 'Add a webhook' }).click();
    const form = page.getByRole('dialog', { name: 'Add a webhook' });
    await shown(form.getByText('under npm start, http://localhost', { exact: false }));
    await form.getByLabel('URL').fill(plainUrl);
    await form.getByLabel('Name').fill('Laptop receiver');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'Done' }).click();
    const card = page.getByRole('region', { name: 'Laptop receiver' });
    await card.getByRole('button', { name: 'Send test ping' }).click();
    await expect
      .poll(() => card.getByTestId('ping-result').textContent(), { timeout: 30_000 })
      .toMatch(/^Ping delivered: the receiver answered/);
    expect(plainPosts).toBeGreaterThan(0);
  }, 60_000);

  it('logged no console errors on any page', () => {
    expect(scene.contexts.consoleErrors()).toEqual([]);
  });
});
