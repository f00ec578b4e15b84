import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, registerAccount } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, createPairingCode, pairPhone } from '../devices/helpers';

// Open event streams are capped per phone and per account (EVENT_STREAMS_PER_DEVICE and
// EVENT_STREAMS_PER_ACCOUNT): past them 429 too_many_streams with Retry-After, in the error body.
// Our stream and the SMSGate app's share the count.

const OUR_STREAM = '/v1/device/events';
const SMSGATE_STREAM = '/compat/smsgate/api/mobile/v1/events';

describe('the cap on open event streams', () => {
  let app: TestApp;
  let first: string;
  let second: string;
  let smsgate: string;
  const open: AbortController[] = [];

  async function stream(path: string, token: string) {
    const abort = new AbortController();
    const res = await app.fetch(path, { headers: bearer(token), signal: abort.signal });
    if (res.status === 200) open.push(abort);
    return { res, close: () => abort.abort() };
  }

  async function expectRefused(res: Response) {
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await readJson(res)).toEqual({ code: 'too_many_streams', message: expect.any(String), status: 429 });
  }

  /** Polls until the stream opens: a closed stream gives its place back when its socket closes. */
  async function opensAgain(path: string, token: string) {
    await expect
      .poll(async () => {
        const { res } = await stream(path, token);
        if (res.status !== 200) await res.text();
        return res.status;
      })
      .toBe(200);
  }

  beforeAll(async () => {
    app = await startTestApp({ env: { EVENT_STREAMS_PER_DEVICE: '2', EVENT_STREAMS_PER_ACCOUNT: '3' } });
    const account = await registerAccount(app, { verified: true, plan: 'business' });
    const key = await createKey(app, account);
    first = (await pairPhone(app, key)).token;
    second = (await pairPhone(app, key)).token;
    const { code } = await createPairingCode(app, key);
    const registered = await app.fetch('/compat/smsgate/api/mobile/v1/device', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${code}` },
      body: JSON.stringify({ name: 'SMSGate phone' }),
    });
    expect(registered.status).toBe(201);
    smsgate = (await readJson(registered)).token;
  });
  afterEach(async () => {
    for (const abort of open.splice(0)) abort.abort();
    // Every place is given back before the next test counts again.
    await expect.poll(() => app.services.streamCap.size()).toBe(0);
  });
  afterAll(() => app?.close());

  it('has defaults of 4 a phone and 200 an account', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y' }).eventStreams).toEqual({ perDevice: 4, perAccount: 200 });
    expect(app.config.eventStreams).toEqual({ perDevice: 2, perAccount: 3 });
  });

  it('refuses a phone a stream past its cap, and takes one again once another closes', async () => {
    const a = await stream(OUR_STREAM, first);
    expect(a.res.status).toBe(200);
    expect((await stream(OUR_STREAM, first)).res.status).toBe(200);
    await expectRefused((await stream(OUR_STREAM, first)).res);
    a.close();
    await opensAgain(OUR_STREAM, first);
  });

  it("counts all of an account's phones, our stream and the SMSGate app's together", async () => {
    expect((await stream(OUR_STREAM, first)).res.status).toBe(200);
    expect((await stream(OUR_STREAM, first)).res.status).toBe(200);
    const third = await stream(SMSGATE_STREAM, smsgate);
    expect(third.res.status).toBe(200);
    await expectRefused((await stream(OUR_STREAM, second)).res);
    await expectRefused((await stream(SMSGATE_STREAM, smsgate)).res);
    third.close();
    await opensAgain(OUR_STREAM, second);
  });

  it('caps the SMSGate stream per phone too', async () => {
    expect((await stream(SMSGATE_STREAM, smsgate)).res.status).toBe(200);
    expect((await stream(SMSGATE_STREAM, smsgate)).res.status).toBe(200);
    await expectRefused((await stream(SMSGATE_STREAM, smsgate)).res);
  });
});
