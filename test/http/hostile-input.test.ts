import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, json, PASSWORD, registerAccount, sessionCookie, type Account } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';

const ERROR_BODY = { code: expect.any(String), message: expect.any(String), status: expect.any(Number) };

/** Every refusal is a 4xx in the interface's error body; validation names the fields it refuses. */
async function expectRefusal(res: Response, status: number, fields: string[] = []) {
  const body = await readJson(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body).toMatchObject({ ...ERROR_BODY, status });
  if (fields.length > 0)
    expect(body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(fields));
  for (const error of body.errors ?? []) {
    expect(error.message).not.toMatch(/`|final value|this must/);
  }
  return body;
}

/** One raw request over a fresh socket: whatever fetch refuses to send (TRACE, huge headers). */
function rawExchange(url: string, payload: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(payload));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parseRaw(raw: string) {
  const [head, body] = raw.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) };
}

describe('hostile input', () => {
  let app: TestApp;
  let account: Account;
  let key: string;
  let phone: PairedPhone;
  const asKey = () => ({ 'x-api-key': key });

  beforeAll(async () => {
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    account = await registerAccount(app, { verified: true, plan: 'business' });
    key = await createKey(app, account);
    phone = await pairPhone(app, key);
  });
  afterAll(() => app?.close());

  const count = async (table: string) =>
    Number(
      (await app.orm.em.fork().execute(`select count(*) as n from ${table} where user_id = ?`, [account.userId]))[0].n,
    );

  describe('text Postgres or a phone cannot carry', () => {
    it.each([
      ['a NUL', 'a\u0000b', /NUL or other control characters/],
      ['an escape character', 'a\u001bb', /NUL or other control characters/],
      ['a lone high surrogate', 'a\ud800b', /lone surrogate/],
      ['a lone low surrogate', '\udc00', /lone surrogate/],
    ])('refuses %s in a text, a webhook, an inbound SMS, a phone and its heartbeat', async (_what, bad, message) => {
      const before = await count('messages');
      const send = await expectRefusal(
        await app.fetch('/v1/messages', json('POST', { body: bad, to: ['+14155550100'] }, asKey())),
        422,
        ['body.body'],
      );
      expect(send.errors[0].message).toMatch(message);
      await expectRefusal(
        await app.fetch(
          '/v1/webhooks',
          json('POST', { url: 'https://127.0.0.1/h', events: ['message.sent'], name: bad }, asKey()),
        ),
        422,
        ['body.name'],
      );
      const inbound = { body: 'hi', received_at: new Date().toISOString(), sender: '+14155550111' };
      await expectRefusal(
        await app.fetch('/v1/device/inbound', json('POST', { ...inbound, sender: bad }, bearer(phone.token))),
        422,
        ['body.sender'],
      );
      await expectRefusal(
        await app.fetch('/v1/device/inbound', json('POST', { ...inbound, body: bad }, bearer(phone.token))),
        422,
        ['body.body'],
      );
      await expectRefusal(await app.fetch(`/v1/devices/${phone.id}`, json('PATCH', { name: bad }, asKey())), 422, [
        'body.name',
      ]);
      await expectRefusal(
        await app.fetch(
          '/v1/device/heartbeat',
          json('POST', { telemetry: { battery: { note: bad } } }, bearer(phone.token)),
        ),
        422,
        ['body.telemetry.battery.note'],
      );
      await expectRefusal(
        await app.fetch('/v1/device/heartbeat', json('POST', { telemetry: { [`k${bad}`]: 1 } }, bearer(phone.token))),
        422,
        ['body.telemetry'],
      );
      await expectRefusal(
        await app.fetch('/v1/device/heartbeat', json('POST', { sims: [{ carrier: bad }] }, bearer(phone.token))),
        422,
        ['body.sims[0].carrier'],
      );
      expect(await count('messages')).toBe(before);
    });

    it('refuses a NUL or an escape in the q search as a query field', async () => {
      await expectRefusal(await app.fetch('/v1/messages?q=a%00b', { headers: asKey() }), 422, ['query.q']);
      await expectRefusal(await app.fetch('/v1/messages?q=%1B', { headers: asKey() }), 422, ['query.q']);
      // Bytes that are not UTF-8 decode to U+FFFD, which is text like any other.
      expect((await app.fetch('/v1/messages?q=%ED%A0%80', { headers: asKey() })).status).toBe(200);
    });

    it('keeps tabs, line breaks and emoji', async () => {
      const res = await app.fetch(`/v1/devices/${phone.id}`, json('PATCH', { name: 'Line\tone 📱' }, asKey()));
      expect(res.status).toBe(200);
      expect((await readJson(res)).device.name).toBe('Line\tone 📱');
    });
  });

  describe('structure', () => {
    it('refuses 100,000 levels of nesting without walking them', async () => {
      for (const body of [
        '['.repeat(100_000) + ']'.repeat(100_000),
        '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000),
      ]) {
        const res = await app.fetch('/v1/messages', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...asKey() },
          body,
        });
        const refused = await expectRefusal(res, 422, ['body']);
        expect(refused.errors[0].message).toMatch(/nested too deeply/);
      }
    });

    it('bounds free-form telemetry and SIM lists in size and depth', async () => {
      const big = { blob: 'x'.repeat(900_000) };
      const sized = await expectRefusal(
        await app.fetch('/v1/device/heartbeat', json('POST', { telemetry: big }, bearer(phone.token))),
        422,
        ['body.telemetry'],
      );
      expect(sized.errors[0].message).toMatch(/at most 8192 bytes/);
      await expectRefusal(
        await app.fetch(
          '/v1/device/heartbeat',
          json('POST', { telemetry: { a: { b: { c: { d: { e: { f: 1 } } } } } } }, bearer(phone.token)),
        ),
        422,
        ['body.telemetry'],
      );
      await expectRefusal(
        await app.fetch(
          '/v1/device/heartbeat',
          json('POST', { sims: Array.from({ length: 17 }, () => ({})) }, bearer(phone.token)),
        ),
        422,
        ['body.sims'],
      );
      const ok = await app.fetch(
        '/v1/device/heartbeat',
        json(
          'POST',
          { telemetry: { battery: { level: 80 } }, sims: [{ subscription_id: 1, carrier: 'T' }] },
          bearer(phone.token),
        ),
      );
      expect(ok.status).toBe(200);
    });

    it('keeps prototype keys harmless', async () => {
      const raw = (body: string) =>
        app.fetch('/v1/device/heartbeat', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(phone.token) },
          body,
        });
      await expectRefusal(await raw('{"telemetry":{"__proto__":{"polluted":true}}}'), 400);
      await expectRefusal(await raw('{"telemetry":{"constructor":{"prototype":{"polluted":true}}}}'), 422, [
        'body.telemetry',
      ]);
      await expectRefusal(await raw('{"telemetry":{"constructor":1}}'), 422, ['body.telemetry']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('names the field and the type it wants, never quoting the value', async () => {
      const array = await expectRefusal(await app.fetch('/v1/webhooks', json('POST', ['1', '2'], asKey())), 422, [
        'body',
      ]);
      expect(array.errors[0].message).toBe('body must be an object');
      const to = await expectRefusal(
        await app.fetch('/v1/messages', json('POST', { body: 'x', to: { a: 1 } }, asKey())),
        422,
        ['body.to'],
      );
      expect(to.errors[0].message).toBe('to must be an array');
    });
  });

  describe('wrong types', () => {
    it.each([
      [
        'POST /v1/auth/register',
        '/v1/auth/register',
        { email: ['a@b.c'], password: 'correct horse battery' },
        'body.email',
      ],
      [
        'POST /v1/auth/register',
        '/v1/auth/register',
        { email: 'x@example.test', password: 'correct horse battery', name: { a: 1 } },
        'body.name',
      ],
      ['POST /v1/auth/password-reset/request', '/v1/auth/password-reset/request', { email: { a: 1 } }, 'body.email'],
      ['POST /v1/auth/password-reset/request', '/v1/auth/password-reset/request', { email: [1, 2] }, 'body.email'],
      ['POST /v1/auth/login', '/v1/auth/login', { email: [1], password: 'x' }, 'body.email'],
    ])('%s with a non-string field is 422 naming it', async (_name, path, body, field) => {
      await expectRefusal(await app.fetch(path, json('POST', body)), 422, [field]);
    });

    it('POST /v1/api-keys with a non-string name is 422 naming it, and creates no key', async () => {
      const before = await count('api_keys');
      for (const name of [['a'], { a: 1 }, [1, 2]]) {
        await expectRefusal(await app.fetch('/v1/api-keys', json('POST', { name }, { cookie: account.cookie })), 422, [
          'body.name',
        ]);
      }
      expect(await count('api_keys')).toBe(before);
    });
  });

  describe('numbers and lengths', () => {
    it.each([2 ** 40, 1e308, -1, 1.5])(
      'refuses sim_subscription_id %s naming it, with a phone that could take the send',
      async (value) => {
        const before = await count('messages');
        await expectRefusal(
          await app.fetch(
            '/v1/messages',
            json('POST', { body: 'x', to: ['+14155550100'], sim_subscription_id: value }, asKey()),
          ),
          422,
          ['body.sim_subscription_id'],
        );
        await expectRefusal(
          await app.fetch(
            '/v1/device/inbound',
            json(
              'POST',
              { body: 'hi', received_at: new Date().toISOString(), sender: '+1415', sim_subscription_id: value },
              bearer(phone.token),
            ),
          ),
          422,
          ['body.sim_subscription_id'],
        );
        expect(await count('messages')).toBe(before);
      },
    );

    it.each([
      ['heartbeat_interval_minutes', 2 ** 40],
      ['send_delay_seconds', 1e308],
      ['preferred_sim_subscription_id', 2 ** 31],
    ])('refuses %s of %s on a phone', async (field, value) => {
      await expectRefusal(await app.fetch(`/v1/devices/${phone.id}`, json('PATCH', { [field]: value }, asKey())), 422, [
        `body.${field}`,
      ]);
    });

    it.each([
      ['app_version_code', 2 ** 40],
      ['os_api_level', 1e308],
    ])('refuses %s of %s in a heartbeat', async (field, value) => {
      await expectRefusal(
        await app.fetch('/v1/device/heartbeat', json('POST', { [field]: value }, bearer(phone.token))),
        422,
        [`body.${field}`],
      );
    });

    it('refuses limits beyond int32 in the query', async () => {
      await expectRefusal(await app.fetch('/v1/messages?limit=1099511627776', { headers: asKey() }), 422, [
        'query.limit',
      ]);
      await expectRefusal(await app.fetch('/v1/device/outbox?limit=1e308', { headers: bearer(phone.token) }), 422, [
        'query.limit',
      ]);
    });

    it('refuses overlong strings in every kind of field with its own limit', async () => {
      const long = 'x'.repeat(5000);
      const inbound = { body: 'hi', received_at: new Date().toISOString(), sender: '+1415' };
      const cases: [string, string, unknown, Record<string, string>, string][] = [
        ['POST', '/v1/messages', { body: 'x'.repeat(1601), to: ['+14155550100'] }, asKey(), 'body.body'],
        ['POST', '/v1/messages', { body: 'x', to: [long] }, asKey(), 'body.to[0]'],
        [
          'POST',
          '/v1/webhooks',
          { url: 'https://127.0.0.1/h', events: ['message.sent'], name: long },
          asKey(),
          'body.name',
        ],
        ['POST', '/v1/device/inbound', { ...inbound, fingerprint: long }, bearer(phone.token), 'body.fingerprint'],
        ['POST', '/v1/device/heartbeat', { os_version: long }, bearer(phone.token), 'body.os_version'],
        ['POST', '/v1/auth/login', { email: 'a@b.c', password: long }, {}, 'body.password'],
        [
          'POST',
          '/v1/auth/register',
          { email: 'a@b.c', password: 'correct horse battery', turnstile_token: long },
          {},
          'body.turnstile_token',
        ],
      ];
      for (const [method, path, body, headers, field] of cases) {
        await expectRefusal(await app.fetch(path, json(method, body, headers)), 422, [field]);
      }
      await expectRefusal(await app.fetch(`/v1/messages?cursor=${long}`, { headers: asKey() }), 422, ['query.cursor']);
    });
  });

  describe('cookies from a foreign Origin', () => {
    it('refuses a logout from another site, and the session lives on; the dashboard origin logs out', async () => {
      const login = await app.fetch('/v1/auth/login', json('POST', { email: account.email, password: PASSWORD }));
      const cookie = sessionCookie(login);
      const foreign = await app.fetch('/v1/auth/logout', {
        method: 'POST',
        headers: { cookie, origin: 'https://evil.example' },
      });
      expect(await expectRefusal(foreign, 403)).toMatchObject({ code: 'origin_mismatch' });
      expect(foreign.headers.getSetCookie()).toEqual([]);
      const viaReferer = await app.fetch('/v1/auth/logout', {
        method: 'POST',
        headers: { cookie, referer: 'https://evil.example/page' },
      });
      await expectRefusal(viaReferer, 403);
      expect((await app.fetch('/v1/auth/me', { headers: { cookie } })).status).toBe(200);

      const own = await app.fetch('/v1/auth/logout', {
        method: 'POST',
        headers: { cookie, origin: new URL(app.config.publicUrl).origin },
      });
      expect(own.status).toBe(204);
      expect((await app.fetch('/v1/auth/me', { headers: { cookie } })).status).toBe(401);
      // Without a cookie there is nothing to protect: logout always succeeds.
      expect(
        (await app.fetch('/v1/auth/logout', { method: 'POST', headers: { origin: 'https://evil.example' } })).status,
      ).toBe(204);
    });
    it('takes the dashboard at another loopback name of the same port, and refuses another port', async () => {
      const own = new URL(app.config.publicUrl);
      expect(['localhost', '127.0.0.1', '[::1]']).toContain(own.hostname);
      const alias = new URL(own.origin);
      alias.hostname = own.hostname === '127.0.0.1' ? 'localhost' : '127.0.0.1';
      const otherPort = new URL(alias.origin);
      otherPort.port = String(Number(own.port || 80) + 1);
      const logout = async (origin: string) => {
        const login = await app.fetch('/v1/auth/login', json('POST', { email: account.email, password: PASSWORD }));
        const cookie = sessionCookie(login);
        return app.fetch('/v1/auth/logout', { method: 'POST', headers: { cookie, origin } });
      };
      expect((await logout(otherPort.origin)).status).toBe(403);
      expect((await logout(alias.origin)).status).toBe(204);
    });
  });

  describe('cookies that do not say where they come from', () => {
    it('refuses a change on a session with no Origin, Referer or Sec-Fetch-Site, and takes each from the dashboard', async () => {
      const login = await app.fetch('/v1/auth/login', json('POST', { email: account.email, password: PASSWORD }));
      const cookie = sessionCookie(login);
      const dashboard = new URL(app.config.publicUrl).origin;
      // Straight to the server: app.fetch would add the dashboard's Origin as a browser does.
      const raw = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
        fetch(`${app.url}${path}`, {
          method,
          headers: { 'x-forwarded-for': app.clientIp, 'content-type': 'application/json', cookie, ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const keyCount = async () => (await readJson(await raw('GET', '/v1/api-keys'))).data.length;
      const before = await keyCount();

      // None of the three: refused, nothing made, the session still signed in.
      for (const [method, path, body] of [
        ['POST', '/v1/api-keys', { name: 'csrf' }],
        ['POST', '/v1/auth/logout', undefined],
        ['PATCH', '/v1/auth/profile', { name: 'csrf' }],
        ['POST', '/v1/auth/sessions/revoke-others', undefined],
        ['DELETE', '/v1/api-keys/00000000-0000-4000-8000-000000000000', undefined],
      ] as const) {
        const refused = await raw(method, path, {}, body);
        expect(await expectRefusal(refused, 403), `${method} ${path}`).toMatchObject({ code: 'origin_required' });
        expect(refused.headers.getSetCookie()).toEqual([]);
      }
      // Foreign or opaque: refused as from another origin.
      for (const headers of <Record<string, string>[]>[
        { origin: 'null' },
        { origin: 'https://evil.example' },
        { referer: 'https://evil.example/page' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        // The Origin decides before the Referer and Sec-Fetch-Site.
        { origin: 'https://evil.example', referer: `${dashboard}/keys`, 'sec-fetch-site': 'same-origin' },
      ]) {
        const refused = await raw('POST', '/v1/api-keys', headers, { name: 'csrf' });
        expect(await expectRefusal(refused, 403), JSON.stringify(headers)).toMatchObject({ code: 'origin_mismatch' });
      }
      expect(await keyCount()).toBe(before);
      expect((await raw('GET', '/v1/auth/me')).status).toBe(200);

      // Each of the three from the dashboard is enough.
      for (const headers of <Record<string, string>[]>[
        { origin: dashboard },
        { referer: `${dashboard}/keys` },
        { 'sec-fetch-site': 'same-origin' },
      ]) {
        expect((await raw('POST', '/v1/api-keys', headers, { name: 'csrf' })).status, JSON.stringify(headers)).toBe(
          201,
        );
      }
      expect(await keyCount()).toBe(before + 3);
      // An API key proves itself; it needs no Origin.
      const made = await fetch(`${app.url}/v1/webhooks`, {
        headers: { 'x-api-key': key, 'x-forwarded-for': app.clientIp },
      });
      expect(made.status).toBe(200);
      expect((await raw('POST', '/v1/auth/logout', { 'sec-fetch-site': 'same-origin' })).status).toBe(204);
      expect((await raw('GET', '/v1/auth/me')).status).toBe(401);
    });
  });

  describe('methods, encodings and sizes', () => {
    it.each(['TRACE', 'PROPFIND', 'MKCOL', 'PURGE'])(
      'answers %s with 405, Allow and the error body',
      async (method) => {
        const raw = await rawExchange(
          app.url,
          `${method} /v1/webhooks HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nConnection: close\r\n\r\n`,
        );
        const { status, head, body } = parseRaw(raw);
        expect(status).toBe(405);
        expect(head).toMatch(/\r\nAllow: [A-Z, ]*GET/i);
        expect(body).toEqual({ code: 'method_not_allowed', message: expect.any(String), status: 405 });
      },
    );

    it('answers a known method the route lacks with 405 and the methods it has', async () => {
      const res = await app.fetch('/v1/webhooks', { method: 'PUT', headers: asKey() });
      await expectRefusal(res, 405);
      expect(res.headers.get('allow')).toMatch(/GET.*POST|POST.*GET/);
    });

    it('answers a method Node does not parse, and CONNECT, with 405', async () => {
      for (const line of ['FOOBAR /v1/webhooks HTTP/1.1', 'CONNECT example.com:443 HTTP/1.1']) {
        const { status, body } = parseRaw(await rawExchange(app.url, `${line}\r\nHost: x\r\n\r\n`));
        expect(status).toBe(405);
        expect(body).toMatchObject({ code: 'method_not_allowed', status: 405 });
      }
    });

    it('decodes a gzip body, refuses a corrupt one with 400 and an unknown encoding with 415', async () => {
      const headers = { 'content-type': 'application/json', ...asKey() };
      const hook = { url: 'https://127.0.0.1/gz', events: ['message.sent'], name: 'gzip' };
      const valid = await app.fetch('/v1/webhooks', {
        method: 'POST',
        headers: { ...headers, 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify(hook)),
      });
      expect(valid.status).toBe(201);
      for (const [encoding, encoded] of [
        ['deflate', deflateSync(JSON.stringify({ ...hook, name: 'deflate' }))],
        ['br', brotliCompressSync(JSON.stringify({ ...hook, name: 'br' }))],
      ] as const) {
        const res = await app.fetch('/v1/webhooks', {
          method: 'POST',
          headers: { ...headers, 'content-encoding': encoding },
          body: encoded,
        });
        expect(res.status).toBe(201);
        expect((await readJson(res)).webhook.name).toBe(encoding);
      }
      const before = await count('webhooks');
      await expectRefusal(
        await app.fetch('/v1/webhooks', {
          method: 'POST',
          headers: { ...headers, 'content-encoding': 'gzip' },
          body: 'not gzip at all',
        }),
        400,
      );
      await expectRefusal(
        await app.fetch('/v1/webhooks', {
          method: 'POST',
          headers: { ...headers, 'content-encoding': 'gzip' },
          body: gzipSync(JSON.stringify(hook)).subarray(0, 20),
        }),
        400,
      );
      await expectRefusal(
        await app.fetch('/v1/webhooks', {
          method: 'POST',
          headers: { ...headers, 'content-encoding': 'br' },
          body: 'not brotli at all, really',
        }),
        400,
      );
      await expectRefusal(
        await app.fetch('/v1/webhooks', {
          method: 'POST',
          headers: { ...headers, 'content-encoding': 'compress' },
          body: JSON.stringify(hook),
        }),
        415,
      );
      expect(await count('webhooks')).toBe(before);
    });

    it('compares Content-Encoding without regard to case', async () => {
      const hook = { url: 'https://127.0.0.1/upper', events: ['message.sent'], name: 'upper case' };
      for (const encoding of ['GZIP', 'Gzip', ' gzip ']) {
        const res = await app.fetch('/v1/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-encoding': encoding, ...asKey() },
          body: gzipSync(JSON.stringify(hook)),
        });
        expect(res.status, encoding).toBe(201);
      }
    });

    it.each([
      ['/v1/auth/sessions/revoke-others', 'POST', 'DELETE'],
      ['/v1/devices/pairing-codes', 'POST', 'GET'],
      ['/v1/webhooks/deliveries', 'GET', 'DELETE'],
    ])('allows on %s the methods of that route alone (%s, not %s of its /{id} sibling)', async (path, own, sibling) => {
      const options = await app.fetch(path, { method: 'OPTIONS', headers: asKey() });
      expect(options.status).toBe(204);
      const allowed = options.headers.get('allow')!.split(/,\s*/);
      expect(allowed).toContain(own);
      expect(allowed).not.toContain(sibling);
      expect(allowed).not.toContain('PATCH');

      const wrong = await app.fetch(path, { method: sibling, headers: { ...asKey(), cookie: account.cookie } });
      await expectRefusal(wrong, 405);
      expect(wrong.headers.get('allow')).toBe(options.headers.get('allow')!.replace(/, OPTIONS$/, ''));
    });

    it('still routes /{id} paths, and answers OPTIONS there with their own methods', async () => {
      const res = await app.fetch(`/v1/webhooks/deliveries/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, {
        method: 'OPTIONS',
        headers: asKey(),
      });
      expect(res.headers.get('allow')).toBe('HEAD, GET, OPTIONS');
      const sessions = await app.fetch(`/v1/auth/sessions/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, {
        method: 'DELETE',
        headers: { cookie: account.cookie },
      });
      expect(sessions.status).toBe(404);
    });

    it('answers a 100 KB header with 431 and a 74 KB URL with 414, in the error body', async () => {
      const header = await rawExchange(
        app.url,
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`,
      );
      expect(parseRaw(header)).toMatchObject({ status: 431, body: { code: 'header_fields_too_large', status: 431 } });
      const url = await rawExchange(app.url, `GET /v1/messages?q=${'a'.repeat(74_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(parseRaw(url)).toMatchObject({ status: 414, body: { code: 'uri_too_long', status: 414 } });
    });

    it('answers the same through an ordinary HTTP client', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${app.url}/healthz`, { headers: { 'x-big': 'a'.repeat(100_000) } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(431);
    });
  });
});
