import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app';
import { createKey, json } from '../../support/accounts';
import { readJson } from '../../support/http';
import { tenant } from './helpers';
import { INTEGRATOR_API } from './integrator-client';

// SMSGate's token endpoints (its handlers/thirdparty/auth.go) on our short-lived tokens: the wire
// shapes its clients read, its scope names mapped onto ours, and what is refused.

const basic = (key: string) => `Basic ${Buffer.from(`integrator@example.com:${key}`).toString('base64')}`;

describe('SMSGate’s token endpoints', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  const call = (method: string, path: string, authorization: string, body?: unknown) =>
    app.fetch(`${INTEGRATOR_API}${path}`, {
      method,
      headers: { authorization, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('mint a token in both spellings of TokenResponse, usable as the Bearer token or the Basic password', async () => {
    const { key } = await tenant(app);
    const res = await call('POST', '/auth/token', basic(key), { scopes: ['devices:list', 'settings:read'], ttl: 120 });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(body).toEqual({
      id: expect.any(String),
      token_type: 'Bearer',
      access_token: expect.stringMatching(/^tk_/),
      refresh_token: expect.stringMatching(/^tr_/),
      expires_at: expect.any(String),
      tokenType: 'Bearer',
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      expiresAt: body.expires_at,
    });
    expect(new Date(body.expires_at).getTime() - app.clock.now().getTime()).toBe(120_000);
    expect((await call('GET', '/devices', `Bearer ${body.access_token}`)).status).toBe(200);
    expect((await call('GET', '/settings', basic(body.access_token))).status).toBe(200);
    // devices:list and settings:read are our `devices` scope: the messages are another.
    const messages = await call('GET', '/messages', `Bearer ${body.access_token}`);
    expect(messages.status).toBe(403);
    expect(await readJson(messages)).toMatchObject({
      message: expect.any(String),
      data: { code: 'insufficient_scope' },
    });
  });

  it('cap the lifetime as their server does, and give all:any every scope of the key', async () => {
    const { account } = await tenant(app);
    const key = await createKey(app, account, ['read', 'send']);
    const res = await call('POST', '/auth/token', `Bearer ${key}`, { scopes: ['all:any'], ttl: 7 * 86_400 });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(new Date(body.expires_at).getTime() - app.clock.now().getTime()).toBe(86_400_000);
    const listed = await readJson(await app.fetch('/v1/tokens', { headers: { 'x-api-key': key } }));
    expect(listed.data[0]).toMatchObject({ id: body.id, scopes: ['send', 'read'] });
  });

  it('refuse a scope this server does not know with 400 naming it, and a scope the key lacks with 403', async () => {
    const { account } = await tenant(app);
    const key = await createKey(app, account, ['read']);
    for (const scope of ['mms:send', 'tokens:manage']) {
      const res = await call('POST', '/auth/token', basic(key), { scopes: ['messages:read', scope] });
      expect(res.status, scope).toBe(400);
      expect((await readJson(res)).data.errors).toEqual([
        { field: 'body.scopes[1]', message: expect.stringContaining(`"${scope}" is not a scope this server grants`) },
      ]);
    }
    const lacking = await call('POST', '/auth/token', basic(key), { scopes: ['webhooks:list'] });
    expect(lacking.status).toBe(403);
    expect((await call('POST', '/auth/token', basic(key), { scopes: [] })).status).toBe(400);
    expect((await readJson(await app.fetch('/v1/tokens', { headers: { 'x-api-key': key } }))).data).toEqual([]);
  });

  it("revoke by jti: refused at once after; another account's jti and a made-up one are 404", async () => {
    const alice = await tenant(app);
    const bob = await tenant(app);
    const token = await readJson(await call('POST', '/auth/token', basic(alice.key), { scopes: ['devices:list'] }));
    expect((await call('DELETE', `/auth/token/${token.id}`, basic(bob.key))).status).toBe(404);
    expect((await call('DELETE', '/auth/token/not-a-jti', basic(alice.key))).status).toBe(404);
    expect((await call('GET', '/devices', `Bearer ${token.access_token}`)).status).toBe(200);

    expect((await call('DELETE', `/auth/token/${token.id}`, basic(alice.key))).status).toBe(204);
    const after = await call('GET', '/devices', `Bearer ${token.access_token}`);
    expect(after.status).toBe(401);
    expect(await readJson(after)).toMatchObject({ data: { code: 'unauthenticated' } });
  });

  it('refresh a pair once, after its token expired, as long as the key lives and within 30 days', async () => {
    const { key, account } = await tenant(app);
    const first = await readJson(await call('POST', '/auth/token', basic(key), { scopes: ['devices:list'], ttl: 120 }));
    // The refresh secret is no access credential, and an API key is no refresh secret.
    expect((await call('GET', '/devices', `Bearer ${first.refresh_token}`)).status).toBe(401);
    expect((await call('POST', '/auth/token/refresh', `Bearer ${key}`)).status).toBe(401);

    // After the token expired, its refresh secret gets the next pair: the same scopes and lifetime.
    app.clock.advance(10 * 60_000);
    expect((await call('GET', '/devices', `Bearer ${first.access_token}`)).status).toBe(401);
    const refreshed = await call('POST', '/auth/token/refresh', `Bearer ${first.refresh_token}`);
    expect(refreshed.status).toBe(201);
    const second = await readJson(refreshed);
    expect(second).toMatchObject({ access_token: expect.stringMatching(/^tk_/), refresh_token: expect.stringMatching(/^tr_/) });
    expect(second.id).not.toBe(first.id);
    expect(new Date(second.expires_at).getTime() - app.clock.now().getTime()).toBe(120_000);
    expect((await call('GET', '/devices', `Bearer ${second.access_token}`)).status).toBe(200);
    expect((await call('GET', '/messages', `Bearer ${second.access_token}`)).status).toBe(403);
    // Once only: the used secret is refused, with SMSGate's error shape.
    const again = await call('POST', '/auth/token/refresh', `Bearer ${first.refresh_token}`);
    expect(again.status).toBe(401);
    expect(await readJson(again)).toMatchObject({ message: expect.stringContaining('refresh token'), data: { code: 'unauthenticated' } });

    // Revoking the key ends its pairs' refresh too.
    const other = await createKey(app, account);
    const pair = await readJson(await call('POST', '/auth/token', basic(other), { scopes: ['devices:list'], ttl: 120 }));
    const keys = await readJson(await app.fetch('/v1/api-keys', { headers: { cookie: account.cookie } }));
    const otherId = keys.data.find((k: { prefix: string }) => other.startsWith(k.prefix)).id;
    expect((await app.fetch(`/v1/api-keys/${otherId}/revoke`, json('POST', undefined, { cookie: account.cookie }))).status).toBe(204);
    expect((await call('POST', '/auth/token/refresh', `Bearer ${pair.refresh_token}`)).status).toBe(401);

    // The chain ends 30 days after its first pair.
    app.clock.advance(30 * 86_400_000);
    expect((await call('POST', '/auth/token/refresh', `Bearer ${second.refresh_token}`)).status).toBe(401);
  });
});
