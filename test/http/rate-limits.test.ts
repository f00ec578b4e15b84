import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, registerAccount } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, pairPhone } from '../devices/helpers';

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
