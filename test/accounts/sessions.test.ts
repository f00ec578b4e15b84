import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { json, PASSWORD, registerAccount, sessionCookie, uniqueEmail } from '../support/accounts';
import { readJson } from '../support/http';

const DAY = 86_400_000;

describe('accounts and dashboard sessions', () => {
  let app: TestApp;
  const clock = testClock();

  beforeAll(async () => {
    app = await startTestApp({ clock });
  });
  afterAll(() => app?.close());

  const login = (email: string, password = PASSWORD, headers: Record<string, string> = {}) =>
    app.fetch('/v1/auth/login', json('POST', { email, password }, headers));
  const me = (cookie: string) => app.fetch('/v1/auth/me', { headers: { cookie } });

  it('registers, signs in with an HttpOnly Lax cookie, and reports the user with plan limits and usage', async () => {
    const email = uniqueEmail('Reg');
    const res = await app.fetch(
      '/v1/auth/register',
      json('POST', { email: email.toUpperCase(), password: PASSWORD, name: 'Ada' }),
    );
    expect(res.status).toBe(201);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('sid='))!;
    expect(setCookie).toMatch(/httponly/i);
    expect(setCookie).toMatch(/samesite=lax/i);
    expect(setCookie).toMatch(/path=\//i);
    const { user } = await readJson(res);
    expect(user).toMatchObject({
      email: email.toLowerCase(),
      name: 'Ada',
      has_password: true,
      google_linked: false,
      email_verified_at: null,
      role: 'owner',
    });
    expect(JSON.stringify(user)).not.toContain('hash');

    const meRes = await me(sessionCookie(res));
    expect(meRes.status).toBe(200);
    expect(await readJson(meRes)).toEqual({
      user: expect.objectContaining({ id: user.id }),
      limits: {
        plan_id: 'free',
        plan_name: 'Free',
        batch_limit: 10,
        daily_limit: 50,
        device_limit: 1,
        monthly_limit: 500,
        webhook_limit: 2,
      },
      usage: { received_this_month: 0, received_today: 0, sent_this_month: 0, sent_today: 0 },
    });
  });

  it('refuses a second account with the same email (any case) with 409 email_taken', async () => {
    const account = await registerAccount(app);
    const res = await app.fetch(
      '/v1/auth/register',
      json('POST', { email: account.email.toUpperCase(), password: PASSWORD }),
    );
    expect(res.status).toBe(409);
    expect(await readJson(res)).toMatchObject({ code: 'email_taken', status: 409 });
  });

  it('validates registration fields', async () => {
    const res = await app.fetch('/v1/auth/register', json('POST', { email: 'not-an-email', password: 'short' }));
    expect(res.status).toBe(422);
    const body = await readJson(res);
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['body.email', 'body.password']);
  });

  it('answers a wrong password and an unknown email identically', async () => {
    const account = await registerAccount(app);
    const wrong = await login(account.email, 'wrong password!!');
    const unknown = await login(uniqueEmail('nobody'), 'wrong password!!');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await readJson(wrong)).toEqual(await readJson(unknown));
    expect(wrong.headers.getSetCookie()).toEqual([]);
  });

  it('locks an account out after 10 failed logins in 15 minutes, with Retry-After', async () => {
    const account = await registerAccount(app);
    for (let i = 0; i < 10; i++) expect((await login(account.email, 'wrong password!!')).status).toBe(401);
    const locked = await login(account.email);
    expect(locked.status).toBe(429);
    expect(await readJson(locked)).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    clock.advance(16 * 60_000);
    expect((await login(account.email)).status).toBe(200);
  });

  it('rotates the session on every login and lists sessions, most recent first, marking the current one', async () => {
    const account = await registerAccount(app);
    clock.advance(2 * 60_000);
    const second = sessionCookie(await login(account.email, PASSWORD, { 'user-agent': 'second-browser' }));
    expect(second).not.toBe(account.cookie);
    const res = await app.fetch('/v1/auth/sessions', { headers: { cookie: second } });
    expect(res.status).toBe(200);
    const { data } = await readJson(res);
    expect(data).toHaveLength(2);
    expect(data[0]).toMatchObject({ current: true, user_agent: 'second-browser', ip: expect.any(String) });
    expect(data[1].current).toBe(false);
    expect(Object.keys(data[0]).sort()).toEqual([
      'created_at',
      'current',
      'expires_at',
      'id',
      'ip',
      'last_seen_at',
      'user_agent',
    ]);
  });

  it('slides the idle expiry while used and ends it after 30 idle days', async () => {
    const account = await registerAccount(app);
    // Used every 20 days: still alive after 100 days.
    for (let i = 0; i < 5; i++) {
      clock.advance(20 * DAY);
      expect((await me(account.cookie)).status).toBe(200);
    }
    clock.advance(31 * DAY);
    expect((await me(account.cookie)).status).toBe(401);
  });

  it('ends a session at 180 days however often it is used', async () => {
    const account = await registerAccount(app);
    for (let day = 0; day < 179; day += 10) {
      clock.advance(10 * DAY);
      if (day + 10 < 180) expect((await me(account.cookie)).status).toBe(200);
    }
    clock.advance(2 * DAY);
    const res = await me(account.cookie);
    expect(res.status).toBe(401);
    expect(await readJson(res)).toMatchObject({ code: 'unauthenticated' });
  });

  it('signs out every other session on password change', async () => {
    const account = await registerAccount(app);
    const other = sessionCookie(await login(account.email));
    const wrong = await app.fetch(
      '/v1/auth/password',
      json(
        'POST',
        { current_password: 'nope nope nope', new_password: 'new password 123' },
        { cookie: account.cookie },
      ),
    );
    expect(wrong.status).toBe(422);
    const changed = await app.fetch(
      '/v1/auth/password',
      json('POST', { current_password: PASSWORD, new_password: 'new password 123' }, { cookie: account.cookie }),
    );
    expect(changed.status).toBe(204);
    expect((await me(account.cookie)).status).toBe(200);
    expect((await me(other)).status).toBe(401);
    expect((await login(account.email)).status).toBe(401);
    expect((await login(account.email, 'new password 123')).status).toBe(200);
  });

  it('ends one session, or all the others, and logout clears the cookie and always succeeds', async () => {
    const account = await registerAccount(app);
    const second = sessionCookie(await login(account.email));
    const third = sessionCookie(await login(account.email));
    const list = await readJson(await app.fetch('/v1/auth/sessions', { headers: { cookie: second } }));
    const secondId = list.data.find((s: { current: boolean }) => s.current).id;

    expect(
      (await app.fetch(`/v1/auth/sessions/${secondId}`, { method: 'DELETE', headers: { cookie: account.cookie } }))
        .status,
    ).toBe(204);
    expect(
      (await app.fetch('/v1/auth/sessions/revoke-others', { method: 'POST', headers: { cookie: third } })).status,
    ).toBe(204);
    expect((await me(second)).status).toBe(401);
    expect((await me(account.cookie)).status).toBe(401);
    expect((await me(third)).status).toBe(200);

    const logout = await app.fetch('/v1/auth/logout', { method: 'POST', headers: { cookie: third } });
    expect(logout.status).toBe(204);
    expect(logout.headers.getSetCookie().find((c) => c.startsWith('sid='))).toMatch(
      /max-age=0|expires=Thu, 01 Jan 1970/i,
    );
    expect((await me(third)).status).toBe(401);
    expect((await app.fetch('/v1/auth/logout', { method: 'POST' })).status).toBe(204);
  });

  it("answers 404 for another account's session id", async () => {
    const mine = await registerAccount(app);
    const theirs = await registerAccount(app);
    const { data } = await readJson(await app.fetch('/v1/auth/sessions', { headers: { cookie: theirs.cookie } }));
    const res = await app.fetch(`/v1/auth/sessions/${data[0].id}`, {
      method: 'DELETE',
      headers: { cookie: mine.cookie },
    });
    expect(res.status).toBe(404);
    expect((await me(theirs.cookie)).status).toBe(200);
  });

  it('refuses cookie-authenticated unsafe requests from a foreign origin', async () => {
    const account = await registerAccount(app);
    const foreign = await app.fetch(
      '/v1/auth/profile',
      json('PATCH', { name: 'Mallory' }, { cookie: account.cookie, origin: 'https://evil.example' }),
    );
    expect(foreign.status).toBe(403);
    expect(await readJson(foreign)).toMatchObject({ code: 'origin_mismatch' });
    const own = await app.fetch(
      '/v1/auth/profile',
      json('PATCH', { name: 'Grace' }, { cookie: account.cookie, origin: app.config.publicUrl }),
    );
    expect(own.status).toBe(200);
    expect((await readJson(own)).user.name).toBe('Grace');
  });

  it('reports the sign-in options', async () => {
    const res = await app.fetch('/v1/auth/config');
    expect(await readJson(res)).toEqual({ google_sign_in: false, turnstile_site_key: '', default_country: null });
  });
});
