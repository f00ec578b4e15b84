import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app';
import { MOBILE_API, registeredApp, tenant } from './helpers';
import { smsReceived, systemPing, type FakeApp } from './fake-app';

// The SMSGate app's mobile API and its phone webhook under a generated sweep: each route's body
// with each field given each hostile value (the rest as the app sends it), whole bodies that are not
// what the app sends, and hostile ids. Whatever comes back: never a 5xx, every error in our shape,
// and a validation error is 400 there (one status per API, as their server answers).

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
  ['hour 40', '2026-11-26T40:00:00+03:00'],
];
const WHOLE_BODIES = ['[1,2]', '"text"', 'null', '42', '{"a":', '{"__proto__":{"polluted":true}}', '['.repeat(10_000)];

describe('the SMSGate mobile API under a generated sweep', () => {
  let app: TestApp;
  let phone: FakeApp;

  beforeAll(async () => {
    app = await startTestApp();
    const { key } = await tenant(app);
    phone = await registeredApp(app, key);
  });
  afterAll(() => app?.close());

  function variants(body: Record<string, unknown>): [string, unknown][] {
    return Object.entries(body).flatMap(([name, field]) => {
      const top: [string, unknown][] = VALUES.map(([label, value]) => [`${name}=${label}`, { ...body, [name]: value }]);
      const inner =
        field && typeof field === 'object' && !Array.isArray(field)
          ? Object.keys(field).flatMap((k): [string, unknown][] =>
              VALUES.map(([label, value]) => [`${name}.${k}=${label}`, { ...body, [name]: { ...field, [k]: value } }]),
            )
          : Array.isArray(field) && field[0] && typeof field[0] === 'object'
            ? Object.keys(field[0]).flatMap((k): [string, unknown][] =>
                VALUES.map(([label, value]) => [`${name}[0].${k}=${label}`, { ...body, [name]: [{ ...field[0], [k]: value }] }]),
              )
            : [];
      return [...top, ...inner];
    });
  }

  it('answers hundreds of generated malformed requests with a 4xx in our shape, validation as 400, never a 5xx', async () => {
    const token = phone.state.registration!.token;
    const deviceId = phone.state.registration!.id;
    const at = '2026-11-26T10:00:00.000+03:00';
    const BODIES: [string, string, unknown][] = [
      ['POST', '/device', { name: 'Google/sdk', pushToken: null, simCards: [{ slotIndex: 0, simNumber: 1, carrier: 'T' }] }],
      ['PATCH', '/device', { id: deviceId, pushToken: 'tok', simCards: [{ slotIndex: 0, simNumber: 1 }] }],
      [
        'PATCH',
        '/message',
        [{ id: randomUUID(), state: 'Sent', recipients: [{ phoneNumber: '+14155550101', state: 'Sent', error: null }], states: { Sent: at } }],
      ],
    ];
    const requests: { label: string; method: string; path: string; body?: string; headers: Record<string, string> }[] = [];
    const auth = { authorization: `Bearer ${token}` };
    for (const [method, path, body] of BODIES) {
      const headers = path === '/device' && method === 'POST' ? { authorization: 'Bearer NOTACODE' } : auth;
      const list = Array.isArray(body) ? variants(body[0] as Record<string, unknown>).map(([l, v]): [string, unknown] => [l, [v]]) : variants(body as Record<string, unknown>);
      for (const [label, variant] of list) requests.push({ label: `${method} ${path} ${label}`, method, path: `${MOBILE_API}${path}`, body: JSON.stringify(variant), headers });
      for (const raw of WHOLE_BODIES) requests.push({ label: `${method} ${path} body ${raw.slice(0, 20)}`, method, path: `${MOBILE_API}${path}`, body: raw, headers });
    }
    for (const query of ['order=x', 'order=%00', 'order=lifo&order=fifo', `order=${'x'.repeat(4000)}`]) {
      requests.push({ label: `GET /message?${query.slice(0, 20)}`, method: 'GET', path: `${MOBILE_API}/message?${query}`, headers: auth });
    }
    // The phone webhook, signed with the phone's key: each field of what the app sends, hostile.
    const sign = (raw: string) => {
      const ts = String(Math.floor(app.clock.now().getTime() / 1000));
      return { 'x-timestamp': ts, 'x-signature': createHmac('sha256', phone.state.signingKey!).update(raw + ts).digest('hex') };
    };
    const envelope = (event: string, payload: unknown) => ({ id: randomUUID(), webhookId: 'h', deviceId, event, payload });
    const received = smsReceived({ sender: '+15551230101', text: 'hi', receivedAt: app.clock.now() });
    for (const [label, variant] of [
      ...variants(envelope('sms:received', received)),
      ...variants(received as Record<string, unknown>).map(([l, v]): [string, unknown] => [`payload.${l}`, envelope('sms:received', v)]),
      ...variants(systemPing() as Record<string, unknown>).map(([l, v]): [string, unknown] => [`ping.${l}`, envelope('system:ping', v)]),
    ]) {
      const raw = JSON.stringify(variant);
      requests.push({ label: `webhook ${label}`, method: 'POST', path: `/compat/smsgate/webhooks/${deviceId}`, body: raw, headers: sign(raw) });
    }
    for (const id of ['a%00b', 'x'.repeat(4000), '00000000-0000-4000-8000-000000000000', '..%2F..%2Fdevice']) {
      requests.push({ label: `webhook id ${id.slice(0, 20)}`, method: 'POST', path: `/compat/smsgate/webhooks/${id}`, body: '{}', headers: sign('{}') });
    }
    expect(requests.length).toBeGreaterThan(300);

    let refused = 0;
    for (const request of requests) {
      const res = await app.fetch(request.path, {
        method: request.method,
        headers: { 'content-type': 'application/json', ...request.headers },
        body: request.body,
      });
      const text = await res.text();
      expect(res.status, `${request.label}: ${text.slice(0, 300)}`).toBeLessThan(500);
      if (res.status < 400) continue;
      refused++;
      const body = JSON.parse(text);
      expect(body, request.label).toMatchObject({ code: expect.any(String), message: expect.any(String), status: res.status });
      expect(res.status, `${request.label}: ${text.slice(0, 300)}`).not.toBe(422);
    }
    expect(refused).toBeGreaterThan(requests.length / 2);
  });
});
