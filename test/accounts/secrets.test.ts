import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger';
import { memoryMailer, startTestApp, type TestApp } from '../support/app';
import { json, PASSWORD, sessionCookie, uniqueEmail } from '../support/accounts';
import { readJson } from '../support/http';

describe('secrets stay out of logs and responses', () => {
  let app: TestApp;
  const lines: string[] = [];
  const mailer = memoryMailer();

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    app = await startTestApp({ logger: createLogger('trace', sink), mailer });
  });
  afterAll(() => app?.close());

  it('never logs a password, key, session cookie or code, and shows each secret only where it is created', async () => {
    const email = uniqueEmail();
    const register = await app.fetch('/v1/auth/register', json('POST', { email, password: PASSWORD }));
    const cookie = sessionCookie(register);
    const code = mailer.lastCode(email);
    const keyRes = await app.fetch('/v1/api-keys', json('POST', { name: 'k' }, { cookie }));
    const { key } = await readJson(keyRes);
    await app.fetch('/v1/auth/me', { headers: { 'x-api-key': key } });
    await app.fetch('/v1/auth/verify-email', json('POST', { code }, { cookie }));
    await app.fetch('/v1/auth/login', json('POST', { email, password: PASSWORD }));
    await app.fetch('/v1/auth/login', json('POST', { email, password: 'a wrong password' }));
    await app.fetch(
      '/v1/auth/password',
      json('POST', { current_password: PASSWORD, new_password: 'new password 456' }, { cookie }),
    );

    const secrets = [PASSWORD, 'a wrong password', 'new password 456', key, key.slice(3), cookie.slice(4), code];
    const log = lines.join('');
    expect(log).toContain('"msg":"request"');
    for (const secret of secrets) expect(log).not.toContain(secret);

    // Responses after creation never repeat them.
    const responses = [
      await (await app.fetch('/v1/api-keys', { headers: { cookie } })).text(),
      await (await app.fetch('/v1/auth/me', { headers: { cookie } })).text(),
      await (await app.fetch('/v1/auth/sessions', { headers: { cookie } })).text(),
    ];
    for (const body of responses) for (const secret of secrets) expect(body).not.toContain(secret);
  });

  it('takes about as long to refuse an unknown email as a wrong password (no enumeration by timing)', async () => {
    const email = uniqueEmail();
    await app.fetch('/v1/auth/register', json('POST', { email, password: PASSWORD }));
    const time = async (address: string) => {
      const started = performance.now();
      const res = await app.fetch('/v1/auth/login', json('POST', { email: address, password: 'wrong password 1' }));
      expect(res.status).toBe(401);
      return performance.now() - started;
    };
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await time(email));
      unknown.push(await time(uniqueEmail('ghost')));
    }
    // An unknown address still pays for one argon2 verification: same order of magnitude.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.5);
  });
});
