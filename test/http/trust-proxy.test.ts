import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';

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
});
