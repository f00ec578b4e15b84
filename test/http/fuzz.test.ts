import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUZZ_ENV, startTestApp, type TestApp } from '../support/app';
import { createKey, json, PASSWORD, registerAccount, sessionCookie, type Account } from '../support/accounts';
import { isErrorBody, readJson } from '../support/http';
import { createTimeSkippingEnv } from '../support/temporal';
import { bearer, createPairingCode, pairPhone, type PairedPhone } from '../devices/helpers';

// Walks every operation of the served /v1/openapi.json and sends hostile values for each path
// parameter, query parameter and body field (one at a time, the rest of the request valid), with
// credentials of the kind the operation declares. Whatever comes back: no 5xx, every error in the
// interface's shape, and a refused request writes nothing of the account's. Seeded: the same
// requests every run.

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(20261123);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** Text from a mix of what breaks things: controls, lone surrogates, emoji, quotes, plain letters. */
function junkText(length: number): string {
  const pieces = [
    '\u0000',
    '\u0007',
    '\u001b',
    '\u007f',
    '\ud800',
    '\udfff',
    '😀',
    '\u202e',
    "'",
    '"',
    '\\',
    '%',
    'a',
    'Z',
    ' ',
  ];
  return Array.from({ length }, () => pick(pieces)).join('');
}

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

/** n distinct items of `pool`, chosen by the seeded generator. */
function sample<T>(pool: readonly T[], n: number): T[] {
  const left = [...pool];
  return Array.from({ length: Math.min(n, left.length) }, () => left.splice(Math.floor(random() * left.length), 1)[0]);
}

// Every field gets the core values and a seeded sample of the others: all of them for every field
// would take minutes, and the sample varies which field meets which.
const CORE_VALUES: [string, unknown][] = [
  ['NUL', 'a\u0000b'],
  ['lone surrogate', 'a\ud800b'],
  ['escape sequence', '\u001b[2J'],
  ['empty', ''],
  ['100,000 characters', 'x'.repeat(100_000)],
  ['fraction', 1.5],
  ['2^40', 2 ** 40],
  ['1e308', 1e308],
  ['true', true],
  ['null', null],
  ['array of strings', ['a', 'b']],
  ['empty object', {}],
  ['__proto__ key', JSON.parse('{"__proto__":{"polluted":true}}')],
  ['40 levels', nested(40)],
  // yup's coercion called these (a 500), or turned them into something else.
  ['own toString', { toString: 1 }],
  ['own valueOf', { valueOf: 1, toString: 1 }],
  ['C1 control NEL', 'a\u0085b'],
  ['C1 CSI', '\u009b2J'],
  ['hex number', '0x10'],
  ['hour 40', '2026-11-26T40:00:00Z'],
  ['offset +99:99', '2026-11-26T10:00:00+99:99'],
];
const MORE_VALUES: [string, unknown][] = [
  ['NUL alone', '\u0000'],
  ['lone low surrogate', '\udfff'],
  ['DEL', 'x\u007f'],
  ['blank', '   '],
  ['4,000 emoji', '😀'.repeat(4000)],
  ['SQL', "'; drop table users; --"],
  ['template', '${jndi:ldap://x}{{7*7}}'],
  ['zero', 0],
  ['negative', -1],
  ['2^31', 2 ** 31],
  ['-2^53', -(2 ** 53)],
  ['-1e308', -1e308],
  ['false', false],
  ['empty array', []],
  ['array with null', [null]],
  ['array of objects', [{}, { a: 1 }]],
  ['constructor.prototype', JSON.parse('{"constructor":{"prototype":{"polluted":true}}}')],
  ['1,000 keys', Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]))],
  ['junk text', junkText(24)],
  ['long junk text', junkText(300)],
];
const hostileValues = (): [string, unknown][] => [...CORE_VALUES, ...sample(MORE_VALUES, 4)];

/** Hostile raw query or path values (already percent-encoded where they need to be). */
const CORE_RAW: [string, string][] = [
  ['NUL', 'a%00b'],
  ['escape', '%1B%5B2J'],
  ['invalid UTF-8', '%ED%A0%80'],
  ['empty', ''],
  ['8,000 characters', 'x'.repeat(8000)],
  ['2^40', '1099511627776'],
  ['1e308', '1e308'],
  ['uuid of nothing', '00000000-0000-4000-8000-000000000000'],
  ['hex number', '0x10'],
  ['C1 control NEL', 'a%C2%85b'],
  ['November 31st', '2026-11-31T10%3A00%3A00Z'],
];
const MORE_RAW: [string, string][] = [
  ['NUL alone', '%00'],
  ['bad escape', '%zz'],
  ['negative', '-1'],
  ['fraction', '1.5'],
  ['NaN', 'NaN'],
  ['true', 'true'],
  ['null', 'null'],
  ['brackets', '%5B%5D'],
  ['SQL', "'%20or%201%3D1--"],
  ['path', '..%2F..%2Fetc%2Fpasswd'],
  ['emoji', encodeURIComponent('😀'.repeat(50))],
];
const hostileRaw = (): [string, string][] => [...CORE_RAW, ...sample(MORE_RAW, 3)];

/** Whole bodies that are not an object. */
const HOSTILE_BODIES: [string, string][] = [
  ['array', '[1,2]'],
  ['string', '"text"'],
  ['null', 'null'],
  ['number', '42'],
  ['truncated', '{"a":'],
  ['100,000 levels', '['.repeat(100_000) + ']'.repeat(100_000)],
  ['__proto__', '{"__proto__":{"polluted":true}}'],
];

type Security = Record<string, string[]>[];
interface FieldSchema {
  type?: string | string[];
  format?: string;
}
interface OpenApiOperation {
  security?: Security;
  parameters?: { name: string; in: 'query' | 'path'; schema?: FieldSchema }[];
  requestBody?: { content: { 'application/json': { schema: { properties?: Record<string, FieldSchema> } } } };
}

/** The JSON type of a value, as a schema's `type` names it. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const CONTROL_TEXT =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|%(0[0-8BCEF]|1[0-9A-F]|7F|C2%[89][0-9A-F])/i;
const BAD_TIMESTAMPS = new Set(['hour 40', 'offset +99:99', 'November 31st']);

/**
 * Whether the document's schema refuses the value outright: a JSON type it does not list (nothing is
 * converted: false is not "false", an object not its toString), a control character anywhere, a
 * timestamp that would roll over, a hex number in an integer query parameter.
 */
function mustRefuse(label: string, value: unknown, schema: FieldSchema | undefined, raw = false): boolean {
  if (typeof value === 'string' && CONTROL_TEXT.test(value)) return true;
  if (!schema?.type) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.format === 'date-time' && BAD_TIMESTAMPS.has(label)) return true;
  if (raw) return label === 'hex number' && types.includes('integer');
  const type = jsonType(value);
  return !(types.includes(type) || (type === 'integer' && types.includes('number')));
}

describe('fuzzing every operation of /v1/openapi.json', () => {
  let env: TestWorkflowEnvironment;
  let app: TestApp;
  let account: Account;
  let key: string;
  let phone: PairedPhone;
  const ids: Record<string, string> = {};
  let document: { paths: Record<string, Record<string, OpenApiOperation>> };

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    app = await startTestApp({ temporal: env.client, env: FUZZ_ENV });
    account = await registerAccount(app, { verified: true, plan: 'business' });
    key = await createKey(app, account);
    phone = await pairPhone(app, key);
    // A second key and session to rename and end, and one of everything a path can name.
    const spareKey = await readJson(
      await app.fetch('/v1/api-keys', json('POST', { name: 'spare' }, { cookie: account.cookie })),
    );
    ids['api-keys'] = spareKey.api_key.id;
    const login = await app.fetch('/v1/auth/login', json('POST', { email: account.email, password: PASSWORD }));
    const sessions = await readJson(
      await app.fetch('/v1/auth/sessions', { headers: { cookie: sessionCookie(login) } }),
    );
    ids.sessions = sessions.data[0].id;
    ids.devices = phone.id;
    ids['pairing-codes'] = (await createPairingCode(app, key)).id;
    const hook = await readJson(
      await app.fetch(
        '/v1/webhooks',
        json('POST', { url: 'https://127.0.0.1:1/h', events: ['message.sent'] }, { 'x-api-key': key }),
      ),
    );
    ids.webhooks = hook.webhook.id;
    const sent = await readJson(
      await app.fetch('/v1/messages', json('POST', { body: 'hello', to: ['+14155550100'] }, { 'x-api-key': key })),
    );
    ids.batches = sent.batch.id;
    const batch = await readJson(await app.fetch(`/v1/batches/${ids.batches}`, { headers: { 'x-api-key': key } }));
    ids.messages = batch.messages[0].id;
    document = await readJson(await app.fetch('/v1/openapi.json'));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await env?.teardown();
  });

  /** A valid body for each operation that takes one; the fuzzer changes one field at a time. */
  function baseBody(method: string, path: string): Record<string, unknown> {
    const now = new Date().toISOString();
    const bodies: Record<string, Record<string, unknown>> = {
      'post /v1/messages': { body: 'hello', to: ['+14155550100'] },
      'post /v1/device/pair': { code: 'NOTACODE', hardware_key: 'hw-fuzz' },
      'post /v1/device/push-token': { token: 'push-token' },
      'post /v1/device/messages/{id}/status': { status: 'sent' },
      'post /v1/device/inbound': { body: 'hi', received_at: now, sender: '+14155550199' },
      'post /v1/webhooks': { url: 'https://127.0.0.1:1/h', events: ['message.sent'] },
      'post /v1/api-keys': { name: 'fuzz' },
      'patch /v1/api-keys/{id}': { name: 'fuzz' },
      'post /v1/auth/login': { email: account.email, password: 'wrong password!' },
      'post /v1/auth/register': { email: 'fuzz@example.test', password: PASSWORD },
      'post /v1/auth/password': { current_password: 'not the password', new_password: PASSWORD },
      'post /v1/auth/password-reset/request': { email: 'nobody@example.test' },
      'post /v1/auth/password-reset': { email: 'nobody@example.test', code: '000000', new_password: PASSWORD },
      'post /v1/auth/verify-email': { code: '000000' },
    };
    return bodies[`${method} ${path}`] ?? {};
  }

  function credentials(security: Security | undefined): Record<string, string> {
    const kinds = new Set((security ?? []).flatMap((alternative) => Object.keys(alternative)));
    if (kinds.has('apiKey')) return { 'x-api-key': key };
    if (kinds.has('deviceToken')) return bearer(phone.token);
    if (kinds.has('session')) return { cookie: account.cookie };
    return {};
  }

  /** The id of a real resource of the kind the segment before {id} names (deliveries: none exists). */
  const idFor = (path: string) =>
    ids[path.split('/{id}')[0].split('/').pop()!] ?? '00000000-0000-4000-8000-000000000000';

  /** The account's rows and last changes: a refused request must leave all of it as it was. */
  async function fingerprint(): Promise<string> {
    const [row] = await app.orm.em.fork().execute(
      `select (select count(*) from messages where user_id = $1) as messages,
              (select count(*) from batches where user_id = $1) as batches,
              (select count(*) from webhooks where user_id = $1) as webhooks,
              (select max(updated_at) from webhooks where user_id = $1) as webhooks_changed,
              (select count(*) from devices where user_id = $1) as devices,
              (select max(updated_at) from devices where user_id = $1) as devices_changed,
              (select count(*) from api_keys where user_id = $1) as api_keys,
              (select string_agg(name, ',' order by id) from api_keys where user_id = $1) as key_names,
              (select count(*) from sessions where user_id = $1 and revoked_at is null) as sessions,
              (select password_hash || coalesce(name, '') from users where id = $1) as user_row`.replace(/\$1/g, '?'),
      Array(10).fill(account.userId),
    );
    return JSON.stringify(row);
  }

  it('answers every hostile request with a 2xx or a 4xx in the error shape, writing nothing when refusing', async () => {
    const started = Date.now();
    const problems: string[] = [];
    let requests = 0;
    let ipCounter = 0;
    let baseline = await fingerprint();

    async function send(
      label: string,
      method: string,
      url: string,
      headers: Record<string, string>,
      body?: string,
      refuse = false,
    ): Promise<void> {
      const unsafe = method !== 'get';
      // Every request its own client address, so per-IP abuse limits do not hide what follows.
      ipCounter++;
      const res = await app.fetch(url, {
        method: method.toUpperCase(),
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          'x-forwarded-for': `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`,
        },
        body,
        redirect: 'manual',
      });
      requests++;
      const text = await res.text();
      // What the account looked like after the previous request, against what it looks like now.
      const before = baseline;
      if (unsafe) baseline = await fingerprint();

      const where = `${label} → ${res.status} ${text.slice(0, 200)}`;
      if (res.status >= 500) return void problems.push(`5xx: ${where}`);
      if (res.status < 400) {
        if (refuse) problems.push(`accepted what the document refuses: ${where}`);
        return;
      }
      let error: Record<string, unknown>;
      try {
        error = JSON.parse(text);
      } catch {
        return void problems.push(`not JSON: ${where}`);
      }
      if (!isErrorBody(error, res.status)) problems.push(`shape: ${where}`);
      if (/final value was|must be a `/.test(text)) problems.push(`raw yup message: ${where}`);
      if (unsafe && baseline !== before) problems.push(`refused but wrote: ${where}`);
    }

    type Planned = [
      label: string,
      method: string,
      url: string,
      headers: Record<string, string>,
      body?: string,
      refuse?: boolean,
    ];
    const planned: Planned[] = [];
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThan(40);
    for (const { path, method, op } of operations) {
      const headers = credentials(op.security);
      const realPath = path.replace('{id}', idFor(path));
      const base = baseBody(method, path);
      const properties = op.requestBody?.content['application/json'].schema.properties ?? {};
      const bodyFields = Object.keys(properties);
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      const baseText = op.requestBody ? JSON.stringify(base) : undefined;
      const name = `${method} ${path}`;

      if (path.includes('{id}')) {
        for (const [label, raw] of hostileRaw()) {
          planned.push([`${name} id=${label}`, method, path.replace('{id}', raw || '%20'), headers, baseText]);
        }
      }
      for (const { name: param, schema } of query) {
        for (const [label, raw] of hostileRaw()) {
          planned.push([
            `${name} ?${param}=${label}`,
            method,
            `${realPath}?${param}=${raw}`,
            headers,
            baseText,
            mustRefuse(label, raw, schema, true),
          ]);
        }
        planned.push([`${name} ?${param} twice`, method, `${realPath}?${param}=a&${param}=b`, headers, baseText]);
      }
      if (op.requestBody) {
        for (const field of bodyFields) {
          for (const [label, value] of hostileValues()) {
            planned.push([
              `${name} ${field}=${label}`,
              method,
              realPath,
              headers,
              JSON.stringify({ ...base, [field]: value }),
              mustRefuse(label, value, properties[field]),
            ]);
          }
        }
        for (const [label, raw] of HOSTILE_BODIES)
          planned.push([`${name} body=${label}`, method, realPath, headers, raw]);
      }
    }

    // Reads write nothing the fingerprint sees, so they run alongside, a few at a time; writes run one
    // by one, each compared with the account as the previous one left it.
    const reads = planned.filter(([, method]) => method === 'get');
    const writes = planned.filter(([, method]) => method !== 'get');
    const lane = async (items: Planned[]) => {
      while (items.length > 0) await send(...items.shift()!);
    };
    await Promise.all([lane(writes), lane(reads), lane(reads), lane(reads)]);

    expect(problems.slice(0, 30)).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Enough to have walked everything, and bounded by construction (about 20 s on a quiet 2-core
    // machine); the timeout below only covers a machine shared with other test runs.
    expect(requests).toBeGreaterThan(1500);
    expect(requests).toBeLessThan(6000);
    console.info(`fuzz: ${requests} requests in ${Date.now() - started} ms`);
  }, 180_000);
});
