import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { json, registerAccount, type Account } from '../support/accounts';
import { accountWithKey, bearer, pairPhone } from '../devices/helpers';

// Two api processes over one database: `here` serves the integrator and the phone (and so remembers
// their credentials), `there` is where the credential changes.
describe('remembered credentials', () => {
  let here: TestApp;
  let there: TestApp;
  let account: Account;
  let session: (init?: RequestInit) => RequestInit;

  beforeAll(async () => {
    here = await startTestApp();
    there = await startTestApp();
    account = await registerAccount(here, { verified: true });
    session = (init = {}) => ({ ...init, headers: { ...(init.headers as object), cookie: account.cookie } });
  });
  afterAll(async () => {
    await here?.close();
    await there?.close();
  });

  const asKey = (app: TestApp, key: string) => app.fetch('/v1/devices', { headers: { 'x-api-key': key } });
  const asPhone = (app: TestApp, token: string) => app.fetch('/v1/device', { headers: bearer(token) });
  /** Until the process is told, and with the feed up it always is, within moments. */
  const refusedSoon = (call: () => Promise<Response>) =>
    expect.poll(async () => (await call()).status, { timeout: 5_000, interval: 20 }).toBe(401);

  async function keyInUse(app: TestApp) {
    const created = await app.fetch('/v1/api-keys', session(json('POST', { name: 'remembered' })));
    expect(created.status).toBe(201);
    const body = await created.json();
    const key = body.key as string;
    const id = body.api_key.id as string;
    // The first use starts listening for changes; from then on the key is remembered.
    expect((await asKey(app, key)).status).toBe(200);
    await expect.poll(() => app.services.notifier.listening(), { timeout: 5_000 }).toBe(true);
    for (let i = 0; i < 3; i++) expect((await asKey(app, key)).status).toBe(200);
    return { key, id };
  }

  it('refuses a key revoked in this process on the very next request', async () => {
    const { key, id } = await keyInUse(here);
    expect((await here.fetch(`/v1/api-keys/${id}/revoke`, session({ method: 'POST' }))).status).toBe(204);
    expect((await asKey(here, key)).status).toBe(401);
  });

  it('refuses a key revoked or deleted through another process, once its commit is heard', async () => {
    const revoked = await keyInUse(here);
    expect((await there.fetch(`/v1/api-keys/${revoked.id}/revoke`, session({ method: 'POST' }))).status).toBe(204);
    await refusedSoon(() => asKey(here, revoked.key));

    const deleted = await keyInUse(here);
    expect((await there.fetch(`/v1/api-keys/${deleted.id}`, session({ method: 'DELETE' }))).status).toBe(204);
    await refusedSoon(() => asKey(here, deleted.key));
  });

  it('refuses a key whose row an operator changed by hand in SQL', async () => {
    const { key, id } = await keyInUse(here);
    // Expired by the api's own clock (a test clock that stands still).
    const past = new Date(here.clock.now().getTime() - 1_000);
    await there.orm.em.fork().execute('update api_keys set expires_at = ? where id = ?', [past, id]);
    await refusedSoon(() => asKey(here, key));
  });

  it('refuses a remembered key once its expiry passes, with nothing to tell', async () => {
    const clock = testClock();
    const timed = await startTestApp({ clock });
    try {
      const expiresAt = new Date(clock.now().getTime() + 3_600_000);
      const created = await timed.fetch(
        '/v1/api-keys',
        session(json('POST', { name: 'expiring', expires_at: expiresAt.toISOString() })),
      );
      expect(created.status).toBe(201);
      const { key } = await created.json();
      const first = await asKey(timed, key);
      expect(first.status, await first.text()).toBe(200);
      await expect.poll(() => timed.services.notifier.listening(), { timeout: 5_000 }).toBe(true);
      for (let i = 0; i < 3; i++) expect((await asKey(timed, key)).status).toBe(200);
      clock.advance(3_600_000);
      expect((await asKey(timed, key)).status).toBe(401);
    } finally {
      await timed.close();
    }
  });

  it("refuses a phone's token once the phone is unpaired, in this process or another", async () => {
    const { key } = await accountWithKey(here);
    const phone = await pairPhone(here, key);
    expect((await asPhone(here, phone.token)).status).toBe(200);
    await expect.poll(() => here.services.notifier.listening(), { timeout: 5_000 }).toBe(true);
    expect((await asPhone(here, phone.token)).status).toBe(200);
    expect((await there.fetch(`/v1/devices/${phone.id}`, json('DELETE', undefined, { 'x-api-key': key }))).status).toBe(
      204,
    );
    await refusedSoon(() => asPhone(here, phone.token));

    const other = await pairPhone(here, key);
    expect((await asPhone(here, other.token)).status).toBe(200);
    expect((await here.fetch(`/v1/devices/${other.id}`, json('DELETE', undefined, { 'x-api-key': key }))).status).toBe(
      204,
    );
    expect((await asPhone(here, other.token)).status).toBe(401);
  });

  it("refuses a phone's old token at once when it pairs again and gets a new one", async () => {
    const { key } = await accountWithKey(here);
    const first = await pairPhone(here, key);
    for (let i = 0; i < 3; i++) expect((await asPhone(here, first.token)).status).toBe(200);
    const again = await pairPhone(here, key, { hardware_key: first.hardwareKey });
    expect(again.id).toBe(first.id);
    expect((await asPhone(here, first.token)).status).toBe(401);
    expect((await asPhone(here, again.token)).status).toBe(200);
  });
});
