// The dashboard's screenshots in docs/screenshots/: `npm run screenshots`. Starts what `npm start`
// runs on free ports with a temporary data folder, fills an account with demo data through the
// public API (simulated phones, sends, received texts, an opted-out number) and captures each state
// below in Debian's Chromium (Playwright's own elsewhere): 1280 px light and dark, 375 px light.
// The states that need a small plan (a list over its size per send, its phone limit) are taken on a
// second stack whose accounts are on the Free plan.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { root, startScene, type Scene } from '../../test/dashboard/browser';

const OUT = path.join(root, 'docs', 'screenshots');

const VARIANTS = [
  { suffix: '', viewport: { width: 1280, height: 900 }, colorScheme: 'light' },
  { suffix: '-dark', viewport: { width: 1280, height: 900 }, colorScheme: 'dark' },
  { suffix: '-375', viewport: { width: 375, height: 812 }, colorScheme: 'light' },
] as const;

/** A screen to capture: its name in docs/screenshots/ and how to bring the page to the state. */
interface Shot {
  name: string;
  show(page: Page): Promise<void>;
}

const visible = (page: Page, testId: string, text?: string | RegExp) =>
  (text === undefined ? page.getByTestId(testId) : page.getByTestId(testId).filter({ hasText: text }))
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });

/** Chooses a CSV file on the Send screen's import button. */
async function chooseCsv(page: Page, name: string, csv: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Add numbers from a CSV file' }).click();
  await (await chooser).setFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) });
}

/** A plain http receiver on this machine that refuses each event the first time it comes. */
async function flakyReceiver(): Promise<{ url: string; close(): void }> {
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      const id = (JSON.parse(raw || '{}') as { id?: string }).id ?? '';
      const first = !seen.has(id);
      seen.add(id);
      response.writeHead(first ? 503 : 200).end(first ? 'busy' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => server.close() };
}

/** A ping refused once, then redelivered: the original stops retrying, and the log links the two. */
async function redeliveredPing(scene: Scene, url: string): Promise<void> {
  const { webhook } = await scene.call('POST', '/v1/webhooks', {
    url,
    name: 'Front desk CRM',
    events: ['message.received'],
  });
  const { delivery } = await scene.call('POST', `/v1/webhooks/${webhook.id}/test`);
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 300 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  const statusOf = async () => (await scene.call('GET', `/v1/webhooks/deliveries/${delivery.id}`)).delivery;
  await until(async () => (await statusOf()).status === 'retrying');
  await scene.call('POST', `/v1/webhooks/deliveries/${delivery.id}/redeliver`);
  await until(async () => Boolean((await statusOf()).superseded_by));
}

/** The Overview, the opt-outs, the inbox and sends of every kind, on the Business plan. */
async function businessShots(scene: Scene): Promise<Shot[]> {
  const front = await scene.pair('Front desk (Pixel 7a)', { deliveredAfterMs: 300 });
  // A phone out of signal: every text it is given fails.
  const kitchen = await scene.pair('Kitchen (Galaxy A14)', { deliveredAfterMs: 300, failureRatio: 1 });
  const sends = [
    { body: 'Your table for 4 is ready. See you at the front desk!', to: ['+14155550101', '+14155550102'] },
    {
      body: 'Reminder: your booking tomorrow at 19:30. Reply C to cancel.',
      to: ['+14155550103', '+14155550104', '+14155550105'],
    },
    { body: 'Thanks for dining with us tonight.', to: ['+14155550106'] },
  ];
  for (const send of sends) {
    const sent = await scene.call('POST', '/v1/messages', { ...send, device_id: front.device!.id });
    await scene.reached(sent.batch.id, 'delivered');
  }
  await front.receive('+14155550103', 'Can we make it 8pm instead?');
  await front.receive('+14155550199', 'STOP');
  // A number no country's plan gives to a phone: a reply to it is refused before it is written.
  await front.receive('+447700900123', 'Can you call me back?');

  // Texts the kitchen phone could not send: its batch offers to retry them.
  const lost = await scene.call('POST', '/v1/messages', {
    body: 'Your takeaway is ready for pickup.',
    to: ['+14155550121', '+14155550122'],
    device_id: kitchen.device!.id,
  });
  await scene.reached(lost.batch.id, 'failed');
  // A send for later to an opted-out number and two others, cancelled: quiet states, not failures.
  const later = await scene.call('POST', '/v1/messages', {
    body: 'Brunch menu this Sunday: see you there!',
    to: ['+14155550131', '+14155550132', '+14155550199'],
    device_id: front.device!.id,
    scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
  });
  await scene.call('POST', `/v1/batches/${later.batch.id}/cancel`);
  await scene.call('POST', '/v1/templates', { name: 'Table ready', body: 'Hi {name}, table {table} is ready.' });
  const receiver = await flakyReceiver();
  try {
    await redeliveredPing(scene, receiver.url);
  } finally {
    receiver.close();
  }

  const guests = ['Name,Phone,Table', 'Ann,+14155550141,4', 'Bob,+14155550142,12', 'Cleo,+14155550143,7'];
  return [
    {
      name: 'overview',
      async show(page) {
        await page.getByTestId('daily-chart').waitFor({ state: 'visible' });
        await visible(page, 'phones-online', '2 / 2');
      },
    },
    {
      name: 'send-template-preview',
      async show(page) {
        await page.goto('/send');
        await chooseCsv(page, 'guests.csv', `${guests.join('\n')}\n`);
        await page.getByLabel('Message').fill('Hi {name}, table {table} is ready.');
        await visible(page, 'template-preview');
      },
    },
    {
      name: 'batch-withdrawn',
      async show(page) {
        await page.goto(`/batches/${later.batch.id}`);
        await visible(page, 'batch-counts', '2 cancelled · 1 opted out');
      },
    },
    {
      name: 'batch-retry-failed',
      async show(page) {
        await page.goto(`/batches/${lost.batch.id}`);
        await page.getByRole('button', { name: 'Retry 2 failed texts' }).waitFor({ state: 'visible' });
      },
    },
    {
      name: 'inbox',
      async show(page) {
        await page.goto('/inbox');
        await visible(page, 'conversation', 'Can you call me back?');
      },
    },
    {
      name: 'webhook-redelivered',
      async show(page) {
        await page.goto('/webhooks');
        await visible(page, 'delivery-row', 'redelivered');
      },
    },
    {
      name: 'usage',
      async show(page) {
        await page.goto('/account');
        await visible(page, 'usage-totals');
        await page.getByRole('region', { name: 'Usage' }).scrollIntoViewIfNeeded();
      },
    },
    {
      name: 'reply-refused',
      async show(page) {
        await page.goto('/inbox/%2B447700900123');
        await visible(page, 'no-reply');
      },
    },
  ];
}

/** On the Free plan: a list over its 10 recipients a send, and the pairing card at its one phone. */
async function freeShots(scene: Scene): Promise<Shot[]> {
  await scene.pair('Shop phone (Pixel 6)', { deliveredAfterMs: 300 });
  const rows = Array.from({ length: 27 }, (_, i) => `Guest ${i + 1},+1415555${String(200 + i).padStart(4, '0')}`);
  return [
    {
      name: 'send-split',
      async show(page) {
        await page.goto('/send');
        await chooseCsv(page, 'guests.csv', `Name,Phone\n${rows.join('\n')}\n`);
        await page.getByLabel('Message').fill('Doors open at seven tonight.');
        await page.getByRole('button', { name: 'Send as 3 sends' }).waitFor({ state: 'visible' });
      },
    },
    {
      name: 'pairing-phone-limit',
      async show(page) {
        await page.goto('/phones');
        await visible(page, 'device-limit');
      },
    },
  ];
}

async function capture(scene: Scene, shots: Shot[]): Promise<void> {
  for (const variant of VARIANTS) {
    const page = await scene.signedIn({ viewport: variant.viewport, colorScheme: variant.colorScheme });
    for (const shot of shots) {
      await shot.show(page);
      const file = path.join(OUT, `${shot.name}${variant.suffix}.png`);
      await page.screenshot({ path: file, fullPage: variant.viewport.width < 600 });
      console.log(`wrote ${path.relative(root, file)}`);
    }
    await page.context().close();
  }
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  for (const [label, plan, shotsOf] of [
    ['screenshots', 'business', businessShots],
    ['screenshots-free', 'free', freeShots],
  ] as const) {
    const scene = await startScene(label, { DEFAULT_PLAN: plan, WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' });
    try {
      await capture(scene, await shotsOf(scene));
    } finally {
      await scene.stop();
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
