/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { PASSWORD } from '../support/accounts';
import { createFakeApp } from '../compat/smsgate/fake-app';
import { axeViolations, checkShot, onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';

// The Phones page's pairing card when the SMSGate app's code is refused, in a real Chromium against
// the real API and Postgres, the app being the fake that speaks its protocol (test/compat/smsgate).
// The app closes on a refused code (docs/phones.md), so the card is where a person learns why.

describe('the pairing card when a code is refused', () => {
  const { contexts, started } = appSceneHooks();

  /** The first three characters of `code` (which name it), the rest mistyped. */
  const typo = (code: string) => code.slice(0, 3) + (code.endsWith('22222') ? '33333' : '22222');

  it('gives time to type the code, shows a refusal live and after a reload, with what to do next', async () => {
    const { app, account } = started();
    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto('/phones');
    const card = page.getByTestId('pairing-card');
    await card.getByRole('button', { name: 'Create a pairing code' }).click();
    await shown(card.getByTestId('pairing-code'));

    // Time to install the app and type a long URL and the code on a phone: 30 minutes, not 10.
    const left = (await card.getByRole('timer').textContent())!;
    const [minutes] = /(\d+):\d\d/.exec(left)!.slice(1).map(Number);
    expect({ left, enough: minutes >= 29 }).toEqual({ left, enough: true });
    // Before anything is refused, the steps already say what to do if the app closes.
    expect(await card.getByTestId('if-app-closes').textContent()).toMatch(/new code.*By Code/);

    // The app, given the card's API URL and the code mistyped after its first three characters.
    const apiUrl = (await card.getByTestId('smsgate-api-url').textContent())!;
    const code = (await card.getByTestId('pairing-code').textContent())!.trim();
    const via = { 'X-Forwarded-For': app.clientIp };
    const phone = createFakeApp({ apiUrl, via });
    expect((await phone.register(typo(code))).status).toBe(401);

    // Live: the card tells, without a reload, that this code was tried and refused, why and what next.
    const refused = card.getByTestId('pairing-refused');
    await shown(refused);
    const said = (await refused.textContent())!;
    expect(said).toContain('This code was refused');
    expect(said).toContain('A phone typed a code whose first three characters are right, but the rest is wrong.');
    expect(said).toContain('Check the code letter by letter');
    expect(said).toMatch(/1 try, the latest /);
    expect(await card.getByTestId('pairing-refusals').textContent()).toMatch(/By Code/);
    await checkShot(page, 'pairing-refused-1280');
    expect(await axeViolations(page)).toEqual([]);

    // The right code pairs; another phone trying it after that is refused as used.
    expect((await phone.register(code)).status).toBe(201);
    await shown(card.getByTestId('paired'), 20_000);
    app.clock.advance(1000); // The test app's clock stands still unless moved: this refusal is the later one.
    expect((await createFakeApp({ apiUrl, via }).register(code)).status).toBe(401);

    // On a reload, with no code on screen, the card still says so, newest first.
    await page.reload();
    await shown(card.getByTestId('pairing-refused'));
    await expect.poll(async () => (await card.getByTestId('pairing-refused').allTextContents()).length).toBe(2);
    const both = await card.getByTestId('pairing-refused').allTextContents();
    expect(both[0]).toContain('An earlier code was refused');
    expect(both[0]).toContain(
      'A phone tried a code that has already paired a phone. Each code pairs one phone: create a new code.',
    );
    expect(both[1]).toContain('first three characters are right');

    // At a phone's width and in dark mode, axe finds nothing serious either.
    for (const options of [{ viewport: { width: 375, height: 812 } }, { colorScheme: 'dark' as const }]) {
      const other = await signInOn(await contexts.page(onApp(app, options)), account.email, PASSWORD);
      await other.goto('/phones');
      await shown(other.getByTestId('pairing-refused'));
      expect({ options, violations: await axeViolations(other) }).toEqual({ options, violations: [] });
      await checkShot(other, `pairing-refused-${options.viewport ? 375 : 'dark'}`);
    }
    expect(contexts.consoleErrors()).toEqual([]);
  }, 120_000);
});
