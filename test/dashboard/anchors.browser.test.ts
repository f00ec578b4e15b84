/// <reference lib="dom" />
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedPhone } from '../../tools/phone/phone';
import { parseCsv as csvRows } from '../../web/src/lib/csv';
import { axeViolations, checkShot, shown, startScene, type Scene } from './browser';

// What people expect from an SMS dashboard beyond sending, in a real Chromium against the real
// `npm start` stack with simulated phones: recipients from a CSV file, messages out as CSV, a chart
// of the days, and a reply from the Inbox.

describe('CSV in and out, the daily chart and replies from the Inbox', () => {
  let scene: Scene;
  let desk: SimulatedPhone;
  let failing: SimulatedPhone;

  beforeAll(async () => {
    scene = await startScene('anchors', { DEFAULT_PLAN: 'business' });
    desk = await scene.pair('Desk phone', { deliveredAfterMs: 200 });
    failing = await scene.pair('Failing phone', { failureRatio: 1 });
    const sent = await scene.call('POST', '/v1/messages', {
      body: 'Delivered, with a "quote", a comma\nand a new line',
      to: ['+14155550201', '+14155550202'],
      device_id: desk.device!.id,
    });
    await scene.reached(sent.batch.id, 'delivered');
    const refused = await scene.call('POST', '/v1/messages', {
      body: 'Fails',
      to: ['+14155550203'],
      device_id: failing.device!.id,
    });
    await scene.reached(refused.batch.id, 'failed');
  }, 240_000);

  afterAll(async () => {
    await scene?.stop();
  }, 90_000);

  it('adds the numbers of a CSV file to the recipients with the same checks as typed ones', async () => {
    const page = await scene.signedIn();
    await page.goto('/send');
    const recipients = page.getByRole('textbox', { name: 'Recipients' });
    await shown(recipients);
    await recipients.fill('+14155550210');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Add numbers from a CSV file' }).click();
    await (
      await chooser
    ).setFiles({
      name: 'guests.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'Name,Phone number,Table\r\nAda,+14155550211,4\r\n"Lovelace, B.",+1 415 555 0212,2\r\nNo number,12,1\r\nAda again,+14155550211,4\r\n',
      ),
    });
    await shown(page.getByRole('status').filter({ hasText: '4 numbers added from guests.csv.' }));
    expect(await recipients.inputValue()).toBe('+14155550210\n+14155550211\n+1 415 555 0212\n12\n+14155550211');
    expect(await page.getByTestId('recipient-summary').textContent()).toBe(
      '3 valid recipients, 1 invalid, 1 duplicate (sent once)',
    );
    await shown(page.getByRole('alert').filter({ hasText: '“12” is not a phone number' }));
    expect(await page.getByRole('button', { name: /^Send/ }).isDisabled()).toBe(true);
    expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });
    await checkShot(page, 'send-csv-1280');
  }, 60_000);

  it('exports every message the filters match as CSV, past the API’s page size', async () => {
    // 205 scheduled texts: more than one page of the list (200), and no phone needed to make them.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const to = Array.from({ length: 205 }, (_, i) => `+1415555${String(3000 + i).padStart(4, '0')}`);
    await scene.call('POST', '/v1/messages', { body: '=HYPERLINK("x") later', to, scheduled_at: later });

    const page = await scene.signedIn();
    await page.goto('/messages?status=queued');
    await shown(page.getByTestId('message-row'));
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await (await download).path();
    await shown(
      page.getByRole('status').filter({ hasText: /205 messages exported to messages-\d{4}-\d{2}-\d{2}\.csv/ }),
    );
    const [header, ...rows] = csvRows(await readFile(file, 'utf8'));
    expect(header.slice(0, 7)).toEqual(['id', 'created_at', 'direction', 'status', 'sender', 'recipient', 'body']);
    expect(rows).toHaveLength(205);
    const column = (name: string) => rows.map((r) => r[header.indexOf(name)]);
    expect(new Set(column('status'))).toEqual(new Set(['queued']));
    expect(new Set(column('recipient'))).toEqual(new Set(to));
    // A body that would run as a formula in a spreadsheet is written as text (a leading quote mark).
    expect(new Set(column('body'))).toEqual(new Set(['\'=HYPERLINK("x") later']));
    // A body is ciphertext only where this says so.
    expect(new Set(column('encrypted'))).toEqual(new Set(['false']));

    // The delivered texts, with their quote, comma and line break intact.
    const delivered = await scene.signedIn();
    await delivered.goto('/messages?status=delivered');
    await shown(delivered.getByTestId('message-row'));
    const second = delivered.waitForEvent('download');
    await delivered.getByRole('button', { name: 'Export CSV' }).click();
    const [head, ...deliveredRows] = csvRows(await readFile(await (await second).path(), 'utf8'));
    expect(deliveredRows.map((r) => r[head.indexOf('body')])).toEqual([
      'Delivered, with a "quote", a comma\nand a new line',
      'Delivered, with a "quote", a comma\nand a new line',
    ]);
    expect(deliveredRows.every((r) => r[head.indexOf('delivered_at')] !== '')).toBe(true);
  }, 90_000);

  it('draws each text of the last 14 days once, by its outcome, on the Overview', async () => {
    const page = await scene.signedIn({ viewport: { width: 375, height: 812 } });
    const days = page.getByTestId('chart-day');
    await shown(page.getByTestId('daily-chart'));
    expect(await days.count()).toBe(14);
    const today = await page.evaluate(() => new Date().toLocaleDateString('en-CA'));
    const last = days.last();
    expect(await last.getAttribute('data-date')).toBe(today);
    // Today, each text counted once by where it stands: 2 delivered, 1 failed, and the sends of the
    // tests before this one still waiting for their phone; the parts add up to the day's texts.
    const parts = await last.evaluate((el) => ({ ...el.dataset }));
    expect(parts).toMatchObject({ delivered: '2', failed: '1' });
    const sum = ['delivered', 'awaiting', 'pending', 'failed', 'unknown', 'cancelled', 'optedOut'].reduce(
      (total, key) => total + Number(parts[key]),
      0,
    );
    expect(Number(parts.total)).toBe(sum);
    expect(await page.getByTestId('daily-chart').getAttribute('aria-label')).toMatch(
      new RegExp(`^Texts per day, last 14 days: ${sum} texts: 2 delivered, (.+, )?1 failed\\.$`),
    );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(375);
    await checkShot(page, 'overview-chart-375');
  }, 60_000);

  it('opens the thread with a number from the Inbox and replies through the phone that received it', async () => {
    await desk.receive('+14155550231', 'Is there a table for six at 8?');
    const page = await scene.signedIn({ viewport: { width: 375, height: 812 } });
    await page.goto('/inbox');
    await page.getByRole('link', { name: 'Reply to +14155550231' }).click();
    await shown(page.getByRole('heading', { name: 'Texts with +14155550231', level: 1 }));
    const thread = page.getByTestId('thread-message');
    await shown(thread.filter({ hasText: 'Is there a table for six at 8?' }));

    await page.getByLabel('Reply to +14155550231').fill('Yes, see you at 8!');
    await page.getByRole('button', { name: 'Send reply' }).click();
    const reply = thread.filter({ hasText: 'Yes, see you at 8!' });
    await shown(reply);
    expect(await reply.getAttribute('data-direction')).toBe('outbound');
    expect(await page.getByLabel('Reply to +14155550231').inputValue()).toBe('');
    // The screen follows the reply to its delivery without a reload.
    await shown(reply.getByText('delivered', { exact: true }), 30_000);
    const sent = (await scene.call('GET', '/v1/messages?direction=outbound&q=%2B14155550231')).data;
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ body: 'Yes, see you at 8!', device_id: desk.device!.id, status: 'delivered' });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(375);
    expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });
    await checkShot(page, 'inbox-thread-375');
  }, 90_000);

  it('sets a phone’s pacing, order, SIM rotation and send window, and cancels a send the window holds back', async () => {
    const page = await scene.signedIn();
    await page.goto('/phones');
    await page.getByRole('region', { name: 'Failing phone' }).getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings of Failing phone' });
    await shown(dialog);
    await dialog.getByLabel('Sends per minute, at most').fill('6');
    await dialog.getByLabel('Sends per hour, at most').fill('100');
    await dialog.getByLabel('Sends per day, at most').fill('1000');
    await dialog.getByLabel('Order of sending', { exact: true }).click();
    await page.getByRole('option', { name: 'Newest first' }).click();
    await dialog.getByLabel('SIM for texts that name none', { exact: true }).click();
    await page.getByRole('option', { name: 'Each SIM in turn' }).click();
    await dialog.getByRole('switch', { name: 'Sends only within set days and hours' }).click({ force: true });
    await dialog.getByLabel('Time zone').fill('UTC');
    for (const day of ['Sat', 'Sun']) await dialog.getByText(day, { exact: true }).click();
    // An hour that is not now, every day: texts wait for it.
    const hour = String((new Date().getUTCHours() + 2) % 24).padStart(2, '0');
    await dialog.getByLabel('From (HH:MM)').fill(`${hour}:00`);
    await dialog.getByLabel('Until (HH:MM)').fill(`${hour}:59`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const { device } = await scene.call('GET', `/v1/devices/${failing.device!.id}`);
    expect(device).toMatchObject({
      max_sends_per_minute: 6,
      max_sends_per_hour: 100,
      max_sends_per_day: 1000,
      processing_order: 'lifo',
      sim_selection: 'round_robin',
      send_window: { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start: `${hour}:00`, end: `${hour}:59` },
    });

    const held = await scene.call('POST', '/v1/messages', {
      body: 'Held back',
      to: ['+14155550241'],
      device_id: failing.device!.id,
    });
    await page.goto(`/batches/${held.batch.id}`);
    await page.getByRole('button', { name: 'Cancel the send' }).click();
    await page
      .getByRole('dialog', { name: 'Cancel this send?' })
      .getByRole('button', { name: 'Cancel send' })
      .click();
    await expect
      .poll(async () => (await scene.call('GET', `/v1/batches/${held.batch.id}`)).messages[0])
      .toMatchObject({ status: 'failed', error_code: 'cancelled' });
    await shown(page.getByTestId('batch-status').getByText('cancelled'));
  }, 60_000);

  it('logged no console errors on any page', () => {
    expect(scene.contexts.consoleErrors()).toEqual([]);
  });
});
