/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedPhone } from '../../tools/phone/phone';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { axeViolations, checkShot, shown, startScene, type Scene } from './browser';

// A message's own screen, in a real Chromium against the real `npm start` stack: two simulated phones
// speaking the public /v1/device API (one delivers, one fails every text), and a local HTTPS webhook
// receiver taking the messages' events.

const SECOND_PRECISION = /\d{1,2}:\d{2}:\d{2}\s[AP]M \S+/;

describe('the message detail screen', () => {
  let scene: Scene;
  let receiver: Receiver;
  let good: SimulatedPhone;
  let failing: SimulatedPhone;
  let quiet: SimulatedPhone;

  /** GET, or POST when there is a body, with the account's key. */
  const call = (path: string, body?: unknown) => scene.call(body === undefined ? 'GET' : 'POST', path, body);
  const reached = (batchId: string, status: string) => scene.reached(batchId, status);
  const signedIn = () => scene.signedIn();

  beforeAll(async () => {
    receiver = await startReceiver();
    scene = await startScene('message-detail', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DEFAULT_PLAN: 'business' });
    good = await scene.pair('Good phone');
    failing = await scene.pair('Failing phone', { failureRatio: 1 });
    // Sends, then reports no delivery within the test: its texts stay "sent".
    quiet = await scene.pair('Quiet phone', { deliveredAfterMs: 3_600_000 });
    await call('/v1/webhooks', { url: receiver.url, events: ['message.sent', 'message.delivered', 'message.failed'] });
  }, 240_000);

  afterAll(async () => {
    await scene?.stop();
    await receiver?.close();
  }, 90_000);

  it('opens a delivered text from its row: each time to the second, phone, SIM, size and its webhook deliveries', async () => {
    const sent = await call('/v1/messages', {
      body: 'Detail, please',
      to: ['+14155550111'],
      device_id: good.device!.id,
      sim_subscription_id: 1,
    });
    const [message] = await reached(sent.batch.id, 'delivered');

    const page = await signedIn();
    await page.goto('/messages');
    const row = page.getByTestId('message-row').filter({ hasText: 'Detail, please' });
    await shown(row);
    await row.getByRole('link', { name: /open the message to \+14155550111/ }).click();
    await shown(page.getByRole('heading', { name: 'Message', level: 1 }));
    expect(new URL(page.url()).pathname).toBe(`/messages/${message.id}`);

    expect(await page.getByTestId('message-party').textContent()).toBe('To +14155550111');
    for (const time of ['time-accepted', 'time-sent', 'time-delivered']) {
      expect({ time, text: await page.getByTestId(time).textContent() }).toEqual({
        time,
        text: expect.stringMatching(SECOND_PRECISION),
      });
    }
    expect(await page.getByTestId('time-failed').count()).toBe(0);
    expect(await page.getByTestId('message-phone').textContent()).toBe('Good phone');
    expect(await page.getByTestId('message-sim').textContent()).toBe('SIM 1 · Simulated Carrier');
    expect(await page.getByTestId('message-size').textContent()).toBe('1 segment · GSM-7');

    // Its webhook deliveries (sent, delivered), each redeliverable from here.
    const deliveries = page.getByRole('region', { name: 'Webhook deliveries of this message' });
    const delivered = deliveries.getByTestId('delivery-row').filter({ hasText: 'message.delivered' });
    await shown(delivered.filter({ hasText: 'delivered' }), 30_000);
    await shown(deliveries.getByTestId('delivery-row').filter({ hasText: 'message.sent' }), 30_000);
    expect(await deliveries.getByTestId('delivery-row').count()).toBe(2);
    const before = receiver.requests.filter((r) => r.event === 'message.delivered').length;
    await delivered.first().getByRole('button', { name: 'Redeliver' }).click();
    await expect
      .poll(() => receiver.requests.filter((r) => r.event === 'message.delivered').length, { timeout: 30_000 })
      .toBe(before + 1);
    await expect.poll(() => deliveries.getByTestId('delivery-row').count(), { timeout: 15_000 }).toBe(3);

    expect({ at: 1280, violations: await axeViolations(page) }).toEqual({ at: 1280, violations: [] });
    await checkShot(page, 'message-detail-1280');
    await page.setViewportSize({ width: 375, height: 812 });
    expect({ at: 375, violations: await axeViolations(page) }).toEqual({ at: 375, violations: [] });
    await checkShot(page, 'message-detail-375');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(375);
  }, 120_000);

  it('says a completed batch with no delivery yet was sent, not completed, and shows a failed text’s error', async () => {
    const sent = await call('/v1/messages', {
      body: 'Awaiting reports',
      to: ['+14155550121', '+14155550122', '+14155550123'],
      device_id: quiet.device!.id,
    });
    await reached(sent.batch.id, 'sent');
    await expect.poll(async () => (await call(`/v1/batches/${sent.batch.id}`)).batch.status).toBe('completed');

    const page = await signedIn();
    await page.goto('/batches');
    const row = page.getByTestId('batch-row').filter({ hasText: 'Awaiting reports' });
    await shown(row);
    expect(await row.getByText('completed', { exact: true }).count()).toBe(0);
    expect(await row.getByText('sent', { exact: true }).count()).toBe(1);
    await page.goto(`/batches/${sent.batch.id}`);
    await shown(page.getByTestId('batch-counts'));
    expect(await page.getByTestId('batch-status').textContent()).toBe('sent');
    expect(await page.getByTestId('batch-counts').textContent()).toMatch(/^0 delivered of 3 · 3 sent · /);
    await page.getByRole('link', { name: /open the message to \+14155550121/ }).click();
    await shown(page.getByTestId('time-sent'));
    expect(await page.getByTestId('time-delivered').count()).toBe(0);

    // A failed text: its error code and message, and when it failed.
    const doomed = await call('/v1/messages', { body: 'Doomed', to: ['+14155550131'], device_id: failing.device!.id });
    const [failed] = await reached(doomed.batch.id, 'failed');
    await page.goto(`/messages/${failed.id}`);
    await shown(page.getByTestId('message-error'));
    expect(await page.getByTestId('message-error').textContent()).toMatch(/^\S+: Simulated failure/);
    expect(await page.getByTestId('time-failed').textContent()).toMatch(SECOND_PRECISION);
    expect(await page.getByTestId('message-phone').textContent()).toBe('Failing phone');
    expect(await page.getByTestId('message-sim').textContent()).toBe('the phone’s default');
    const deliveries = page.getByRole('region', { name: 'Webhook deliveries of this message' });
    await shown(deliveries.getByTestId('delivery-row').filter({ hasText: 'message.failed' }), 30_000);
    await checkShot(page, 'message-detail-failed-1280');
  }, 120_000);

  it('cancels a scheduled send after asking', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const later = await call('/v1/messages', { body: 'Not after all', to: ['+14155550141'], scheduled_at: at });
    const page = await signedIn();
    await page.goto(`/batches/${later.batch.id}`);
    await shown(page.getByTestId('batch-status').getByText('scheduled'));
    await page.getByRole('button', { name: 'Cancel the send' }).click();
    const ask = page.getByRole('dialog', { name: 'Cancel this send?' });
    await ask.getByRole('button', { name: 'Keep sending' }).click();
    // The dialog keeps its name while it fades out: wait until it is gone before the page's button.
    await ask.waitFor({ state: 'detached' });
    expect((await call(`/v1/batches/${later.batch.id}`)).batch.status).toBe('scheduled');
    await page.getByRole('button', { name: 'Cancel the send' }).click();
    await ask.getByRole('button', { name: 'Cancel send' }).click();
    await ask.waitFor({ state: 'detached' });
    await expect.poll(async () => (await call(`/v1/batches/${later.batch.id}`)).messages[0].status).toBe('failed');
    await shown(page.getByTestId('batch-status').getByText('cancelled'));
    expect(await page.getByRole('button', { name: 'Cancel the send' }).count()).toBe(0);
  }, 60_000);

  it('cancels one message of a send after asking, and shows it cancelled', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const later = await call('/v1/messages', { body: 'One of two', to: ['+14155550171', '+14155550172'], scheduled_at: at });
    const [first, second] = later.message_ids as string[];
    const page = await signedIn();
    await page.goto(`/messages/${first}`);
    await shown(page.getByTestId('message-status').getByText('queued'));
    await page.getByRole('button', { name: 'Cancel this message' }).click();
    const ask = page.getByRole('dialog', { name: 'Cancel this message?' });
    await ask.getByRole('button', { name: 'Keep sending' }).click();
    await ask.waitFor({ state: 'detached' });
    expect((await call(`/v1/messages/${first}`)).message.status).toBe('queued');
    await page.getByRole('button', { name: 'Cancel this message' }).click();
    await ask.getByRole('button', { name: 'Cancel the message' }).click();
    await ask.waitFor({ state: 'detached' });
    await shown(page.getByTestId('message-status').getByText('cancelled'));
    expect(await page.getByTestId('message-error').textContent()).toMatch(/^cancelled: /);
    expect(await page.getByRole('button', { name: 'Cancel this message' }).count()).toBe(0);
    // Only that one: the other text of the send still waits for its time.
    expect((await call(`/v1/messages/${first}`)).message).toMatchObject({ status: 'failed', error_code: 'cancelled' });
    expect((await call(`/v1/messages/${second}`)).message.status).toBe('queued');
    expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });
  }, 60_000);

  it('lists opted-out numbers with why, adds and removes one; shows the plans and the failover switch', async () => {
    // A STOP texted to one of the phones puts its sender on the list.
    await good.receive('+14155550151', 'STOP');
    const page = await signedIn();
    await page.getByRole('link', { name: 'Opt-outs', exact: true }).click();
    await shown(page.getByRole('heading', { name: 'Opt-outs', level: 1 }));
    const stopped = page.getByTestId('opt-out-row').filter({ hasText: '+14155550151' });
    await shown(stopped, 20_000);
    expect(await stopped.textContent()).toContain('They texted STOP');
    expect(await stopped.getByRole('link', { name: 'the text' }).getAttribute('href')).toMatch(
      /^\/messages\/[0-9a-f-]{36}$/,
    );

    await page.getByLabel('Number to add').fill('+1 415 555 0152');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await shown(page.getByRole('status').filter({ hasText: '+14155550152 is on the list.' }));
    const added = page.getByTestId('opt-out-row').filter({ hasText: '+14155550152' });
    await shown(added);
    expect(await added.textContent()).toContain('Added by hand or through the API');
    await page.getByLabel('Number to add').fill('12');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await shown(page.getByRole('alert'));
    await added.getByRole('button', { name: 'Take off +14155550152' }).click();
    await page
      .getByRole('dialog', { name: 'Take +14155550152 off the list?' })
      .getByRole('button', { name: 'Take off' })
      .click();
    await added.waitFor({ state: 'detached' });
    // The list can refresh before the dialog has finished closing; axe looks at the settled screen.
    await page.getByRole('dialog').first().waitFor({ state: 'detached' });
    const listed = (await call('/v1/opt-outs')).data.map((o: { phone_number: string }) => o.phone_number);
    expect(listed).toEqual(['+14155550151']);
    expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });
    await checkShot(page, 'opt-outs-1280');

    await page.getByRole('link', { name: 'Account', exact: true }).click();
    const plans = page.getByRole('region', { name: 'Plan' });
    await shown(plans.getByTestId('plan-row'));
    expect(await plans.getByRole('heading').textContent()).toBe('Plan: Business');
    const mine = plans.locator('[aria-current="true"]');
    expect(await mine.textContent()).toContain('Business (yours)');
    expect(await mine.textContent()).toContain('10,000');
    expect(await plans.getByTestId('plan-row').count()).toBeGreaterThanOrEqual(3);

    const failover = page.getByRole('switch', { name: /Move texts to another phone/ });
    await shown(failover);
    expect(await failover.isChecked()).toBe(false);
    await failover.click({ force: true });
    await expect.poll(async () => (await call('/v1/account/settings')).settings.failover).toBe(true);
    await page.reload();
    await shown(page.getByRole('switch', { name: /Move texts to another phone/ }));
    expect(await page.getByRole('switch', { name: /Move texts to another phone/ }).isChecked()).toBe(true);
    expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });
    await checkShot(page, 'account-plans-1280');
  }, 60_000);

  it('keeps the Overview and Messages current without a reload', async () => {
    const overview = await signedIn();
    const sentToday = async () => (await overview.getByTestId('usage-sent-today').textContent())!;
    await shown(overview.getByTestId('usage-sent-today'));
    const before = await sentToday();
    const messages = await signedIn();
    await messages.goto('/messages');
    await shown(messages.getByTestId('message-row'));
    const url = messages.url();

    const sent = await call('/v1/messages', { body: 'Live, please', to: ['+14155550161'], device_id: good.device!.id });
    await reached(sent.batch.id, 'delivered');
    await expect.poll(sentToday, { timeout: 15_000 }).not.toBe(before);
    const row = messages.getByTestId('message-row').filter({ hasText: 'Live, please' });
    await shown(row, 15_000);
    await shown(row.getByText('delivered', { exact: true }), 15_000);
    expect(messages.url()).toBe(url);
  }, 60_000);

  it('logged no console errors on any page', () => {
    expect(scene.contexts.consoleErrors()).toEqual([]);
  });
});
