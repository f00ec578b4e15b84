import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, registerAccount, type Account } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';

// A credential that is present and wrong is refused, whatever valid credential comes with it:
// otherwise a client with a revoked or mistyped key silently acts as someone else.
describe('credentials presented together', () => {
  let app: TestApp;
  let account: Account;
  let key: string;
  let phone: PairedPhone;
  const WRONG_KEY = 'sk_this-key-does-not-exist';

  beforeAll(async () => {
    app = await startTestApp();
    account = await registerAccount(app, { verified: true });
    key = await createKey(app, account);
    phone = await pairPhone(app, key);
  });
  afterAll(() => app?.close());

  const me = (headers: Record<string, string>) => app.fetch('/v1/auth/me', { headers });
  const devices = (headers: Record<string, string>) => app.fetch('/v1/devices', { headers });
  const ownDevice = (headers: Record<string, string>) => app.fetch('/v1/device', { headers });

  async function expect401(res: Response) {
    expect(res.status).toBe(401);
    expect(await readJson(res)).toEqual({ code: 'unauthenticated', message: expect.any(String), status: 401 });
  }

  it('accepts each valid credential alone', async () => {
    expect((await me({ cookie: account.cookie })).status).toBe(200);
    expect((await devices({ 'x-api-key': key })).status).toBe(200);
    expect((await devices(bearer(key))).status).toBe(200);
    expect((await ownDevice(bearer(phone.token))).status).toBe(200);
  });

  it('refuses an invalid X-Api-Key sent with a valid session cookie', async () => {
    await expect401(await me({ 'x-api-key': WRONG_KEY, cookie: account.cookie }));
    await expect401(await devices({ 'x-api-key': WRONG_KEY, cookie: account.cookie }));
  });

  it('refuses an invalid bearer key sent with a valid session cookie', async () => {
    await expect401(await devices({ ...bearer(WRONG_KEY), cookie: account.cookie }));
  });

  it('refuses an Authorization header that is not a bearer token, with a valid cookie or key', async () => {
    await expect401(await devices({ authorization: 'Basic dXNlcjpwdw==', cookie: account.cookie }));
    await expect401(await devices({ authorization: 'Basic dXNlcjpwdw==', 'x-api-key': key }));
  });

  it('refuses an invalid session cookie sent with a valid API key', async () => {
    await expect401(await devices({ 'x-api-key': key, cookie: 'sid=not-a-session' }));
  });

  it('refuses two different keys, even when one of them is valid', async () => {
    await expect401(await devices({ 'x-api-key': key, ...bearer(WRONG_KEY) }));
    await expect401(await devices({ 'x-api-key': WRONG_KEY, ...bearer(key) }));
    // The same key twice is one credential.
    expect((await devices({ 'x-api-key': key, ...bearer(key) })).status).toBe(200);
  });

  it('refuses a device token where an API key is expected, and the other way round', async () => {
    await expect401(await devices({ ...bearer(phone.token), cookie: account.cookie }));
    await expect401(await ownDevice(bearer(key)));
  });

  it('refuses an API key or a cookie sent to a phone route with a valid device token', async () => {
    await expect401(await ownDevice({ ...bearer(phone.token), 'x-api-key': WRONG_KEY }));
    await expect401(await ownDevice({ ...bearer(phone.token), 'x-api-key': key }));
    await expect401(await ownDevice({ ...bearer(phone.token), cookie: 'sid=not-a-session' }));
  });
});
