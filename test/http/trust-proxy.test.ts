import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { PASSWORD, registerAccount, uniqueEmail } from '../support/accounts';
import { MOBILE_API } from '../compat/smsgate/helpers';

// The per-address abuse limits are keyed by the client address: the socket's, or with TRUST_PROXY the
// one the trusted proxy in front wrote into X-Forwarded-For. A client must not pick its own key by
// sending the header itself: without TRUST_PROXY it is ignored, and with it only the entry the
// proxy appended (the last) counts, not what the client put before it.

const wrongCode = (app: TestApp, forwardedFor?: string) =>
  // Straight to the server: app.fetch would add its own X-Forwarded-For.
  fetch(`${app.url}/v1/device/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    body: JSON.stringify({ code: 'WRONG234', hardware_key: 'hw-proxy' }),
  });

/** A made-up client address of its own (benchmarking range, 198.18.0.0/15), so runs never share a key. */
const address = () => `198.${18 + randomInt(2)}.${randomInt(256)}.${1 + randomInt(254)}`;

/**
 * Every request that counts against a per-address limit, each with the key prefix it counts under
 * (src/http/rate-limit.ts LIMITS; keys as the services write them): a refused guess or a request
 * that only counts, as a client anywhere can send it.
 */
const ADDRESS_KEYED: {
  keys: string[];
  send: (app: TestApp, headers: Record<string, string>, cookie: string) => Promise<Response>;
}[] = [
  {
    keys: ['register:ip:'],
    send: (app, h) => post(app, '/v1/auth/register', { email: uniqueEmail('proxy'), password: PASSWORD }, h),
  },
  {
    // A sign-in from that network, and a wrong password for that email from it.
    keys: ['login:ip:', 'login-failures:nobody@example.test:'],
    send: (app, h) => post(app, '/v1/auth/login', { email: 'nobody@example.test', password: 'not the password' }, h),
  },
  {
    keys: ['reset:ip:'],
    send: (app, h) => post(app, '/v1/auth/password-reset/request', { email: 'nobody@example.test' }, h),
  },
  {
    keys: ['code:ip:'],
    send: (app, h) =>
      post(app, '/v1/auth/password-reset', { email: 'nobody@example.test', code: '000000', new_password: PASSWORD }, h),
  },
  {
    keys: ['code:ip:'],
    send: (app, h, cookie) =>
      post(app, '/v1/auth/verify-email', { code: '000000' }, { ...h, cookie, 'sec-fetch-site': 'same-origin' }),
  },
  {
    keys: ['pair:ip:'],
    send: (app, h) => post(app, '/v1/device/pair', { code: 'WRONG234', hardware_key: 'hw-proxy' }, h),
  },
  // The SMSGate app registering with a wrong private token is a wrong pairing code.
  {
    keys: ['pair:ip:'],
    send: (app, h) => post(app, `${MOBILE_API}/device`, { name: 'proxy' }, { ...h, authorization: 'Bearer WRONG234' }),
  },
];

/** Straight to the server, as wrongCode does. */
const post = (app: TestApp, path: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** The per-address counters whose key ends with `network`, with their hits. */
async function countersOf(app: TestApp, network: string): Promise<Record<string, number>> {
  const rows: { key: string; hits: number }[] = await app.orm.em
    .fork()
    .execute('select key, hits from rate_limit_windows where key like ?', [`%:${network}`]);
  return Object.fromEntries(rows.map((row) => [row.key, Number(row.hits)]));
}

describe('X-Forwarded-For and the per-address limits', () => {
  let direct: TestApp;
  let proxied: TestApp;

  beforeAll(async () => {
    direct = await startTestApp({ env: { TRUST_PROXY: 'false' } });
    proxied = await startTestApp({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
  });

  it('ignores X-Forwarded-For without TRUST_PROXY: a new header each time is the same address', async () => {
    for (let i = 0; i < 20; i++) expect((await wrongCode(direct, `198.18.0.${i + 1}`)).status).toBe(400);
    expect((await wrongCode(direct, '198.18.0.99')).status).toBe(429);
    expect((await wrongCode(direct)).status).toBe(429);
  });

  it('with TRUST_PROXY counts the address the proxy appended, not what the client wrote before it', async () => {
    const client = '198.18.1.7';
    for (let i = 0; i < 20; i++) expect((await wrongCode(proxied, `10.99.0.${i + 1}, ${client}`)).status).toBe(400);
    expect((await wrongCode(proxied, `10.99.1.1, ${client}`)).status).toBe(429);
    expect((await wrongCode(proxied, client)).status).toBe(429);
    // Another client behind the same proxy is another address.
    expect((await wrongCode(proxied, '198.18.1.8')).status).toBe(400);
  });

  it('with TRUST_PROXY keys every per-address limit by the address the proxy appended, never by what the client wrote', async () => {
    // A session to verify an email with.
    const { cookie } = await registerAccount(proxied);
    for (const { keys, send } of ADDRESS_KEYED) {
      const [client, written] = [address(), address()];
      // Counted from what is there: another test may have drawn the same address.
      const [clientBefore, writtenBefore] = [await countersOf(proxied, client), await countersOf(proxied, written)];
      const res = await send(proxied, { 'x-forwarded-for': `${written}, ${client}` }, cookie);
      expect(res.status, `${keys} ${await res.text()}`).toBeLessThan(500);
      const counted = Object.fromEntries(
        keys.map((key) => [`${key}${client}`, (clientBefore[`${key}${client}`] ?? 0) + 1]),
      );
      expect(await countersOf(proxied, client), keys[0]).toEqual({ ...clientBefore, ...counted });
      expect(await countersOf(proxied, written), keys[0]).toEqual(writtenBefore);
    }
  });

  it('with TRUST_PROXY counts an IPv6 client by its /64, as on a direct connection', async () => {
    const prefix = `2001:db8:${randomInt(65536).toString(16)}:${randomInt(65536).toString(16)}`;
    for (const host of ['1', 'ab:0:7']) {
      const res = await post(
        proxied,
        '/v1/device/pair',
        { code: 'WRONG234', hardware_key: 'hw-proxy' },
        { 'x-forwarded-for': `${prefix}::${host}` },
      );
      expect(res.status).toBe(400);
    }
    expect(await countersOf(proxied, `${prefix}::/64`)).toEqual({ [`pair:ip:${prefix}::/64`]: 2 });
  });

  it('without TRUST_PROXY keys every per-address limit by the socket, whatever X-Forwarded-For says', async () => {
    const { cookie } = await registerAccount(direct);
    for (const { keys, send } of ADDRESS_KEYED) {
      const [client, written] = [address(), address()];
      // Left as they were: another test may have drawn the same address.
      const before = { ...(await countersOf(direct, client)), ...(await countersOf(direct, written)) };
      const res = await send(direct, { 'x-forwarded-for': `${written}, ${client}` }, cookie);
      expect(res.status, `${keys} ${await res.text()}`).toBeLessThan(500);
      expect({ ...(await countersOf(direct, client)), ...(await countersOf(direct, written)) }, keys[0]).toEqual(
        before,
      );
      const socket = Object.keys(await countersOf(direct, '127.0.0.1'));
      for (const key of keys) expect(socket).toContain(`${key}127.0.0.1`);
    }
  });
});
