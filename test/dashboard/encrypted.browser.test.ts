/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encrypt } from '../compat/smsgate/encryption';
import { axeViolations, shown, startScene, type Scene } from './browser';

// An encrypted send in a real Chromium against the real `npm start` stack: its ciphertext is shown
// nowhere as text, an "Encrypted" badge stands in for its body and numbers.

describe('encrypted messages in the dashboard', () => {
  let scene: Scene;

  beforeAll(async () => {
    scene = await startScene('encrypted', { DEFAULT_PLAN: 'business' });
    await scene.pair('Encrypting phone');
  }, 240_000);
  afterAll(async () => {
    await scene?.stop();
  }, 90_000);

  it('marks them Encrypted in the lists and on the message and batch screens, ciphertext never shown', async () => {
    const body = encrypt('owner passphrase', 'A secret for the phone only');
    const sent = await scene.call('POST', '/v1/messages', {
      encrypted: true,
      body,
      to: [encrypt('owner passphrase', '+14155550601')],
    });
    const page = await scene.signedIn();
    const noCiphertext = async () => expect(await page.locator('body').innerText()).not.toContain('aes-256-cbc');

    await page.goto('/messages');
    const row = page.getByTestId('message-row').filter({ has: page.getByTestId('encrypted-mark') });
    await shown(row);
    expect(await row.getByTestId('encrypted-mark').allTextContents()).toEqual(['Encrypted', 'Encrypted']);
    await noCiphertext();
    expect(await axeViolations(page)).toEqual([]);

    await row.getByRole('link', { name: /open the message to an encrypted number/ }).click();
    await shown(page.getByRole('heading', { name: 'Message', level: 1 }));
    expect(await page.getByTestId('message-party').textContent()).toBe('To an encrypted number');
    expect(await page.getByTestId('encrypted-mark').textContent()).toBe('Encrypted');
    expect(await page.getByTestId('message-size').textContent()).toContain('not known (encrypted)');
    await noCiphertext();
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`/batches/${sent.batch.id}`);
    await shown(page.getByTestId('encrypted-mark'));
    await noCiphertext();
    await page.goto('/batches');
    await shown(page.getByText('1 encrypted recipient'));
    await shown(page.getByTestId('encrypted-mark'));
    await noCiphertext();
    expect(await axeViolations(page)).toEqual([]);
  });
});
