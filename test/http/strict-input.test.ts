import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import {
  createKey,
  json,
  PASSWORD,
  registerAccount,
  sessionCookie,
  uniqueEmail,
  type Account,
} from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, createPairingCode, pairPhone, type PairedPhone } from '../devices/helpers';

// Values of the wrong JSON type, and objects that bring their own toString or valueOf: each is a
// 422 naming the field, never a 500 and never quietly converted (false into "false", "0x10" into 16).

/** An object whose toString is not a function: yup's coercion called it and threw (a 500). */
const HOSTILE = { toString: 1 };
const HOSTILE_NUMBER = { valueOf: 1, toString: 1 };

async function expect422(res: Response, field: string, status = 422) {
  const body = await readJson(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body).toMatchObject({ code: 'validation_failed', status, message: expect.any(String) });
  expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
  return body;
}

describe('strict input types', () => {
  let app: TestApp;
  let account: Account;
  let key: string;
  let phone: PairedPhone;
  let messageId: string;
  const asKey = () => ({ 'x-api-key': key });

  beforeAll(async () => {
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    account = await registerAccount(app, { verified: true, plan: 'business' });
    key = await createKey(app, account);
    phone = await pairPhone(app, key);
    const sent = await readJson(
      await app.fetch('/v1/messages', json('POST', { body: 'hi', to: ['+14155550100'] }, asKey())),
    );
    messageId = sent.message_ids[0];
  });
  afterAll(() => app?.close());

  it('refuses an object with its own toString in every string field without credentials', async () => {
    const { code } = await createPairingCode(app, key);
    const cases: Array<[string, unknown, string]> = [
      ['/v1/auth/login', { email: HOSTILE, password: 'x' }, 'body.email'],
      ['/v1/auth/login', { email: 'a@example.test', password: HOSTILE }, 'body.password'],
      ['/v1/auth/register', { email: HOSTILE, password: PASSWORD }, 'body.email'],
      ['/v1/auth/register', { email: uniqueEmail(), password: PASSWORD, name: HOSTILE }, 'body.name'],
      ['/v1/auth/password-reset/request', { email: HOSTILE }, 'body.email'],
      ['/v1/auth/password-reset', { email: 'a@example.test', code: HOSTILE, new_password: PASSWORD }, 'body.code'],
      ['/v1/device/pair', { code: HOSTILE, hardware_key: 'hk' }, 'body.code'],
      ['/v1/device/pair', { code, hardware_key: 'hk', os_api_level: HOSTILE_NUMBER }, 'body.os_api_level'],
    ];
    for (const [path, body, field] of cases) await expect422(await app.fetch(path, json('POST', body)), field);
  });

  it.each(['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'])(
    'refuses a key named %s, which every object inherits, in a body, a nested object and a query string',
    async (name) => {
      // yup looked such a key up among the schema's fields (fields[key]) and found the inherited one.
      await expect422(
        await app.fetch('/v1/auth/login', json('POST', { [name]: 1, email: 'a@b.test', password: 'x' })),
        'body',
      );
      await expect422(
        await app.fetch(`/v1/devices/${phone.id}`, json('PATCH', { send_window: { [name]: 1 } }, asKey())),
        'body.send_window',
      );
      await expect422(await app.fetch(`/v1/messages?${name}=1`, { headers: asKey() }), 'query');
    },
  );

  it('refuses them in the SMSGate app registration and in every authenticated body', async () => {
    const { code } = await createPairingCode(app, key);
    // The screen before every route refuses the object, and the app's own schema a wrong type: both
    // as SMSGate's server does, with 400 (their handlers' ErrValidation), one status per API.
    const register = (body: unknown) =>
      app.fetch('/compat/smsgate/api/mobile/v1/device', json('POST', body, { authorization: `Bearer ${code}` }));
    await expect422(await register({ name: HOSTILE }), 'body.name', 400);
    await expect422(await register({ name: false }), 'body.name', 400);
    await expect422(
      await register({ simCards: [{ slotIndex: '0x1', simNumber: 1 }] }),
      'body.simCards[0].slotIndex',
      400,
    );
    const asPhone = bearer(phone.token);
    const cases: Array<[string, string, unknown, Record<string, string>, string]> = [
      ['POST', '/v1/messages', { body: HOSTILE, to: ['+14155550100'] }, asKey(), 'body.body'],
      ['POST', '/v1/messages', { body: 'x', to: [HOSTILE] }, asKey(), 'body.to[0]'],
      [
        'POST',
        '/v1/messages',
        { body: 'x', to: ['+14155550100'], sim_subscription_id: HOSTILE_NUMBER },
        asKey(),
        'body.sim_subscription_id',
      ],
      ['POST', '/v1/webhooks', { url: HOSTILE, events: ['ping'] }, asKey(), 'body.url'],
      ['PATCH', `/v1/devices/${phone.id}`, { name: HOSTILE }, asKey(), 'body.name'],
      ['PATCH', `/v1/devices/${phone.id}`, { enabled: HOSTILE }, asKey(), 'body.enabled'],
      ['POST', '/v1/device/heartbeat', { app_version_name: HOSTILE }, asPhone, 'body.app_version_name'],
      [
        'POST',
        '/v1/device/inbound',
        { body: 'x', sender: HOSTILE, received_at: new Date().toISOString() },
        asPhone,
        'body.sender',
      ],
      [
        'POST',
        `/v1/device/messages/${messageId}/status`,
        { status: 'sent', error_code: HOSTILE },
        asPhone,
        'body.error_code',
      ],
      ['PATCH', '/v1/auth/profile', { name: HOSTILE }, { cookie: account.cookie }, 'body.name'],
    ];
    for (const [method, path, body, headers, field] of cases) {
      await expect422(await app.fetch(path, json(method, body, headers)), field);
    }
  });

  it('converts nothing: false is not "false", "0x10" is not 16, 0 is not a timestamp', async () => {
    const asPhone = bearer(phone.token);
    const now = new Date().toISOString();
    const cases: Array<[string, string, unknown, Record<string, string>, string]> = [
      ['POST', '/v1/device/inbound', { body: false, sender: '+14155550100', received_at: now }, asPhone, 'body.body'],
      ['POST', '/v1/device/inbound', { body: 'x', sender: 14155550100, received_at: now }, asPhone, 'body.sender'],
      [
        'POST',
        '/v1/device/inbound',
        { body: 'x', sender: '+1415', received_at: now, sim_subscription_id: '0x10' },
        asPhone,
        'body.sim_subscription_id',
      ],
      ['POST', '/v1/device/inbound', { body: 'x', sender: '+1415', received_at: 0 }, asPhone, 'body.received_at'],
      ['POST', `/v1/device/messages/${messageId}/status`, { status: 'sent', at: 0 }, asPhone, 'body.at'],
      ['POST', '/v1/auth/login', { email: false, password: 'x' }, {}, 'body.email'],
      [
        'POST',
        '/v1/auth/login',
        { email: 'a@example.test', password: 'long enough!', turnstile_token: false },
        {},
        'body.turnstile_token',
      ],
      [
        'POST',
        '/v1/messages',
        { body: 'x', to: ['+14155550100'], sim_subscription_id: '16' },
        asKey(),
        'body.sim_subscription_id',
      ],
      ['PATCH', `/v1/devices/${phone.id}`, { enabled: 'true' }, asKey(), 'body.enabled'],
      ['PATCH', `/v1/devices/${phone.id}`, { send_delay_seconds: true }, asKey(), 'body.send_delay_seconds'],
    ];
    for (const [method, path, body, headers, field] of cases) {
      await expect422(await app.fetch(path, json(method, body, headers)), field);
    }
    // A query string is text: a number there is its decimal digits, and only those.
    await expect422(await app.fetch('/v1/device/outbox?limit=0x10', { headers: asPhone }), 'query.limit');
    await expect422(await app.fetch('/v1/device/outbox?limit=1e1', { headers: asPhone }), 'query.limit');
    expect((await app.fetch('/v1/device/outbox?limit=10', { headers: asPhone })).status).toBe(200);
  });

  it.each([
    ['an hour of 40', '2026-11-26T40:00:00Z'],
    ['November 31st', '2026-11-31T10:00:00Z'],
    ['February 29th of a common year', '2027-02-29T10:00:00Z'],
    ['a minute of 60', '2026-11-26T10:60:00Z'],
    ['an offset of +99:99', '2026-11-26T10:00:00+99:99'],
    ['an offset minute of 60', '2026-11-26T10:00:00+01:60'],
    ['no offset', '2026-11-26T10:00:00'],
    ['a date alone', '2026-11-26'],
    ['a space for the T', '2026-11-26 10:00:00Z'],
  ])('refuses a timestamp with %s instead of rolling it over', async (_what, at) => {
    const asPhone = bearer(phone.token);
    await expect422(
      await app.fetch(
        '/v1/device/inbound',
        json('POST', { body: 'x', sender: '+14155550100', received_at: at }, asPhone),
      ),
      'body.received_at',
    );
    await expect422(await app.fetch(`/v1/messages?from=${encodeURIComponent(at)}`, { headers: asKey() }), 'query.from');
  });

  it('takes every RFC 3339 timestamp: offsets up to ±23:59, fractions, a leap day, lower-case t and z', async () => {
    const asPhone = bearer(phone.token);
    for (const [at, utc] of [
      ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
      ['2026-11-26T10:00:00.123456+05:30', '2026-11-26T04:30:00.123Z'],
      ['2026-11-26T10:00:00-23:59', '2026-11-27T09:59:00.000Z'],
      ['2026-11-26t10:00:00z', '2026-11-26T10:00:00.000Z'],
    ]) {
      const res = await app.fetch(
        '/v1/device/inbound',
        json('POST', { body: `at ${at}`, sender: '+14155550100', received_at: at }, asPhone),
      );
      const body = await readJson(res);
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(body.message.received_at).toBe(utc);
    }
  });
});

describe('one control-character rule and one form of an email address', () => {
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    const account = await registerAccount(app, { verified: true, plan: 'business' });
    key = await createKey(app, account);
    await pairPhone(app, key);
  });
  afterAll(() => app?.close());

  it.each([
    ['NEL (U+0085)', '\u0085'],
    ['CSI (U+009B)', '\u009b'],
    ['U+0080', '\u0080'],
    ['U+009F', '\u009f'],
  ])('refuses the C1 control %s in a text, a name and an email address', async (_what, c1) => {
    const body = await expect422(
      await app.fetch('/v1/messages', json('POST', { body: `a${c1}b`, to: ['+14155550100'] }, { 'x-api-key': key })),
      'body.body',
    );
    expect(body.errors[0].message).toMatch(/control characters/);
    await expect422(
      await app.fetch(
        '/v1/webhooks',
        json('POST', { url: 'https://127.0.0.1/h', events: ['ping'], name: `n${c1}` }, { 'x-api-key': key }),
      ),
      'body.name',
    );
    await expect422(
      await app.fetch('/v1/auth/register', json('POST', { email: `someone@example.com${c1}`, password: PASSWORD })),
      'body.email',
    );
  });

  it('keeps tab, line feed and carriage return, and printable Latin-1 (U+00A0 and up)', async () => {
    const res = await app.fetch(
      '/v1/messages',
      json('POST', { body: 'a\tb\r\nc\u00a0d é', to: ['+14155550100'] }, { 'x-api-key': key }),
    );
    expect(res.status).toBe(202);
  });

  it('signs in with an address however it is written: full-width letters, invisible characters, case', async () => {
    const local = `norm-${Date.now()}`;
    const registered = await app.fetch(
      '/v1/auth/register',
      json('POST', { email: `\uff2e${local.slice(1)}\u200b@Example.TEST`, password: PASSWORD }),
    );
    expect(registered.status).toBe(201);
    expect((await readJson(registered)).user.email).toBe(`${local}@example.test`);
    for (const written of [
      `${local}@example.test`,
      `${local.toUpperCase()}@EXAMPLE.TEST`,
      `${local}\u2060@example.test`,
    ]) {
      const res = await app.fetch('/v1/auth/login', json('POST', { email: written, password: PASSWORD }));
      expect(res.status, written).toBe(200);
    }
    // The same address again, written another way, is the same account.
    const again = await app.fetch(
      '/v1/auth/register',
      json('POST', { email: `${local}\u200d@example.test`, password: PASSWORD }),
    );
    expect(again.status).toBe(409);
  });

  it('still signs in an account stored before that form, with its address as it was written', async () => {
    const stored = `old-\uff4c${Date.now()}\u200b@example.test`;
    const registered = await app.fetch('/v1/auth/register', json('POST', { email: uniqueEmail(), password: PASSWORD }));
    const { user } = await readJson(registered);
    // As the service stored addresses before: trimmed and lower-cased only.
    await app.orm.em.fork().execute('update users set email = ? where id = ?', [stored, user.id]);
    const res = await app.fetch('/v1/auth/login', json('POST', { email: stored, password: PASSWORD }));
    expect(res.status).toBe(200);
    expect((await readJson(res)).user.id).toBe(user.id);
    expect(sessionCookie(res)).toMatch(/^sid=/);
  });
});
