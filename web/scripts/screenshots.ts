// The dashboard's screenshots in docs/: `npm run screenshots`. Starts what `npm start` runs on free
// ports with a temporary data folder, fills an account with demo data through the public API (two
// simulated phones, a few sends, received texts, an opted-out number) and captures the Overview in
// Debian's Chromium (Playwright's own elsewhere): 1280 px light and dark, 375 px light.
import path from 'node:path';
import { root, startScene, type Scene } from '../../test/dashboard/browser';

const SHOTS = [
  { file: 'dashboard-overview.png', viewport: { width: 1280, height: 900 }, colorScheme: 'light' },
  { file: 'dashboard-overview-dark.png', viewport: { width: 1280, height: 900 }, colorScheme: 'dark' },
  { file: 'dashboard-overview-375.png', viewport: { width: 375, height: 812 }, colorScheme: 'light' },
] as const;

async function demoData(scene: Scene): Promise<void> {
  const front = await scene.pair('Front desk (Pixel 7a)', { deliveredAfterMs: 300 });
  await scene.pair('Kitchen (Galaxy A14)', { deliveredAfterMs: 300 });
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
}

async function main() {
  const scene = await startScene('screenshots', { DEFAULT_PLAN: 'business' });
  try {
    await demoData(scene);
    for (const shot of SHOTS) {
      const page = await scene.signedIn({ viewport: shot.viewport, colorScheme: shot.colorScheme });
      await page.getByTestId('daily-chart').waitFor({ state: 'visible' });
      await page.getByTestId('phones-online').filter({ hasText: '2 / 2' }).waitFor({ state: 'visible' });
      const file = path.join(root, 'docs', shot.file);
      await page.screenshot({ path: file, fullPage: shot.viewport.width < 600 });
      console.log(`wrote ${path.relative(root, file)}`);
    }
  } finally {
    await scene.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
