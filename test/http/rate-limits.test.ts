import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { createKey, json, PASSWORD, registerAccount } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, createPairingCode, pairPhone } from '../devices/helpers';

// Request rates per API key and per device token, set through the environment: a burst past the
// limit is refused with 429 rate_limited and Retry-After, and the test clock refills the bucket.
describe('request rate limits', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  let phoneToken: string;

  beforeAll(async () => {
    app = await startTestApp({
      env: {
        API_KEY_RATE_PER_SECOND: '2',
        API_KEY_RATE_BURST: '5',
        DEVICE_RATE_PER_SECOND: '1',
        DEVICE_RATE_BURST: '3',
      },
    });
    const account = await registerAccount(app, { verified: true });
    key = await createKey(app, account);
    otherKey = await createKey(app, account);
    // Pairing makes one keyed request; the buckets below start full once the clock has moved on.
    phoneToken = (await pairPhone(app, key)).token;
    app.clock.advance(60_000);
  });
  afterAll(() => app?.close());

  async function burst(count: number, request: () => Promise<Response>): Promise<Response[]> {
    const responses: Response[] = [];
    for (let i = 0; i < count; i++) responses.push(await request());
    return responses;
  }

  async function expectRefused(res: Response, retryAfter: string) {
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe(retryAfter);
    expect(await readJson(res)).toEqual({ code: 'rate_limited', message: expect.any(String), status: 429 });
  }

  it('reads the limits from the environment', () => {
    expect(app.config.rateLimits).toEqual({ key: { perSecond: 2, burst: 5 }, device: { perSecond: 1, burst: 3 } });
  });

  it('refuses an API key past its burst, and lets it through again as the bucket refills', async () => {
    const responses = await burst(7, () => app.fetch('/v1/devices', { headers: { 'x-api-key': key } }));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    await expectRefused(responses[5], '1');
    // Another key of the same account has its own bucket.
    expect((await app.fetch('/v1/devices', { headers: { 'x-api-key': otherKey } })).status).toBe(200);

    app.clock.advance(500);
    expect((await app.fetch('/v1/devices', { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await app.fetch('/v1/devices', { headers: { 'x-api-key': key } })).status).toBe(429);
    app.clock.advance(10_000);
    const again = await burst(5, () => app.fetch('/v1/devices', bearerInit(key)));
    expect(again.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('refuses a device token past its burst, and recovers', async () => {
    const responses = await burst(5, () => app.fetch('/v1/device', bearerInit(phoneToken)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    await expectRefused(responses[3], '1');
    app.clock.advance(1000);
    expect((await app.fetch('/v1/device', bearerInit(phoneToken))).status).toBe(200);
    expect((await app.fetch('/v1/device', bearerInit(phoneToken))).status).toBe(429);
    app.clock.advance(3000);
    const again = await burst(3, () => app.fetch('/v1/device', bearerInit(phoneToken)));
    expect(again.map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('says how long to wait when the sustained rate is slow', async () => {
    const slow = await startTestApp({ env: { API_KEY_RATE_PER_SECOND: '0.1', API_KEY_RATE_BURST: '1' } });
    try {
      const account = await registerAccount(slow, { verified: true });
      const slowKey = await createKey(slow, account);
      expect((await slow.fetch('/v1/devices', { headers: { 'x-api-key': slowKey } })).status).toBe(200);
      await expectRefused(await slow.fetch('/v1/devices', { headers: { 'x-api-key': slowKey } }), '10');
      slow.clock.advance(10_000);
      expect((await slow.fetch('/v1/devices', { headers: { 'x-api-key': slowKey } })).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});

const bearerInit = (token: string): RequestInit => ({ headers: bearer(token) });

// The abuse limits (per address, in Postgres) count an address by its network: an IPv6 /64 is one
// subscriber's, and an IPv4-mapped IPv6 address is its IPv4 address.
describe('abuse limits by network', () => {
  let app: TestApp;
  let key: string;
  const clock = testClock();
  const hex = () => randomInt(0x10000).toString(16);

  beforeAll(async () => {
    app = await startTestApp({ clock });
    const account = await registerAccount(app, { verified: true, plan: 'business' });
    key = await createKey(app, account);
  });
  afterAll(() => app?.close());
  // The limits count in fixed windows (10 and 15 minutes): each test starts at the top of an hour.
  beforeEach(() => clock.set(new Date(Date.UTC(2031, 4, 5, 10 + randomInt(12)))));

  const pair = (code: string, from: string) =>
    app.fetch('/v1/device/pair', json('POST', { code, hardware_key: `hw-${hex()}` }, { 'x-forwarded-for': from }));

  it('counts every address of an IPv6 /64 as one, and an IPv4-mapped address as its IPv4 address', async () => {
    const network = `2001:db8:${hex()}:${hex()}`;
    for (let i = 1; i <= 20; i++) expect((await pair('WRONG123', `${network}::${i}`)).status).toBe(400);
    // A further wrong code from anywhere in the /64 is refused (a right one would still pair).
    const sameNetwork = await pair('WRONG124', `${network}:ffff:ffff:ffff:ffff`);
    expect(sameNetwork.status).toBe(429);
    expect(await readJson(sameNetwork)).toEqual({ code: 'rate_limited', message: expect.any(String), status: 429 });
    expect((await pair((await createPairingCode(app, key)).code, `${network}::99`)).status).toBe(201);
    // The next /64 is another subscriber.
    expect(
      (await pair('WRONG124', `${network.replace(/[0-9a-f]+$/, (g) => (parseInt(g, 16) ^ 1).toString(16))}::1`)).status,
    ).toBe(400);

    const v4 = `198.18.${randomInt(256)}.${randomInt(256)}`;
    for (let i = 0; i < 20; i++) expect((await pair('WRONG123', v4)).status).toBe(400);
    expect((await pair('WRONG124', `::ffff:${v4}`)).status).toBe(429);
  });

  it('locks out the network that guessed a password, not the owner signing in where they did before', async () => {
    const owner = await registerAccount(app);
    const login = (password: string, from: string) =>
      app.fetch('/v1/auth/login', json('POST', { email: owner.email, password }, { 'x-forwarded-for': from }));
    const attacker = `2001:db8:${hex()}:${hex()}::7`;
    for (let i = 0; i < 10; i++) expect((await login('wrong password!!', attacker)).status).toBe(401);
    // The guessing network is refused even the right password: guesses stay bounded.
    expect((await login(PASSWORD, attacker)).status).toBe(429);
    // Past the account-wide count, a network the account never signed in from is refused too...
    expect((await login(PASSWORD, `203.0.113.${1 + randomInt(250)}`)).status).toBe(429);
    // ...but the owner, from the address they registered from, signs in.
    expect((await login(PASSWORD, app.clientIp)).status).toBe(200);
    // Fifteen minutes later everyone may try again.
    clock.advance(15 * 60_000);
    expect((await login(PASSWORD, attacker)).status).toBe(200);
  });
});
