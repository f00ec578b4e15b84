import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger';
import { createKey } from '../../support/accounts';
import { startTestApp, type TestApp } from '../../support/app';
import { tenant } from './helpers';
import { INTEGRATOR_API } from './integrator-client';
import { MOBILE_API } from './helpers';

// One error shape per API. Under the SMSGate integrator prefix every error the stack can give, from
// the HTTP server's own refusals (414, 431) to the routes', is SMSGate's `{message, data: {code}}`;
// under the mobile API and the phone webhook every validation error is 400 in our shape, the input
// guard's included. The documented 501 answers are expected: they are not logged as errors.

/** One raw request over a fresh socket: what fetch will not send (a 74 KB URL). */
function rawExchange(url: string, payload: string): Promise<{ status: number; body: unknown }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(payload));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
    });
  });
}

describe('one error shape per API', () => {
  let app: TestApp;
  const lines: { level: number; msg: string; code?: string }[] = [];
  let alice: Awaited<ReturnType<typeof tenant>>;
  let readOnly: string;

  beforeAll(async () => {
    const logger = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line)) });
    app = await startTestApp({ logger, env: { BODY_LIMIT: '2kb' } });
    alice = await tenant(app);
    readOnly = await createKey(app, alice.account, ['read']);
  });
  afterAll(() => app?.close());

  const their = (res: { status: number; body: unknown }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toEqual({ message: expect.any(String), data: expect.objectContaining({ code }) });
  };
  const call = async (method: string, path: string, init: { key?: string; body?: string; headers?: Record<string, string> } = {}) => {
    const res = await app.fetch(`${INTEGRATOR_API}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(init.key ? { 'x-api-key': init.key } : {}), ...init.headers },
      body: init.body,
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) as unknown };
  };

  it('answers every error under the integrator prefix in SMSGate’s shape, the HTTP server’s included', async () => {
    const key = alice.key;
    their(await call('POST', '/messages', { key, body: '{"phoneNumbers": [' }), 400, 'bad_request');
    their(await call('POST', '/messages', { key, body: '{"phoneNumbers": []}' }), 400, 'validation_failed');
    their(await call('POST', '/messages', { key, body: '{"message":"a\\u0000b","phoneNumbers":["+14155550101"]}' }), 400, 'validation_failed');
    their(await call('GET', '/messages'), 401, 'unauthenticated');
    their(await call('GET', '/devices', { key: readOnly }), 403, 'insufficient_scope');
    their(await call('GET', '/nothing-here', { key }), 404, 'not_supported');
    their(await call('GET', '/messages/%00', { key }), 404, 'not_found');
    their(await call('DELETE', '/webhooks/none', { key }), 404, 'not_found');
    their(await call('PUT', '/messages', { key, body: '{}' }), 405, 'method_not_allowed');
    their(await call('POST', '/messages', { key, body: JSON.stringify({ message: 'x'.repeat(4000), phoneNumbers: ['+1'] }) }), 413, 'payload_too_large');
    their(await call('GET', '/inbox?limit=0', { key }), 400, 'validation_failed');
    their(await call('DELETE', '/messages/no-such-message', { key }), 404, 'not_found');
    their(await call('POST', '/auth/token/refresh', { key, body: '{}' }), 401, 'unauthenticated');

    // Refused by Node's parser before the app: the URL or the headers too long.
    const uri = await rawExchange(app.url, `GET ${INTEGRATOR_API}/messages?from=${'a'.repeat(74_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    their(uri, 414, 'uri_too_long');
    const header = await rawExchange(
      app.url,
      `GET ${INTEGRATOR_API}/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${'A'.repeat(100_000)}\r\n\r\n`,
    );
    their(header, 431, 'header_fields_too_large');
    const slashes = await rawExchange(app.url, `GET /compat//smsgate/api/3rdparty/v1/devices HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`);
    their(slashes, 431, 'header_fields_too_large');
    // Elsewhere, the interface's shape as before.
    const ours = await rawExchange(app.url, `GET /v1/messages?q=${'a'.repeat(74_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(ours).toEqual({ status: 414, body: { code: 'uri_too_long', message: expect.any(String), status: 414 } });
  });

  it('answers a NUL on the phone webhook and the mobile API with 400, as their other validation errors', async () => {
    const webhook = await app.fetch(`/compat/smsgate/webhooks/${randomUUID()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': 'a'.repeat(64), 'x-timestamp': '1' },
      body: '{"event":"sms:received","payload":{"message":"a\\u0000b"}}',
    });
    expect(webhook.status).toBe(400);
    expect(await webhook.json()).toMatchObject({ code: 'validation_failed', status: 400, errors: [{ field: 'body.payload.message' }] });

    for (const [method, path] of [
      ['POST', '/device'],
      ['PATCH', '/message'],
      ['PATCH', '/device'],
    ]) {
      const res = await app.fetch(`${MOBILE_API}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-code' },
        body: '{"name":"a\\u0000b"}',
      });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'validation_failed', status: 400 });
    }
    // The router's own validation error, for comparison: also 400.
    const registration = await app.fetch(`${MOBILE_API}/device`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-code' },
      body: JSON.stringify({ name: 'x', simCards: [{ slotIndex: 'first' }] }),
    });
    expect(registration.status).toBe(400);
    expect(await registration.json()).toMatchObject({ code: 'validation_failed', status: 400 });
  });

  it('refuses SMSGate-shaped webhooks to private networks in its shape, on create and on replace', async () => {
    // This app has the default WEBHOOK_ALLOW_PRIVATE_NETWORKS=false.
    const key = alice.key;
    const made = await call('POST', '/webhooks', { key, body: JSON.stringify({ id: 'ssrf-hook', url: 'https://93.184.216.34/hook', event: 'sms:sent' }) });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    for (const url of [
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://192.168.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://[fd00::1]/x',
      'https://0x7f000001/x',
      'https://2130706433/x',
      'https://localhost/x',
      'http://93.184.216.34/hook',
    ]) {
      for (const id of [undefined, 'ssrf-hook']) {
        const refused = await call('POST', '/webhooks', { key, body: JSON.stringify({ ...(id ? { id } : {}), url, event: 'sms:sent' }) });
        expect(refused.status, `${url} ${id}: ${JSON.stringify(refused.body)}`).toBe(400);
        expect(refused.body).toEqual({ message: expect.any(String), data: expect.objectContaining({ code: expect.any(String) }) });
      }
    }
    const listed = (await call('GET', '/webhooks', { key })).body;
    expect(listed).toEqual([expect.objectContaining({ id: 'ssrf-hook', url: 'https://93.184.216.34/hook' })]);
  });
});
