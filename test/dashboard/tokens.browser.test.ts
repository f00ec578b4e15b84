/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { createKey, json, PASSWORD } from '../support/accounts';
import { readJson } from '../support/http';
import { axeViolations, checkShot, onApp, shown, signInOn } from './browser';
import { appSceneHooks } from './scene-hooks';

// The API keys page's live tokens, in a real Chromium against the real API and Postgres: each token
// with who minted it, revoked from the page (asking first) and refused by the API at once.

describe('the live tokens on the API keys page', () => {
  const { contexts, started } = appSceneHooks();

  it('lists each live token with its minter, and revoking one refuses it at once', async () => {
    const { app, account } = started();
    const key = await createKey(app, account, ['read']);
    const minted = await readJson(
      await app.fetch('/v1/tokens', json('POST', { ttl_seconds: 600 }, { 'x-api-key': key })),
    );
    const devices = () => app.fetch('/v1/devices', { headers: { authorization: `Bearer ${minted.secret}` } });
    expect((await devices()).status).toBe(200);

    const page = await signInOn(await contexts.page(onApp(app)), account.email, PASSWORD);
    await page.goto('/api-keys');
    const row = page.getByTestId('token-row');
    await shown(row);
    const text = (await row.textContent())!;
    expect(text).toContain(minted.token.prefix);
    expect(text).toContain('read');
    expect(text).toContain('test key');
    expect(text).not.toContain(minted.secret);
    await checkShot(page, 'live-tokens-1280');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Revoke token ${minted.token.prefix}` }).click();
    await page
      .getByRole('dialog', { name: `Revoke ${minted.token.prefix}…?` })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await shown(page.getByText('No live tokens'));
    expect((await devices()).status).toBe(401);
    expect(contexts.consoleErrors()).toEqual([]);
  }, 120_000);
});
