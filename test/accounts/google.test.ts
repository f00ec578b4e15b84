import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowsInsecureIssuer } from '../../src/accounts/google.service';
import { User } from '../../src/accounts/user.entity';
import { sha256 } from '../../src/lib/crypto';
import { createLogger } from '../../src/lib/logger';
import { registerAccount, uniqueEmail } from '../support/accounts';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { Browser, CLIENT_ID, CLIENT_SECRET, startProvider, type GoogleAccount } from '../support/google';
import { readJson } from '../support/http';
import { freePort } from '../support/net';

// A real OpenID provider (oidc-provider) on a loopback port stands in for Google; the test plays the
// browser (test/support/google.ts).

const DASHBOARD_URL = 'http://dashboard.test/app';
const FAILED = `${DASHBOARD_URL}?error=google_sign_in_failed`;

const sidOf = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith('sid=') && !c.startsWith('sid=;'));

describe('Google sign-in', () => {
  let app: TestApp;
  let provider: Awaited<ReturnType<typeof startProvider>>;
  const clock = testClock();
  // Every failure looks the same to the browser; the log says which check refused it.
  const logs: { msg: string; err?: { message: string } }[] = [];
  const lastFailure = () => logs.findLast((line) => line.msg === 'google sign-in failed')?.err?.message;

  beforeAll(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    provider = await startProvider(`${publicUrl}/v1/auth/google/callback`);
    app = await startTestApp({
      clock,
      port,
      logger: createLogger('warn', { write: (line: string) => void logs.push(JSON.parse(line)) }),
      env: {
        PUBLIC_URL: publicUrl,
        DASHBOARD_URL,
        GOOGLE_CLIENT_ID: CLIENT_ID,
        GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
        GOOGLE_ISSUER: provider.issuer,
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  const callbackPrefix = () => `${app.url}/v1/auth/google/callback`;

  /** A fresh browser through start, the provider's login and consent, up to the app's callback URL. */
  async function reachCallback(sub: string, account?: GoogleAccount) {
    if (account) provider.accounts.set(sub, account);
    provider.state.nextLogin = sub;
    const browser = new Browser();
    const { visited, next } = await browser.followUntil(`${app.url}/v1/auth/google/start`, callbackPrefix());
    return { browser, callbackUrl: next, authorizationUrl: new URL(visited[1]) };
  }

  /** The whole flow; returns the callback's response and the session cookie it set, if any. */
  async function signIn(sub: string, account?: GoogleAccount) {
    const { browser, callbackUrl, authorizationUrl } = await reachCallback(sub, account);
    const res = await browser.get(callbackUrl);
    const sid = sidOf(res)?.split(';')[0];
    return { res, sid, callbackUrl, authorizationUrl, browser };
  }

  const me = async (sid: string) => {
    const res = await app.fetch('/v1/auth/me', { headers: { cookie: sid } });
    expect(res.status).toBe(200);
    return (await readJson(res)).user;
  };

  it('reports Google sign-in as available', async () => {
    expect(await readJson(await app.fetch('/v1/auth/config'))).toMatchObject({ google_sign_in: true });
  });

  it('creates an account for a new Google user, with PKCE S256, state and nonce on the way', async () => {
    const email = uniqueEmail('google');
    const { res, sid, authorizationUrl } = await signIn(`sub-${email}`, {
      email,
      email_verified: true,
      name: 'Grace Hopper',
      picture: 'https://example.test/grace.png',
    });

    expect(authorizationUrl.origin).toBe(provider.issuer);
    const params = authorizationUrl.searchParams;
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('state')).toBeTruthy();
    expect(params.get('nonce')).toBeTruthy();
    expect(params.get('scope')).toBe('openid email profile');
    expect(params.get('response_type')).toBe('code');
    expect(params.get('redirect_uri')).toBe(callbackPrefix());

    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(DASHBOARD_URL);
    expect(sidOf(res)).toMatch(/httponly/i);
    const user = await me(sid!);
    expect(user).toMatchObject({
      email,
      name: 'Grace Hopper',
      avatar_url: 'https://example.test/grace.png',
      google_linked: true,
      has_password: false,
      email_verified_at: expect.any(String),
    });
    expect((await app.orm.em.fork().findOneOrFail(User, { id: user.id })).planId).toBe(app.config.defaultPlan);
  });

  it('links an existing password account with the same verified email, then finds it by sub', async () => {
    const account = await registerAccount(app);
    const sub = `sub-${account.email}`;
    const first = await signIn(sub, { email: account.email.toUpperCase(), email_verified: true, name: 'Ada' });
    expect(first.res.headers.get('location')).toBe(DASHBOARD_URL);
    const linked = await me(first.sid!);
    expect(linked).toMatchObject({
      id: account.userId,
      email: account.email,
      has_password: true,
      google_linked: true,
      email_verified_at: expect.any(String),
    });

    // The Google address changed since: the account is still found by its subject.
    const second = await signIn(sub, { email: uniqueEmail('renamed'), email_verified: true });
    expect(second.sid).toBeDefined();
    expect(second.sid).not.toBe(first.sid);
    expect(await me(second.sid!)).toMatchObject({ id: account.userId, email: account.email });
  });

  it('refuses to link an existing account when Google has not verified the email', async () => {
    const account = await registerAccount(app);
    const { res, sid } = await signIn(`sub-${account.email}`, { email: account.email, email_verified: false });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(FAILED);
    expect(lastFailure()).toBe('unverified email matches an existing account');
    expect(sid).toBeUndefined();
    expect((await app.orm.em.fork().findOneOrFail(User, { id: account.userId })).googleSub).toBeNull();
  });

  it('creates an unverified account when Google has not verified a new email', async () => {
    const email = uniqueEmail('unverified');
    const { sid } = await signIn(`sub-${email}`, { email, email_verified: false });
    expect(await me(sid!)).toMatchObject({ email, google_linked: true, email_verified_at: null });
  });

  it('fails a replayed callback: the state is single use', async () => {
    const email = uniqueEmail('replay');
    const first = await signIn(`sub-${email}`, { email, email_verified: true });
    expect(first.sid).toBeDefined();
    const state = new URL(first.callbackUrl).searchParams.get('state')!;
    // Even with the browser's state cookie put back, the same code and state do not sign in twice.
    const replay = await new Browser().get(first.callbackUrl, { google_state: state });
    expect(replay.status).toBe(302);
    expect(replay.headers.get('location')).toBe(FAILED);
    expect(lastFailure()).toBe('unknown or already used state');
    expect(sidOf(replay)).toBeUndefined();
  });

  it('fails a tampered state, and a callback from a browser that did not start the sign-in', async () => {
    const email = uniqueEmail('tamper');
    provider.accounts.set(`sub-${email}`, { email, email_verified: true });

    const tampered = await reachCallback(`sub-${email}`);
    const url = new URL(tampered.callbackUrl);
    url.searchParams.set('state', `${url.searchParams.get('state')}x`);
    // Matching cookie and query: only the server-side state can refuse it.
    const forged = await tampered.browser.get(url.href, { google_state: url.searchParams.get('state')! });
    expect(forged.headers.get('location')).toBe(FAILED);
    expect(lastFailure()).toBe('unknown or already used state');
    expect(sidOf(forged)).toBeUndefined();

    const elsewhere = await reachCallback(`sub-${email}`);
    // Kept server-side by hash only, for ten minutes (storage itself: no column holds the state).
    const state = new URL(elsewhere.callbackUrl).searchParams.get('state')!;
    const stateRow = async () =>
      (await app.orm.em.fork().execute('select * from oauth_states where state_hash = ?', [sha256(state)]))[0];
    const saved = await stateRow();
    expect(new Date(saved.expires_at).getTime() - new Date(saved.created_at).getTime()).toBe(10 * 60_000);
    expect(JSON.stringify(saved)).not.toContain(state);
    const victim = await new Browser().get(elsewhere.callbackUrl);
    expect(victim.headers.get('location')).toBe(FAILED);
    expect(lastFailure()).toBe('state does not match the browser');
    expect(sidOf(victim)).toBeUndefined();
    // The real browser can still finish its own sign-in.
    const own = await elsewhere.browser.get(elsewhere.callbackUrl);
    expect(own.headers.get('location')).toBe(DASHBOARD_URL);
    expect(sidOf(own)).toBeDefined();
    expect(await stateRow()).toBeUndefined();
  });

  it('fails when the provider reports an error or the state has expired', async () => {
    const email = uniqueEmail('denied');
    provider.state.deny = true;
    const denied = await reachCallback(`sub-${email}`, { email, email_verified: true }).finally(
      () => (provider.state.deny = false),
    );
    expect(new URL(denied.callbackUrl).searchParams.get('error')).toBe('access_denied');
    const refused = await denied.browser.get(denied.callbackUrl);
    expect(refused.headers.get('location')).toBe(FAILED);
    expect(lastFailure()).toMatch(/authorization response .* error/);
    expect(sidOf(refused)).toBeUndefined();

    const late = await reachCallback(`sub-${email}`);
    clock.advance(11 * 60_000);
    const expired = await late.browser.get(late.callbackUrl);
    expect(expired.headers.get('location')).toBe(FAILED);
    expect(lastFailure()).toBe('expired state');
    expect(sidOf(expired)).toBeUndefined();
  });

  it('answers 404 on /start when Google is not configured', async () => {
    const plain = await startTestApp();
    try {
      const res = await plain.fetch('/v1/auth/google/start', { redirect: 'manual' });
      expect(res.status).toBe(404);
      expect(await readJson(res)).toMatchObject({ code: 'not_found', status: 404 });
      expect((await plain.fetch('/v1/auth/google/callback?code=x&state=y', { redirect: 'manual' })).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('allows plain http only for a provider on a loopback address', () => {
    expect(allowsInsecureIssuer(new URL('http://127.0.0.1:4000'))).toBe(true);
    expect(allowsInsecureIssuer(new URL('http://localhost:4000'))).toBe(true);
    expect(allowsInsecureIssuer(new URL('http://[::1]:4000'))).toBe(true);
    expect(allowsInsecureIssuer(new URL('http://accounts.google.com'))).toBe(false);
    expect(allowsInsecureIssuer(new URL('http://127.0.0.1.example.com'))).toBe(false);
    expect(allowsInsecureIssuer(new URL('https://accounts.google.com'))).toBe(false);
  });
});
