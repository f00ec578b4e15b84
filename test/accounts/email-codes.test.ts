import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/accounts/mailer';
import { createLogger } from '../../src/lib/logger';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { json, PASSWORD, registerAccount, sessionCookie, uniqueEmail } from '../support/accounts';
import { readJson } from '../support/http';
import { startSmtpServer } from '../support/smtp';

describe('email verification and password reset over SMTP', () => {
  let app: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = testClock();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const mailer = createMailer({
      smtpUrl: smtp.url,
      from: 'Gateway <no-reply@gateway.test>',
      logger: createLogger('silent'),
    });
    app = await startTestApp({ clock, mailer });
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.close();
  });

  const verify = (cookie: string, code: string) =>
    app.fetch('/v1/auth/verify-email', json('POST', { code }, { cookie }));
  const wrongCode = (code: string) => (code === '000000' ? '000001' : '000000');

  it('mails a 6-digit code on register; the code verifies the email once', async () => {
    const account = await registerAccount(app);
    const code = await smtp.codeFor(account.email);
    expect(code).toMatch(/^\d{6}$/);
    const mail = smtp.received.find((m) => m.to.includes(account.email))!;
    expect(mail.raw).toContain('From: Gateway <no-reply@gateway.test>');

    const res = await verify(account.cookie, code);
    expect(res.status).toBe(200);
    expect((await readJson(res)).user.email_verified_at).toEqual(expect.any(String));
    // Verified: a second use changes nothing and still answers with the user.
    expect((await verify(account.cookie, code)).status).toBe(200);
  });

  it('refuses a wrong code with 400 invalid_code and burns the code after 5 wrong tries', async () => {
    const account = await registerAccount(app);
    const code = await smtp.codeFor(account.email);
    for (let i = 0; i < 5; i++) {
      const res = await verify(account.cookie, wrongCode(code));
      expect(res.status).toBe(400);
      expect(await readJson(res)).toMatchObject({ code: 'invalid_code', status: 400 });
    }
    expect((await verify(account.cookie, code)).status).toBe(400);
  });

  it('expires codes after 10 minutes and throttles resends to one a minute', async () => {
    const account = await registerAccount(app);
    const first = await smtp.codeFor(account.email);
    const before = smtp.received.length;
    expect(
      (await app.fetch('/v1/auth/verify-email/send', { method: 'POST', headers: { cookie: account.cookie } })).status,
    ).toBe(202);
    expect(smtp.received.length).toBe(before); // within a minute: no new mail, the first code still works
    clock.advance(11 * 60_000);
    expect((await verify(account.cookie, first)).status).toBe(400);
    expect(
      (await app.fetch('/v1/auth/verify-email/send', { method: 'POST', headers: { cookie: account.cookie } })).status,
    ).toBe(202);
    await expect.poll(() => smtp.received.length).toBe(before + 1);
    const second = await smtp.codeFor(account.email);
    expect((await verify(account.cookie, second)).status).toBe(200);
  });

  it('answers a reset request the same for known and unknown addresses, and mails only the known one', async () => {
    const account = await registerAccount(app);
    const known = await app.fetch('/v1/auth/password-reset/request', json('POST', { email: account.email }));
    const unknownEmail = uniqueEmail('ghost');
    const unknown = await app.fetch('/v1/auth/password-reset/request', json('POST', { email: unknownEmail }));
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(await known.text()).toBe(await unknown.text());
    await expect.poll(() => smtp.received.filter((m) => m.to.includes(account.email)).length).toBe(2);
    expect(smtp.received.some((m) => m.to.includes(unknownEmail))).toBe(false);
  });

  it('resets the password with the mailed code and signs out every session', async () => {
    const account = await registerAccount(app);
    clock.advance(2 * 60_000);
    await app.fetch('/v1/auth/password-reset/request', json('POST', { email: account.email }));
    await expect.poll(() => smtp.received.filter((m) => m.to.includes(account.email)).length).toBe(2);
    const code = await smtp.codeFor(account.email);

    const bad = await app.fetch(
      '/v1/auth/password-reset',
      json('POST', { email: account.email, code: wrongCode(code), new_password: 'brand new password' }),
    );
    expect(bad.status).toBe(400);
    const ok = await app.fetch(
      '/v1/auth/password-reset',
      json('POST', { email: account.email, code, new_password: 'brand new password' }),
    );
    expect(ok.status).toBe(204);
    expect((await app.fetch('/v1/auth/me', { headers: { cookie: account.cookie } })).status).toBe(401);
    const login = await app.fetch('/v1/auth/login', json('POST', { email: account.email, password: PASSWORD }));
    expect(login.status).toBe(401);
    const relogin = await app.fetch(
      '/v1/auth/login',
      json('POST', { email: account.email, password: 'brand new password' }),
    );
    expect(relogin.status).toBe(200);
    expect(sessionCookie(relogin)).toMatch(/^sid=/);
    // Used once: the same code cannot reset again.
    const again = await app.fetch(
      '/v1/auth/password-reset',
      json('POST', { email: account.email, code, new_password: 'another password 1' }),
    );
    expect(again.status).toBe(400);
  });

  it('refuses a code for an address with no account with invalid_code', async () => {
    const res = await app.fetch(
      '/v1/auth/password-reset',
      json('POST', { email: uniqueEmail('none'), code: '123456', new_password: 'brand new password' }),
    );
    expect(res.status).toBe(400);
    expect(await readJson(res)).toMatchObject({ code: 'invalid_code' });
  });
});
