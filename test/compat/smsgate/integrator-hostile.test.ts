import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_MAX } from '../../../src/messages/messages.schemas';
import { startTestApp, type TestApp } from '../../support/app';
import { readJson } from '../../support/http';
import { pairPhone, type PairedPhone } from '../../devices/helpers';
import { startReceiver, type Receiver } from '../../webhooks/receiver';
import { tenant } from './helpers';
import { INTEGRATOR_API } from './integrator-client';

// SMSGate's integrator API (src/compat/smsgate/integrator.routes.ts) under hostile input: another
// account's ids, malformed Basic credentials, values out of any range, and a generated sweep of its
// routes × fields × values. Whatever comes back: never a 5xx, every error in their shape
// (`{message, data: {code}}`), and a refused request writes nothing of the account's.

type Tenant = Awaited<ReturnType<typeof tenant>> & { phone: PairedPhone };

const basic = (credentials: string) => `Basic ${Buffer.from(credentials, 'latin1').toString('base64')}`;

describe('SMSGate’s integrator API under hostile input', () => {
  let app: TestApp;
  let alice: Tenant;
  let bob: Tenant;
  let receiver: Receiver;

  async function pairedTenant(): Promise<Tenant> {
    const t = await tenant(app);
    return { ...t, phone: await pairPhone(app, t.key) };
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    alice = await pairedTenant();
    bob = await pairedTenant();
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  const call = (t: Tenant, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.fetch(`${INTEGRATOR_API}${path}`, {
      method,
      headers: { authorization: basic(`login:${t.key}`), 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });

  /** Every row the account owns that a refused request could have written. */
  async function footprint(t: Tenant) {
    const [row] = await app.orm.em.fork().execute(
      `select (select count(*) from batches where user_id = ?)::int as batches,
              (select count(*) from messages where user_id = ?)::int as messages,
              (select count(*) from webhooks where user_id = ?)::int as webhooks,
              (select count(*) from smsgate_ids where user_id = ?)::int as ids,
              (select signing_key from smsgate_accounts where user_id = ?) as signing_key,
              (select json_agg(d order by d.id) from (select id, send_delay_seconds, send_delay_jitter_seconds,
                  max_sends_per_minute, max_sends_per_hour, heartbeat_interval_minutes, preferred_sim_subscription_id,
                  max_sends_per_day, sim_selection, processing_order
                from devices where user_id = ? and unpaired_at is null) d)::text as phones`,
      Array(6).fill(t.account.userId),
    );
    return row;
  }

  /** A refusal in their shape: a 4xx, `message` a sentence, our code in `data`. */
  async function expectTheirRefusal(res: Response, status?: number) {
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBeGreaterThanOrEqual(400);
    expect(res.status, text.slice(0, 300)).toBeLessThan(500);
    if (status) expect(res.status, text.slice(0, 300)).toBe(status);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ message: expect.any(String), data: { code: expect.any(String) } });
    return body as { message: string; data: { code: string; errors?: { field: string; message: string }[] } };
  }

  it('answers another account’s message, phone, webhook and export as not there, and changes nothing of theirs', async () => {
    const sent = await call(alice, 'POST', '/messages', { id: 'alice-1', message: 'Hi', phoneNumbers: ['+14155550111'] });
    expect(sent.status).toBe(202);
    const { id } = await readJson(sent);
    const [{ batch_id: batchId }] = await app.orm.em
      .fork()
      .execute('select our_id as batch_id from smsgate_ids where user_id = ? and ext_id = ?', [alice.account.userId, 'alice-1']);
    const hook = await call(alice, 'POST', '/webhooks', { id: 'alice-hook', url: receiver.url, event: 'sms:sent' });
    expect(hook.status).toBe(201);
    const before = await footprint(alice);

    for (const ref of [id, batchId]) {
      expect((await expectTheirRefusal(await call(bob, 'GET', `/messages/${ref}`), 404)).data.code).toBe('not_found');
      expect((await expectTheirRefusal(await call(bob, 'GET', `/message/${ref}`), 404)).data.code).toBe('not_found');
      expect((await expectTheirRefusal(await call(bob, 'DELETE', `/messages/${ref}`), 404)).data.code).toBe('not_found');
    }
    expect(await readJson(await call(bob, 'GET', '/messages'))).toEqual([]);
    await expectTheirRefusal(await call(bob, 'DELETE', `/devices/${alice.phone.id}`), 404);
    // Another account's webhook, or none: not there, as on /v1; Alice's stays.
    for (const ref of ['alice-hook', 'no-such-hook', '00000000-0000-4000-8000-000000000000']) {
      expect((await expectTheirRefusal(await call(bob, 'DELETE', `/webhooks/${ref}`), 404)).data.code).toBe('not_found');
    }
    expect(await readJson(await call(bob, 'GET', '/webhooks'))).toEqual([]);
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const until = new Date().toISOString();
    await expectTheirRefusal(await call(bob, 'POST', '/inbox/export', { deviceId: alice.phone.id, since, until }), 404);
    // A client id Bob chooses that Alice already uses is Bob's own, not a conflict with hers.
    expect((await call(bob, 'POST', '/messages', { id: 'alice-1', message: 'Hi', phoneNumbers: ['+14155550112'] })).status).toBe(202);

    expect(await footprint(alice)).toEqual(before);
    expect((await readJson(await call(alice, 'GET', '/webhooks'))).map((w: { id: string }) => w.id)).toEqual(['alice-hook']);
  });

  it('answers an id with a NUL as not there, like /v1, never a 500', async () => {
    for (const path of ['/messages/%00', '/message/a%00b', '/messages/%00abc', '/message/x%01y']) {
      const body = await expectTheirRefusal(await call(alice, 'GET', path), 404);
      expect(body.data.code, path).toBe('not_found');
    }
    expect((await app.fetch('/v1/messages/%00', { headers: { 'x-api-key': alice.key } })).status).toBe(404);
  });

  it('refuses a since that is not a timestamp with its own error only, on every inbox export path', async () => {
    const until = '2026-11-29T00:00:00Z';
    for (const path of ['/inbox/export', '/inbox/refresh', '/messages/inbox/export', '/message/inbox/export']) {
      for (const since of [1, {}, [], true, 'x', '2026-13-01T00:00:00Z']) {
        const refused = await expectTheirRefusal(await call(alice, 'POST', path, { since, until }), 400);
        expect(refused.data, `${path} since=${JSON.stringify(since)}`).toEqual({
          code: 'validation_failed',
          errors: [{ field: 'body.since', message: expect.stringContaining('since') }],
        });
      }
      // Both valid and in the wrong order: the order is the one problem.
      const backwards = await expectTheirRefusal(await call(alice, 'POST', path, { since: until, until: '2026-11-01T00:00:00Z' }), 400);
      expect(backwards.data.errors).toEqual([{ field: 'body.until', message: 'until must not be before since' }]);
    }
  });

  it('refuses malformed Basic credentials with 401 in their shape', async () => {
    const headers = [
      'Basic',
      'Basic !!!!',
      'Basic ====',
      'Basic a b',
      basic('no-colon-at-all'),
      basic('login:'),
      basic(':'),
      basic(''),
      basic('login:\u0000'),
      basic('login:\u00ff\u00fe'),
      `Basic ${Buffer.from([0x6c, 0x3a, 0xc3, 0x28, 0xff]).toString('base64')}`,
      basic(`login:${'k'.repeat(9_000)}`),
      `Basic ${'A'.repeat(12_000)}`,
      `Bearer ${'x'.repeat(4_000)}`,
      basic(`login:${alice.key}x`),
    ];
    for (const authorization of headers) {
      for (const path of ['/messages', '/settings', '/webhooks', '/devices', '/logs']) {
        const res = await app.fetch(`${INTEGRATOR_API}${path}`, { headers: { authorization } });
        const body = await expectTheirRefusal(res, 401);
        expect(body.data.code).toBe('unauthenticated');
      }
    }
    // Beyond the server's header limit the HTTP server refuses it before any route.
    const huge = await app.fetch(`${INTEGRATOR_API}/messages`, { headers: { authorization: `Basic ${'A'.repeat(70_000)}` } });
    expect(huge.status).toBe(431);
    // The one right key, whatever the login, passes.
    expect((await app.fetch(`${INTEGRATOR_API}/messages`, { headers: { authorization: basic(`x:y:${alice.key}`) } })).status).toBe(401);
    expect((await app.fetch(`${INTEGRATOR_API}/messages`, { headers: { authorization: basic(`anyone:${alice.key}`) } })).status).toBe(200);
  });

  it('decodes Basic credentials strictly and refuses two different keys', async () => {
    const good = Buffer.from(`login:${alice.key}`, 'latin1').toString('base64');
    const unpadded = good.replace(/=+$/, '');
    const variants = [
      `${good}=`,
      `${good}==`,
      `${good}====`,
      `=${good}`,
      `${good.slice(0, 4)}=${good.slice(4)}`,
      ...(unpadded !== good ? [unpadded] : [`${good.slice(0, -1)}`]),
      good.replace(/\+/g, '-').replace(/\//g, '_') === good ? `${good.slice(0, -4)}-_-_` : good.replace(/\+/g, '-').replace(/\//g, '_'),
      `${good.slice(0, 8)}!${good.slice(8)}`,
      `${good.slice(0, 8)}.${good.slice(9)}`,
    ];
    for (const encoded of variants) {
      const res = await app.fetch(`${INTEGRATOR_API}/messages`, { headers: { authorization: `Basic ${encoded}` } });
      expect((await expectTheirRefusal(res, 401)).data.code, encoded).toBe('unauthenticated');
    }
    // Stray bits after the last whole byte: the same bytes to a lenient decoder, not the canonical text.
    let login = 'login';
    while ((login.length + 1 + alice.key.length) % 3 !== 1) login += 'x';
    const padded = Buffer.from(`${login}:${alice.key}`, 'latin1').toString('base64');
    expect((await app.fetch(`${INTEGRATOR_API}/messages`, { headers: { authorization: `Basic ${padded}` } })).status).toBe(200);
    const last = padded.at(-3)!;
    const stray = `${padded.slice(0, -3)}${String.fromCharCode(last.charCodeAt(0) + 1)}==`;
    expect(Buffer.from(stray, 'base64').equals(Buffer.from(padded, 'base64'))).toBe(true);
    await expectTheirRefusal(await app.fetch(`${INTEGRATOR_API}/messages`, { headers: { authorization: `Basic ${stray}` } }), 401);
    expect((await app.fetch(`${INTEGRATOR_API}/messages`, { headers: { authorization: `Basic ${good}` } })).status).toBe(200);

    // Both X-Api-Key and Basic: the same key passes, two different keys are refused whichever is valid.
    const both = (apiKey: string, password: string) =>
      app.fetch(`${INTEGRATOR_API}/messages`, { headers: { authorization: basic(`login:${password}`), 'x-api-key': apiKey } });
    expect((await both(alice.key, alice.key)).status).toBe(200);
    for (const [apiKey, password] of [
      [alice.key, bob.key],
      [bob.key, alice.key],
      [alice.key, `${alice.key}x`],
      [`${alice.key}x`, alice.key],
    ]) {
      expect((await expectTheirRefusal(await both(apiKey, password), 401)).data.code).toBe('unauthenticated');
    }
    // Bearer and X-Api-Key with different keys: refused the same way.
    const bearer = await app.fetch(`${INTEGRATOR_API}/messages`, {
      headers: { authorization: `Bearer ${bob.key}`, 'x-api-key': alice.key },
    });
    await expectTheirRefusal(bearer, 401);
  });

  it('refuses settings out of any range with 400, nothing applied, the signing key kept', async () => {
    const before = await footprint(alice);
    const patches = [
      { messages: { sendIntervalMin: 1e12 } },
      { messages: { sendIntervalMin: 5, sendIntervalMax: 2 ** 40 } },
      { messages: { sendIntervalMin: 5 }, ping: { intervalSeconds: 1e15 } },
      { ping: { intervalSeconds: 86_400 * 365 } },
      { messages: { limitPeriod: 'PerMinute', limitValue: 2 ** 31 } },
      { messages: { limitPeriod: 'PerHour', limitValue: 1e9 } },
      { messages: { limitPeriod: 'PerDay', limitValue: 1e9 } },
      { messages: { simSelectionMode: 'Sequential' } },
      { messages: { processingOrder: 'Newest' } },
      { messages: { simSelectionMode: 'RoundRobin', processingOrder: 'LIFO', limitPeriod: 'Per30Minutes', limitValue: 5 } },
      { webhooks: { signingKey: 'a-good-new-signing-key' }, messages: { sendIntervalMin: 3 }, logs: { lifetimeDays: 3 } },
      { webhooks: { signingKey: 'a-good-new-signing-key' }, messages: { sendIntervalMin: 9, sendIntervalMax: 1 } },
      { messages: 'not an object' },
      { gateway: [1, 2] },
    ];
    for (const patch of patches) {
      for (const method of ['PATCH', 'PUT']) {
        const body = await expectTheirRefusal(await call(alice, method, '/settings', patch), 400);
        expect(JSON.stringify(body)).not.toContain('a-good-new-signing-key');
      }
    }
    expect(await footprint(alice)).toEqual(before);
  });

  it('writes nothing of a send when any part of it is refused', async () => {
    const before = await footprint(alice);
    const sends = [
      { id: 'half-1', message: 'Hi', phoneNumbers: ['+14155550121', 'not a number'] },
      { id: 'half-2', message: 'Hi', phoneNumbers: ['+14155550122'], deviceId: bob.phone.id },
      { id: 'half-3', message: 'Hi', phoneNumbers: ['+14155550123'], scheduleAt: '2999-01-01T00:00:00Z' },
      { id: 'half-4', message: 'Hi', phoneNumbers: ['+14155550124'], ttl: 60, validUntil: '2999-01-01T00:00:00Z' },
      { id: 'half-5', message: 'Hi', phoneNumbers: ['+14155550125'], simNumber: 9 },
      { id: 'half-6', message: 'x'.repeat(70_000), phoneNumbers: ['+14155550126'] },
      { id: 'half-7', textMessage: { text: 'Hi' }, dataMessage: { data: 'AA==', port: 53739 }, phoneNumbers: ['+14155550127'] },
    ];
    for (const send of sends) await expectTheirRefusal(await call(alice, 'POST', '/messages', send));
    // The rules of POST /v1/messages hold here too, named by their fields.
    const ours: [Record<string, unknown>, string][] = [
      [{ message: 'x'.repeat(BODY_MAX + 1) }, 'body.message'],
      [{ ttl: 10 ** 9 }, 'body.ttl'],
      [{ validUntil: '2999-01-01T00:00:00Z' }, 'body.ttl'],
      [{ scheduleAt: '2999-01-01T00:00:00Z' }, 'body.scheduleAt'],
      [{ phoneNumbers: ['+1415555012' + '0'.repeat(70)] }, 'body.phoneNumbers[0]'],
    ];
    for (const [change, field] of ours) {
      const send = { id: `rule-${field}`, message: 'Hi', phoneNumbers: ['+14155550129'], ...change };
      const refused = await expectTheirRefusal(await call(alice, 'POST', '/messages', send), 400);
      expect(refused.data).toMatchObject({ code: 'validation_failed', errors: [{ field, message: expect.any(String) }] });
    }
    expect(await footprint(alice)).toEqual(before);
  });

  it('never shows an API key or the signing key again, in any answer or log entry', async () => {
    const signingKey = 'hostile-test-signing-key-0042';
    expect((await call(alice, 'PATCH', '/settings', { webhooks: { signingKey } })).status).toBe(200);
    expect((await call(alice, 'POST', '/webhooks', { url: receiver.url, event: 'sms:delivered' })).status).toBe(201);
    for (const path of ['/settings', '/webhooks', '/logs', '/messages', '/devices']) {
      const text = await (await call(alice, 'GET', path)).text();
      expect(text).not.toContain(signingKey);
      expect(text).not.toContain(alice.key);
    }
    const patched = await (await call(alice, 'PATCH', '/settings', { webhooks: { signingKey } })).text();
    expect(patched).not.toContain(signingKey);
  });

  // The generated sweep: every route, each field given each hostile value, the rest valid.
  const VALUES: [string, unknown][] = [
    ['NUL', 'a\u0000b'],
    ['lone surrogate', 'a\ud800b'],
    ['empty', ''],
    ['100,000 characters', 'x'.repeat(100_000)],
    ['fraction', 1.5],
    ['2^40', 2 ** 40],
    ['-1e308', -1e308],
    ['true', true],
    ['null', null],
    ['array', ['a', 1]],
    ['object', { a: { b: [] } }],
    ['own toString', { toString: 1 }],
    ['hour 40', '2026-11-26T40:00:00Z'],
    ['SQL', "'; drop table users; --"],
  ];
  const RAW: string[] = ['a%00b', '%ED%A0%80', '', 'x'.repeat(4000), '1099511627776', '-1', '1e308', 'NaN', '%5B%5D', "'%20or%201%3D1--"];
  const RAW_IDS: string[] = [...RAW.filter((raw) => raw !== ''), '00000000-0000-4000-8000-000000000000', '..%2F..%2Fsettings'];

  const since = '2026-01-01T00:00:00Z';
  const BODIES: [string, string, Record<string, unknown>][] = [
    ['POST', '/messages', { id: 'sweep', message: 'Hi', phoneNumbers: ['+14155550131'], simNumber: 1, ttl: 60, priority: 0 }],
    ['POST', '/message', { textMessage: { text: 'Hi' }, phoneNumbers: ['+14155550132'], withDeliveryReport: true }],
    ['POST', '/webhooks', { id: 'sweep-hook', url: 'http://127.0.0.1:47001/sweep', event: 'sms:received', deviceId: null }],
    ['PATCH', '/settings', { messages: { sendIntervalMin: 1, sendIntervalMax: 2, limitPeriod: 'PerMinute', limitValue: 5 }, ping: { intervalSeconds: 120 } }],
    ['PUT', '/settings', { webhooks: { signingKey: 'a-sweep-signing-key-00' }, messages: { simSelectionMode: 'OSDefault' } }],
    ['POST', '/inbox/export', { since, until: '2026-01-02T00:00:00Z', messageTypes: ['SMS'] }],
    ['POST', '/inbox/refresh', { since, until: '2026-01-02T00:00:00Z' }],
  ];
  const QUERIES: [string, string[]][] = [
    ['/messages', ['from', 'to', 'state', 'deviceId', 'limit', 'offset', 'includeContent', 'sort']],
    ['/logs', ['from', 'to']],
  ];
  const ID_ROUTES: [string, string][] = [
    ['GET', '/messages/'],
    ['GET', '/message/'],
    ['DELETE', '/devices/'],
    ['DELETE', '/device/'],
    ['DELETE', '/webhooks/'],
    ['DELETE', '/messages/'],
  ];
  const WHOLE_BODIES = ['[1,2]', '"text"', 'null', '42', '{"a":', '{"__proto__":{"polluted":true}}', '['.repeat(10_000)];

  /** A field of a body given a value: top-level fields, and each field of a settings section. */
  function variants(body: Record<string, unknown>): [string, Record<string, unknown>][] {
    return Object.entries(body).flatMap(([name, field]) => {
      const top: [string, Record<string, unknown>][] = VALUES.map(([label, value]) => [`${name}=${label}`, { ...body, [name]: value }]);
      if (!field || typeof field !== 'object' || Array.isArray(field)) return top;
      const inner = Object.keys(field).flatMap((key): [string, Record<string, unknown>][] =>
        VALUES.map(([label, value]) => [`${name}.${key}=${label}`, { ...body, [name]: { ...field, [key]: value } }]),
      );
      return [...top, ...inner];
    });
  }

  it('answers hundreds of generated malformed requests across its routes with a 4xx in their shape, never a 5xx', async () => {
    const requests: { label: string; method: string; path: string; body?: string; writes: boolean }[] = [];
    for (const [method, path, body] of BODIES) {
      for (const [label, variant] of variants(body)) {
        requests.push({ label: `${method} ${path} ${label}`, method, path, body: JSON.stringify(variant), writes: true });
      }
      for (const raw of WHOLE_BODIES) requests.push({ label: `${method} ${path} body ${raw.slice(0, 20)}`, method, path, body: raw, writes: true });
    }
    for (const [path, names] of QUERIES) {
      for (const name of names) for (const raw of RAW) requests.push({ label: `GET ${path}?${name}=${raw.slice(0, 20)}`, method: 'GET', path: `${path}?${name}=${raw}`, writes: false });
    }
    for (const [method, path] of ID_ROUTES) {
      for (const raw of RAW_IDS) requests.push({ label: `${method} ${path}${raw.slice(0, 20)}`, method, path: `${path}${raw}`, writes: method !== 'GET' });
    }
    expect(requests.length).toBeGreaterThan(300);

    let refused = 0;
    for (const request of requests) {
      const before = request.writes ? await footprint(bob) : undefined;
      const res = await call(bob, request.method, request.path, request.body);
      const text = await res.text();
      expect(res.status, `${request.label}: ${text.slice(0, 300)}`).toBeLessThan(500);
      if (res.status < 400) {
        // Accepted as valid (e.g. a value their schema allows): undo what it made, so the next starts clean.
        await app.orm.em.fork().execute('delete from smsgate_ids where user_id = ?', [bob.account.userId]);
        continue;
      }
      refused++;
      expect(JSON.parse(text), request.label).toMatchObject({ message: expect.any(String), data: { code: expect.any(String) } });
      if (before) expect(await footprint(bob), request.label).toEqual(before);
    }
    expect(refused).toBeGreaterThan(requests.length / 2);
  });
});
