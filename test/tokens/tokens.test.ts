import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, json, registerAccount, type Account } from '../support/accounts';
import { readJson } from '../support/http';
import { AccessToken } from '../../src/tokens/access-token.entity';

// Short-lived tokens on /v1: minted by an API key (within its scopes) or a dashboard session, used
// wherever an API key is, refused from the moment they are revoked or expire.

describe('tokens', () => {
  let app: TestApp;
  let account: Account;
  beforeAll(async () => {
    app = await startTestApp();
    account = await registerAccount(app, { verified: true });
  });
  afterAll(() => app?.close());

  async function mint(credential: Record<string, string>, body: object = {}) {
    const res = await app.fetch('/v1/tokens', json('POST', body, credential));
    return { status: res.status, body: await readJson(res) };
  }
  const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
  const devices = async (headers: Record<string, string>) => (await app.fetch('/v1/devices', { headers })).status;

  it('are minted once with the secret, work as Bearer or X-Api-Key, and are listed without it', async () => {
    const key = await createKey(app, account, ['read', 'send']);
    const minted = await mint({ 'x-api-key': key }, { ttl_seconds: 600 });
    expect(minted.status).toBe(201);
    expect(minted.body.secret).toMatch(/^tk_[0-9A-Za-z]{40}$/);
    expect(minted.body.token).toMatchObject({ scopes: ['send', 'read'], prefix: minted.body.secret.slice(0, 12) });
    expect(new Date(minted.body.token.expires_at).getTime() - new Date(minted.body.token.created_at).getTime()).toBe(
      600_000,
    );

    expect(await devices(bearer(minted.body.secret))).toBe(200);
    expect(await devices({ 'x-api-key': minted.body.secret })).toBe(200);

    const listed = await readJson(await app.fetch('/v1/tokens', { headers: { 'x-api-key': key } }));
    expect(listed.data).toEqual([minted.body.token]);
    expect(JSON.stringify(listed)).not.toContain(minted.body.secret);
  });

  it('hold only the scopes they were given, and never more than the key that minted them', async () => {
    const key = await createKey(app, account, ['read']);
    const token = (await mint({ 'x-api-key': key })).body;
    expect(token.token.scopes).toEqual(['read']);
    const webhooks = await app.fetch('/v1/webhooks', { headers: bearer(token.secret) });
    expect(webhooks.status).toBe(403);
    expect(await readJson(webhooks)).toMatchObject({ code: 'insufficient_scope' });

    const beyond = await mint({ 'x-api-key': key }, { scopes: ['read', 'webhooks'] });
    expect(beyond.status).toBe(403);
    expect(beyond.body).toMatchObject({ code: 'insufficient_scope', message: expect.stringContaining('webhooks') });

    // A session holds every scope, so it may mint any.
    const fromSession = await mint({ cookie: account.cookie }, { scopes: ['webhooks'] });
    expect(fromSession.status).toBe(201);
    expect(fromSession.body.token).toMatchObject({ scopes: ['webhooks'], api_key_id: null });
    expect((await app.fetch('/v1/webhooks', { headers: bearer(fromSession.body.secret) })).status).toBe(200);
  });

  it('cannot mint, list or revoke tokens themselves', async () => {
    const token = (await mint({ cookie: account.cookie })).body;
    const again = await mint(bearer(token.secret));
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject({ code: 'token_cannot_manage_tokens' });
    expect((await app.fetch('/v1/tokens', { headers: bearer(token.secret) })).status).toBe(403);
  });

  it('refuse an unknown scope and a lifetime out of bounds, naming the field', async () => {
    const key = await createKey(app, account);
    for (const body of [{ scopes: ['tokens:manage'] }, { ttl_seconds: 59 }, { ttl_seconds: 86_401 }]) {
      const res = await mint({ 'x-api-key': key }, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors[0].field).toBe(`body.${Object.keys(body)[0]}${'scopes' in body ? '[0]' : ''}`);
    }
    expect((await readJson(await app.fetch('/v1/tokens', { headers: { 'x-api-key': key } }))).data).toEqual([]);
  });

  it('are refused with 401 once they expire', async () => {
    const token = (await mint({ cookie: account.cookie }, { ttl_seconds: 60 })).body;
    expect(await devices(bearer(token.secret))).toBe(200);
    app.clock.advance(59_000);
    expect(await devices(bearer(token.secret))).toBe(200);
    app.clock.advance(1_000);
    expect(await devices(bearer(token.secret))).toBe(401);
    expect(
      (await readJson(await app.fetch('/v1/tokens', { headers: { cookie: account.cookie } }))).data,
    ).not.toContainEqual(token.token);
  });

  it('are removed by the reconciler a day after they end, and not before', async () => {
    const ending = (await mint({ cookie: account.cookie }, { ttl_seconds: 60 })).body;
    const live = (await mint({ cookie: account.cookie }, { ttl_seconds: 86_400 })).body;
    const sweep = app.services.tokens.sweep();
    const exists = async (id: string) => Boolean(await app.orm.em.fork().findOne(AccessToken, { id }));
    app.clock.advance(60_000 + 86_400_000 - 1_000);
    await sweep.run();
    expect(await exists(ending.token.id)).toBe(true);
    app.clock.advance(2_000);
    await sweep.run();
    expect(await exists(ending.token.id)).toBe(false);
    expect(await exists(live.token.id)).toBe(true);
  });

  it('are refused with 401 on the very next request after their revocation', async () => {
    const key = await createKey(app, account);
    const token = (await mint({ 'x-api-key': key })).body;
    expect(await devices(bearer(token.secret))).toBe(200);
    const revoked = await app.fetch(`/v1/tokens/${token.token.id}`, json('DELETE', undefined, { 'x-api-key': key }));
    expect(revoked.status).toBe(204);
    expect(await devices(bearer(token.secret))).toBe(401);
    expect(await devices({ 'x-api-key': token.secret })).toBe(401);
    // Revoking again is no error; the list no longer has it.
    expect(
      (await app.fetch(`/v1/tokens/${token.token.id}`, json('DELETE', undefined, { 'x-api-key': key }))).status,
    ).toBe(204);
    expect((await readJson(await app.fetch('/v1/tokens', { headers: { 'x-api-key': key } }))).data).toEqual([]);
  });

  it('end with the key that minted them, revoked or deleted', async () => {
    const revokedKey = await createKey(app, account);
    const fromRevoked = (await mint({ 'x-api-key': revokedKey })).body;
    const keyId = fromRevoked.token.api_key_id;
    expect(
      (await app.fetch(`/v1/api-keys/${keyId}/revoke`, json('POST', undefined, { cookie: account.cookie }))).status,
    ).toBe(204);
    expect(await devices(bearer(fromRevoked.secret))).toBe(401);

    const deletedKey = await createKey(app, account);
    const fromDeleted = (await mint({ 'x-api-key': deletedKey })).body;
    const deleteRes = await app.fetch(
      `/v1/api-keys/${fromDeleted.token.api_key_id}`,
      json('DELETE', undefined, { cookie: account.cookie }),
    );
    expect(deleteRes.status).toBe(204);
    expect(await devices(bearer(fromDeleted.secret))).toBe(401);

    const live = (await readJson(await app.fetch('/v1/tokens?limit=200', { headers: { cookie: account.cookie } })))
      .data;
    expect(live.map((t: { id: string }) => t.id)).not.toContain(fromRevoked.token.id);
  });

  it("answer 404 for another account's token, and for another key's", async () => {
    const token = (await mint({ cookie: account.cookie })).body;
    const other = await registerAccount(app, { verified: true });
    const otherKey = await createKey(app, other);
    const credentials: Record<string, string>[] = [
      { 'x-api-key': otherKey },
      { cookie: other.cookie },
      { 'x-api-key': await createKey(app, account) },
    ];
    for (const credential of credentials) {
      const res = await app.fetch(`/v1/tokens/${token.token.id}`, json('DELETE', undefined, credential));
      expect(res.status).toBe(404);
    }
    expect((await readJson(await app.fetch('/v1/tokens', { headers: { cookie: other.cookie } }))).data).toEqual([]);
    expect(await devices(bearer(token.secret))).toBe(200);
  });
});
