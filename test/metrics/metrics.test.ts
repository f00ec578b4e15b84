import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createMetrics } from '../../src/metrics/metrics';
import { serveMetrics } from '../../src/metrics/metrics.server';
import { startTestApp, type TestApp } from '../support/app';
import { json } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, type PairedPhone } from '../devices/helpers';
import { sendingTenant } from '../messages/helpers';
import { parseExposition, sumOf, valueOf, type Sample } from './scrape';

const TOKEN = `metrics-${randomUUID()}`;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe('GET /metrics on the API port (METRICS_TOKEN)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => app?.close());

  async function scrape(): Promise<Sample[]> {
    const res = await app.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  }

  /** How much each series of `name` (with `labels`) moved while `act` ran. */
  async function moved(
    act: () => Promise<unknown>,
  ): Promise<(name: string, labels?: Record<string, string>) => number> {
    const before = await scrape();
    await act();
    const after = await scrape();
    return (name, labels = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
  }

  const outbox = (phone: PairedPhone) => app.fetch('/v1/device/outbox', { headers: bearer(phone.token) });

  it('needs the bearer token: 401 without it or with another, 200 in the text format with it', async () => {
    expect((await app.fetch('/metrics')).status).toBe(401);
    expect((await app.fetch('/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(
      401,
    );
    // An API key is not the operators' token.
    const { key } = await sendingTenant(app);
    expect((await app.fetch('/metrics', { headers: { 'x-api-key': key } })).status).toBe(401);
    expect((await app.fetch('/metrics', { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);

    const res = await app.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE phone_gateway_http_requests_total counter');
    expect(text).toContain('# TYPE phone_gateway_http_request_duration_seconds histogram');
  });

  it('counts a send: the request by route template and status, the send accepted and its recipients', async () => {
    const { call } = await sendingTenant(app);
    const delta = await moved(async () => {
      const res = await call('POST', '/v1/messages', { body: 'Hello', to: ['+14155550100', '+14155550101'] });
      expect(res.status).toBe(202);
    });
    expect(delta('phone_gateway_http_requests_total', { method: 'POST', route: '/v1/messages', status: '202' })).toBe(
      1,
    );
    expect(
      delta('phone_gateway_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/messages',
        status_class: '2xx',
      }),
    ).toBe(1);
    expect(delta('phone_gateway_sends_accepted_total')).toBe(1);
    expect(delta('phone_gateway_send_recipients_total')).toBe(2);
  });

  it('counts refused sends by the error code the client got', async () => {
    const { call } = await sendingTenant(app);
    const delta = await moved(async () => {
      expect((await call('POST', '/v1/messages', { body: 'Hi', to: ['not a number'] })).status).toBe(422);
      expect((await app.fetch('/v1/messages', json('POST', { body: 'Hi', to: ['+14155550100'] }))).status).toBe(401);
      const unverified = await sendingTenant(app, { verified: false });
      expect((await unverified.call('POST', '/v1/messages', { body: 'Hi', to: ['+14155550100'] })).status).toBe(403);
    });
    expect(delta('phone_gateway_send_refusals_total', { code: 'validation_failed' })).toBe(1);
    expect(delta('phone_gateway_send_refusals_total', { code: 'unauthenticated' })).toBe(1);
    expect(delta('phone_gateway_send_refusals_total', { code: 'email_unverified' })).toBe(1);
    expect(delta('phone_gateway_sends_accepted_total')).toBe(0);
    expect(delta('phone_gateway_http_requests_total', { method: 'POST', route: '/v1/messages', status: '422' })).toBe(
      1,
    );
  });

  it('counts outbox fetches, the messages they hand out, outcome reports and the outcomes reached', async () => {
    const { call, phone } = await sendingTenant(app);
    const { message_ids } = await readJson(
      await call('POST', '/v1/messages', { body: 'Hello', to: ['+14155550100', '+14155550101'] }),
    );
    const delta = await moved(async () => {
      const fetched = await readJson(await outbox(phone));
      expect(fetched.data).toHaveLength(2);
      const one = await app.fetch(
        `/v1/device/messages/${message_ids[0]}/status`,
        json('POST', { status: 'sent' }, bearer(phone.token)),
      );
      expect(one.status).toBe(200);
      const many = await app.fetch(
        '/v1/device/messages/status',
        json(
          'POST',
          {
            reports: [
              { id: message_ids[0], status: 'delivered' },
              { id: message_ids[1], status: 'failed', error_code: 'RESULT_ERROR_GENERIC_FAILURE' },
              { id: randomUUID(), status: 'sent' },
            ],
          },
          bearer(phone.token),
        ),
      );
      expect(many.status).toBe(200);
    });
    expect(delta('phone_gateway_outbox_fetches_total')).toBe(1);
    expect(delta('phone_gateway_outbox_messages_total')).toBe(2);
    expect(delta('phone_gateway_outcome_reports_total', { status: 'sent', result: 'ok' })).toBe(1);
    expect(delta('phone_gateway_outcome_reports_total', { status: 'delivered', result: 'ok' })).toBe(1);
    expect(delta('phone_gateway_outcome_reports_total', { status: 'failed', result: 'ok' })).toBe(1);
    expect(delta('phone_gateway_outcome_reports_total', { status: 'sent', result: 'not_found' })).toBe(1);
    expect(delta('phone_gateway_message_outcomes_total', { status: 'sent' })).toBe(1);
    expect(delta('phone_gateway_message_outcomes_total', { status: 'delivered' })).toBe(1);
    expect(delta('phone_gateway_message_outcomes_total', { status: 'failed' })).toBe(1);
    expect(
      delta('phone_gateway_http_requests_total', { method: 'GET', route: '/v1/device/outbox', status: '200' }),
    ).toBe(1);
    expect(
      delta('phone_gateway_http_requests_total', {
        method: 'POST',
        route: '/v1/device/messages/:id/status',
        status: '200',
      }),
    ).toBe(1);
  });

  it('counts inbound texts, new and repeated', async () => {
    const { phone } = await sendingTenant(app);
    const text = { body: 'Inbound', sender: '+14155550999', received_at: new Date().toISOString() };
    const delta = await moved(async () => {
      expect((await app.fetch('/v1/device/inbound', json('POST', text, bearer(phone.token)))).status).toBe(201);
      expect((await app.fetch('/v1/device/inbound', json('POST', text, bearer(phone.token)))).status).toBe(200);
    });
    expect(delta('phone_gateway_inbound_texts_total', { result: 'new' })).toBe(1);
    expect(delta('phone_gateway_inbound_texts_total', { result: 'duplicate' })).toBe(1);
  });

  it('labels requests no route matched with one fixed value, never their path', async () => {
    const path = `/v1/nothing-here/${randomUUID()}`;
    const delta = await moved(async () => {
      expect((await app.fetch(path)).status).toBe(404);
      expect((await app.fetch(`/no-such-file-${randomUUID()}.txt`)).status).toBe(404);
    });
    expect(delta('phone_gateway_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(2);
  });

  it('reads phones online and the database pool at scrape time', async () => {
    await sendingTenant(app); // a paired phone is online until it misses its heartbeats
    const samples = await scrape();
    expect(valueOf(samples, 'phone_gateway_phones_online')).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'phone_gateway_db_pool_connections', { state: 'max' })).toBe(10);
    expect(valueOf(samples, 'phone_gateway_db_pool_connections', { state: 'free' })).toBeGreaterThanOrEqual(0);
    expect(samples.some((s) => s.name === 'phone_gateway_db_pool_connections' && s.labels.state === 'used')).toBe(true);
  });

  it('keeps label values to small fixed sets: no ids, phone numbers, keys or raw paths', async () => {
    // Everything above ran first (sequential tests): a send, reports, inbound texts, 404s with ids in their path.
    const samples = await scrape();
    const values = [...new Set(samples.flatMap((s) => Object.values(s.labels)))];
    expect(values.length).toBeGreaterThan(10);
    expect(values.filter((v) => UUID.test(v))).toEqual([]);
    expect(values.filter((v) => /\+?\d{7,}/.test(v))).toEqual([]);
    expect(values.filter((v) => v.startsWith('sk_') || v.includes(TOKEN))).toEqual([]);
    const routes = new Set(samples.filter((s) => s.labels.route !== undefined).map((s) => s.labels.route));
    for (const route of routes) expect(route === 'unmatched' || route.startsWith('/')).toBe(true);
    expect([...routes].filter((r) => r.includes('nothing-here') || r.includes('no-such-file'))).toEqual([]);
    // Every series name is ours, Node's or the process's: nothing from a global registry.
    expect(sumOf(samples, 'phone_gateway_http_requests_total')).toBeGreaterThan(10);
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  it('is not served on the API port (a 404, not the dashboard)', async () => {
    const app = await startTestApp();
    try {
      expect((await app.fetch('/metrics')).status).toBe(404);
      expect((await app.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});

describe('the metrics port (METRICS_PORT)', () => {
  it('serves the registry on a listener of its own, and only /metrics', async () => {
    const metrics = createMetrics();
    metrics.sends.accepted.inc(3);
    const server = await serveMetrics(metrics, { port: 0, host: '127.0.0.1' });
    try {
      const res = await fetch(server.url);
      expect(res.status).toBe(200);
      expect(valueOf(parseExposition(await res.text()), 'phone_gateway_sends_accepted_total')).toBe(3);
      expect((await fetch(server.url.replace('/metrics', '/v1/messages'))).status).toBe(404);
      expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.stop();
    }
  });

  it('asks for the token there too when METRICS_TOKEN is set', async () => {
    const server = await serveMetrics(createMetrics(), { port: 0, host: '127.0.0.1', token: TOKEN });
    try {
      expect((await fetch(server.url)).status).toBe(401);
      expect((await fetch(server.url, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      expect((await fetch(server.url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('gives each build its own registry (two in one process do not collide or share counts)', () => {
    const first = createMetrics();
    const second = createMetrics();
    first.sends.accepted.inc();
    expect(first.registry).not.toBe(second.registry);
    return Promise.all([first.render(), second.render()]).then(([a, b]) => {
      expect(valueOf(parseExposition(a.body), 'phone_gateway_sends_accepted_total')).toBe(1);
      expect(valueOf(parseExposition(b.body), 'phone_gateway_sends_accepted_total')).toBe(0);
    });
  });

  it('is configured by METRICS_PORT, METRICS_HOST, METRICS_TOKEN and WORKER_METRICS_ADDRESS', () => {
    expect(loadConfig({}).metrics).toEqual({
      port: null,
      startCommandPort: 9464,
      host: '127.0.0.1',
      token: undefined,
      workerAddress: undefined,
    });
    expect(loadConfig({ METRICS_PORT: '9100', METRICS_HOST: '0.0.0.0' }).metrics).toMatchObject({
      port: 9100,
      startCommandPort: 9100,
      host: '0.0.0.0',
    });
    expect(loadConfig({ METRICS_PORT: 'off' }).metrics).toMatchObject({ port: null, startCommandPort: null });
    expect(loadConfig({ WORKER_METRICS_ADDRESS: '0.0.0.0:9465' }).metrics.workerAddress).toBe('0.0.0.0:9465');
    expect(() => loadConfig({ METRICS_PORT: 'yes' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ WORKER_METRICS_ADDRESS: '9465' })).toThrow(/WORKER_METRICS_ADDRESS/);
  });
});
