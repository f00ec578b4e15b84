import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { createKey, json, registerAccount, type Account } from '../support/accounts';
import { readJson } from '../support/http';

describe('API keys', () => {
  let app: TestApp;
  let account: Account;
  const clock = testClock();

  beforeAll(async () => {
    app = await startTestApp({ clock });
    account = await registerAccount(app);
  });
  afterAll(() => app?.close());

  const session = (init: RequestInit = {}) => ({
    ...init,
    headers: { ...(init.headers as object), cookie: account.cookie },
  });

  it('creates a key shown once, stores only its hash, and lists it without the secret', async () => {
    const res = await app.fetch(
      '/v1/api-keys',
      session(json('POST', { name: 'ci', scopes: ['read', 'send', 'read'] })),
    );
    expect(res.status).toBe(201);
    const { api_key, key } = await readJson(res);
    expect(key).toMatch(/^sk_[0-9A-Za-z]{40}$/);
    expect(api_key).toEqual({
      id: expect.any(String),
      name: 'ci',
      prefix: key.slice(0, 12),
      scopes: ['read', 'send'],
      use_count: 0,
      created_at: expect.any(String),
      expires_at: null,
      last_used_at: null,
      revoked_at: null,
    });
    // Storage itself: only the key's SHA-256 is kept.
    const [row] = await app.orm.em.fork().execute('select key_hash from api_keys where id = ?', [api_key.id]);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.key_hash).not.toContain(key.slice(3));

    const list = await readJson(await app.fetch('/v1/api-keys', session()));
    const listed = list.data.find((k: { id: string }) => k.id === api_key.id);
    expect(listed).toEqual(api_key);
    expect(JSON.stringify(list)).not.toContain(key);
  });

  it('gives a key created without scopes all four', async () => {
    const res = await app.fetch('/v1/api-keys', session(json('POST', { name: 'all' })));
    expect((await readJson(res)).api_key.scopes).toEqual(['send', 'read', 'devices', 'webhooks']);
  });

  it('validates name, scopes and expiry', async () => {
    const res = await app.fetch(
      '/v1/api-keys',
      session(json('POST', { name: '', scopes: ['admin'], expires_at: '2001-01-01T00:00:00Z' })),
    );
    expect(res.status).toBe(422);
    const fields = (await readJson(res)).errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['body.expires_at', 'body.name', 'body.scopes[0]']);
  });

  it('accepts the key in X-Api-Key or as a bearer token, and counts its uses', async () => {
    const key = await createKey(app, account);
    expect((await app.fetch('/v1/auth/me', { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await app.fetch('/v1/auth/me', { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await app.services.keyUsage.flush();
    const { data } = await readJson(await app.fetch('/v1/api-keys', session()));
    const used = data.find((k: { prefix: string }) => k.prefix === key.slice(0, 12));
    expect(used.use_count).toBe(2);
    expect(used.last_used_at).not.toBeNull();
  });

  it('refuses API keys on key management and other session-only operations', async () => {
    const key = await createKey(app, account);
    for (const [method, path] of [
      ['GET', '/v1/api-keys'],
      ['POST', '/v1/api-keys'],
      ['GET', '/v1/auth/sessions'],
      ['PATCH', '/v1/auth/profile'],
      ['POST', '/v1/auth/password'],
      ['POST', '/v1/auth/verify-email/send'],
    ]) {
      const res = await app.fetch(path, json(method, method === 'GET' ? undefined : {}, { 'x-api-key': key }));
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(await readJson(res)).toMatchObject({ code: 'unauthenticated' });
    }
  });

  it('renames, revokes (effective on the next request, record kept) and deletes', async () => {
    const key = await createKey(app, account);
    const { data } = await readJson(await app.fetch('/v1/api-keys', session()));
    const id = data.find((k: { prefix: string }) => k.prefix === key.slice(0, 12)).id;

    expect((await app.fetch(`/v1/api-keys/${id}`, session(json('PATCH', { name: 'renamed' })))).status).toBe(204);
    expect((await app.fetch(`/v1/api-keys/${id}`, session(json('PATCH', {})))).status).toBe(422);

    expect((await app.fetch('/v1/auth/me', { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await app.fetch(`/v1/api-keys/${id}/revoke`, session({ method: 'POST' }))).status).toBe(204);
    const revoked = await app.fetch('/v1/auth/me', { headers: { 'x-api-key': key } });
    expect(revoked.status).toBe(401);
    expect(await readJson(revoked)).toMatchObject({ code: 'unauthenticated', status: 401 });

    const active = await readJson(await app.fetch('/v1/api-keys', session()));
    expect(active.data.map((k: { id: string }) => k.id)).not.toContain(id);
    const all = await readJson(await app.fetch('/v1/api-keys?include_revoked=true', session()));
    expect(all.data.find((k: { id: string }) => k.id === id)).toMatchObject({
      name: 'renamed',
      revoked_at: expect.any(String),
    });

    expect((await app.fetch(`/v1/api-keys/${id}`, session({ method: 'DELETE' }))).status).toBe(204);
    const after = await readJson(await app.fetch('/v1/api-keys?include_revoked=true', session()));
    expect(after.data.map((k: { id: string }) => k.id)).not.toContain(id);
  });

  it('revokes a key and ends what its hooks end in one unit of work: a failing hook leaves the key usable', async () => {
    const key = await createKey(app, account);
    const { data } = await readJson(await app.fetch('/v1/api-keys', session()));
    const id = data.find((k: { prefix: string }) => k.prefix === key.slice(0, 12)).id;
    let failing = true;
    app.services.apiKeys.onRevoked(async (_tx, keyId) => {
      if (failing && keyId === id) throw new Error('the revocation’s other work failed');
    });

    await expect(app.services.apiKeys.revoke(account.userId, id)).rejects.toThrow('other work failed');
    expect((await app.fetch('/v1/auth/me', { headers: { 'x-api-key': key } })).status).toBe(200);
    const listed = await readJson(await app.fetch('/v1/api-keys', session()));
    expect(listed.data.find((k: { id: string }) => k.id === id)).toMatchObject({ revoked_at: null });

    failing = false;
    await app.services.apiKeys.revoke(account.userId, id);
    expect((await app.fetch('/v1/auth/me', { headers: { 'x-api-key': key } })).status).toBe(401);
  });

  it('stops an expired key at its expiry', async () => {
    const expiresAt = new Date(clock.now().getTime() + 3_600_000);
    const res = await app.fetch(
      '/v1/api-keys',
      session(json('POST', { name: 'short', expires_at: expiresAt.toISOString() })),
    );
    const { key } = await readJson(res);
    expect((await app.fetch('/v1/auth/me', { headers: { 'x-api-key': key } })).status).toBe(200);
    clock.advance(3_600_001);
    expect((await app.fetch('/v1/auth/me', { headers: { 'x-api-key': key } })).status).toBe(401);
  });

  it('refuses unknown and malformed keys with 401', async () => {
    for (const key of ['sk_' + 'A'.repeat(40), 'nope', '']) {
      const res = await app.fetch('/v1/auth/me', { headers: { 'x-api-key': key } });
      expect(res.status).toBe(401);
    }
  });

  it("answers 404 for another account's key, and leaves it untouched", async () => {
    const other = await registerAccount(app);
    const theirKey = await createKey(app, other);
    const { data } = await readJson(await app.fetch('/v1/api-keys', { headers: { cookie: other.cookie } }));
    const id = data[0].id;
    expect((await app.fetch(`/v1/api-keys/${id}/revoke`, session({ method: 'POST' }))).status).toBe(404);
    expect((await app.fetch(`/v1/api-keys/${id}`, session({ method: 'DELETE' }))).status).toBe(404);
    expect((await app.fetch(`/v1/api-keys/${id}`, session(json('PATCH', { name: 'x' })))).status).toBe(404);
    expect((await app.fetch(`/v1/api-keys/not-a-uuid/revoke`, session({ method: 'POST' }))).status).toBe(404);
    expect((await app.fetch('/v1/auth/me', { headers: { 'x-api-key': theirKey } })).status).toBe(200);
  });
});
