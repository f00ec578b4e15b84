import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryMailer, startTestApp, testClock, type TestApp } from '../support/app';
import { json, PASSWORD, registerAccount, uniqueEmail } from '../support/accounts';
import { readJson } from '../support/http';

describe('abuse limits', () => {
  let app: TestApp;
  const clock = testClock();
  const mailer = memoryMailer();

  beforeAll(async () => {
    app = await startTestApp({ clock, mailer });
  });
  afterAll(() => app?.close());

  it('allows 30 registrations an hour from one address, then 429 rate_limited with Retry-After', async () => {
    const ip = '203.0.113.7';
    for (let i = 0; i < 30; i++) {
      const res = await app.fetch(
        '/v1/auth/register',
        json('POST', { email: uniqueEmail(), password: PASSWORD }, { 'x-forwarded-for': ip }),
      );
      expect(res.status).toBe(201);
    }
    const refused = await app.fetch(
      '/v1/auth/register',
      json('POST', { email: uniqueEmail(), password: PASSWORD }, { 'x-forwarded-for': ip }),
    );
    expect(refused.status).toBe(429);
    expect(await readJson(refused)).toEqual({ code: 'rate_limited', message: expect.any(String), status: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    const other = await app.fetch(
      '/v1/auth/register',
      json('POST', { email: uniqueEmail(), password: PASSWORD }, { 'x-forwarded-for': '203.0.113.8' }),
    );
    expect(other.status).toBe(201);
  });

  it('mails an address at most 5 times an hour, whatever asks', async () => {
    // Limits count in fixed hourly windows: start at the top of an hour so the test stays in one.
    clock.set(new Date('2031-03-04T10:00:00Z'));
    const account = await registerAccount(app); // mail 1: the verification code
    for (let i = 0; i < 6; i++) {
      clock.advance(61_000); // past the one-a-minute resend throttle
      const res = await app.fetch('/v1/auth/password-reset/request', json('POST', { email: account.email }));
      expect(res.status).toBe(202);
      // Each mail settles before the clock moves on, as it would with a minute between requests.
      await app.services.accounts.mailsSent();
    }
    expect(mailer.sent.filter((m) => m.to === account.email)).toHaveLength(5);
  });

  it('limits code checks per address', async () => {
    const account = await registerAccount(app);
    const ip = '203.0.113.9';
    let status = 0;
    for (let i = 0; i < 61 && status !== 429; i++) {
      const res = await app.fetch(
        '/v1/auth/verify-email',
        json('POST', { code: '000000' }, { cookie: account.cookie, 'x-forwarded-for': ip }),
      );
      status = res.status;
    }
    expect(status).toBe(429);
  });
});
