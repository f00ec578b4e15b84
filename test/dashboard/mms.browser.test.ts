/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredApp } from '../compat/smsgate/helpers';
import { mmsDownloaded } from '../compat/smsgate/fake-app';
import { createKey, PASSWORD, type Account } from '../support/accounts';
import type { TestApp } from '../support/app';
import { readJson } from '../support/http';
import { axeViolations, Contexts, onApp, shown, signInOn, startAppScene, type AppScene } from './browser';

// A received MMS in the dashboard, in a real Chromium against the real API and Postgres: the SMSGate
// app (its fake) forwards an MMS with a picture and an SVG; the message's screen lists both with
// download links and previews only the picture.

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>document.title="ran"</script></svg>');

describe('a received MMS’s attachments in the dashboard', () => {
  let app: TestApp;
  let browser: Browser;
  let account: Account;
  let messageId: string;
  const contexts = new Contexts(() => browser);

  let scene: AppScene | undefined;
  beforeAll(async () => {
    scene = await startAppScene(contexts);
    ({ app, browser, account } = scene);
    const key = await createKey(app, account);
    const phone = await registeredApp(app, key);
    const hooks = (await readJson(await phone.getWebhooks())) as { id: string; url: string; event: string }[];
    const res = await phone.sendWebhook(
      hooks.find((h) => h.event === 'mms:downloaded')!,
      mmsDownloaded({
        mmsId: 88,
        sender: '+14155550190',
        receivedAt: app.clock.now(),
        body: 'Two files',
        parts: [
          { partId: 1, contentType: 'image/png', name: 'dot.png', bytes: PNG },
          { partId: 2, contentType: 'image/svg+xml', name: 'drawing.svg', bytes: SVG },
        ],
      }),
    );
    expect(res.status).toBe(201);
    messageId = (await readJson(res)).message.id;
  }, 240_000);
  afterAll(() => scene?.close());

  it('lists each attachment with a download link and previews only the raster image', async () => {
    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    // The inbox's conversation says the MMS has attachments and opens its message.
    await page.goto(`/inbox/${encodeURIComponent('+14155550190')}`);
    const attachments = page.getByTestId('thread-attachments');
    await shown(attachments);
    expect(await attachments.textContent()).toBe('2 attachments');
    await attachments.click();
    await page.waitForURL(`**/messages/${messageId}`);
    const section = page.getByRole('region', { name: 'Attachments' });
    await shown(section);
    const rows = section.getByTestId('attachment');
    expect(await rows.count()).toBe(2);
    const png = section.getByRole('link', { name: 'Download dot.png' });
    const svg = section.getByRole('link', { name: 'Download drawing.svg' });
    expect(await png.getAttribute('href')).toMatch(new RegExp(`^/v1/messages/${messageId}/attachments/`));
    await shown(svg);

    // The picture is drawn (the session's cookie fetched it); the SVG is never shown in the page.
    const preview = section.getByTestId('attachment-preview');
    expect(await preview.count()).toBe(1);
    await expect.poll(() => preview.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);

    // Downloading the SVG saves it: nothing of it runs in the dashboard's origin.
    const download = page.waitForEvent('download');
    await svg.click();
    expect((await download).suggestedFilename()).toBe('drawing.svg');
    expect(await page.title()).not.toBe('ran');
    expect(await axeViolations(page)).toEqual([]);
  });
});
