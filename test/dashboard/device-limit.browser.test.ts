/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { pairPhone } from '../devices/helpers';
import { axeViolations, checkShot, onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';

// The Phones page's pairing card when the plan's phone limit is reached, in a real Chromium against
// the real API and Postgres: it says so before a code is made, and when a new phone tries the code
// anyway the card shows the refusal instead of waiting on.

describe('the pairing card at the plan’s phone limit', () => {
  const { contexts, started } = appSceneHooks({ plan: 'free' });

  it('says the limit is reached before a code is made, and shows a new phone’s refusal', async () => {
    const { app, account } = started();
    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto('/phones');
    const card = page.getByTestId('pairing-card');
    await shown(page.getByText('No phones yet'));
    // Room for one: nothing to say.
    expect(await card.getByTestId('device-limit').count()).toBe(0);

    await pairPhone(app, await createKey(app, account), { name: 'Shop phone' });
    const limit = card.getByTestId('device-limit');
    await shown(limit);
    expect(await limit.textContent()).toContain(
      'The Free plan allows 1 paired phone, and 1 is paired: a new phone is refused.',
    );

    // A code made anyway, typed into a new phone: refused, and the card says so where it waited.
    await card.getByRole('button', { name: 'Create a pairing code' }).click();
    const code = (await card.getByTestId('pairing-code').textContent())!.trim();
    const res = await app.fetch('/v1/device/pair', json('POST', { code, hardware_key: 'hw-second', name: 'Second' }));
    expect((await res.json()).code).toBe('plan_limit_devices');
    await shown(card.getByTestId('pairing-wait').getByText(/^A phone tried this code and was refused/));
    expect(await card.getByText('Waiting for the phone…', { exact: false }).count()).toBe(0);
    expect(await card.getByTestId('pairing-refused').textContent()).toContain(
      'A phone tried a right code, but your plan’s phone limit is reached.',
    );
    await checkShot(page, 'device-limit-refused-1280');

    // At 1280 and 375 px, light and dark: nothing serious for axe (the refusal shows for an hour).
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
        await other.goto('/phones');
        await shown(other.getByTestId('device-limit'));
        await shown(other.getByTestId('pairing-refused'));
        const at = { colorScheme, width: viewport.width };
        expect({ ...at, violations: await axeViolations(other) }).toEqual({ ...at, violations: [] });
        await checkShot(other, `device-limit-${viewport.width}-${colorScheme}`);
      }
    }
    expect(contexts.consoleErrors()).toEqual([]);
  }, 120_000);
});
