import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { json, PASSWORD, registerAccount, uniqueEmail } from '../support/accounts';
import { readJson } from '../support/http';
import { freePort } from '../support/net';

/** A stand-in for Cloudflare's siteverify: form-encoded secret/response/remoteip in, {success} out. */
async function startFakeSiteverify(secret: string) {
  const calls: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      calls.push(form);
      const success = req.method === 'POST' && form.get('secret') === secret && form.get('response') === 'human-token';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(success ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] }),
      );
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/siteverify`,
    calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('bot check (Turnstile) on login, register and reset request', () => {
  let app: TestApp;
  let verifier: Awaited<ReturnType<typeof startFakeSiteverify>>;

  beforeAll(async () => {
    verifier = await startFakeSiteverify('turnstile-secret');
    app = await startTestApp({
      env: {
        TURNSTILE_SITE_KEY: 'site-key-123',
        TURNSTILE_SECRET: 'turnstile-secret',
        TURNSTILE_VERIFY_URL: verifier.url,
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await verifier?.close();
  });

  it('reports the site key', async () => {
    expect(await readJson(await app.fetch('/v1/auth/config'))).toEqual({
      google_sign_in: false,
      turnstile_site_key: 'site-key-123',
      default_country: null,
    });
  });

  it('requires a token, refuses a bad one and accepts a good one on register', async () => {
    const email = uniqueEmail();
    const missing = await app.fetch('/v1/auth/register', json('POST', { email, password: PASSWORD }));
    expect(missing.status).toBe(422);
    expect((await readJson(missing)).errors).toEqual([{ field: 'body.turnstile_token', message: expect.any(String) }]);
    const bad = await app.fetch(
      '/v1/auth/register',
      json('POST', { email, password: PASSWORD, turnstile_token: 'bot-token' }),
    );
    expect(bad.status).toBe(403);
    expect(await readJson(bad)).toMatchObject({ code: 'bot_check_failed' });
    const good = await app.fetch(
      '/v1/auth/register',
      json('POST', { email, password: PASSWORD, turnstile_token: 'human-token' }),
    );
    expect(good.status).toBe(201);
    expect(verifier.calls.at(-1)?.get('secret')).toBe('turnstile-secret');
  });

  it('checks login and reset requests the same way', async () => {
    const email = uniqueEmail();
    await app.fetch('/v1/auth/register', json('POST', { email, password: PASSWORD, turnstile_token: 'human-token' }));
    expect((await app.fetch('/v1/auth/login', json('POST', { email, password: PASSWORD }))).status).toBe(422);
    expect(
      (await app.fetch('/v1/auth/login', json('POST', { email, password: PASSWORD, turnstile_token: 'bot-token' })))
        .status,
    ).toBe(403);
    expect(
      (await app.fetch('/v1/auth/login', json('POST', { email, password: PASSWORD, turnstile_token: 'human-token' })))
        .status,
    ).toBe(200);
    expect(
      (await app.fetch('/v1/auth/password-reset/request', json('POST', { email, turnstile_token: 'bot-token' })))
        .status,
    ).toBe(403);
    expect(
      (await app.fetch('/v1/auth/password-reset/request', json('POST', { email, turnstile_token: 'human-token' })))
        .status,
    ).toBe(202);
  });
});

describe('without a Turnstile secret', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('needs no token', async () => {
    const account = await registerAccount(app);
    expect((await app.fetch('/v1/auth/login', json('POST', { email: account.email, password: PASSWORD }))).status).toBe(
      200,
    );
  });
});
