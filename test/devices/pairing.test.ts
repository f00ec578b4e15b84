import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { createKey, json } from '../support/accounts';
import { readJson } from '../support/http';
import { MOBILE_API } from '../../src/compat/smsgate/mobile.routes';
import { accountWithKey, bearer, createPairingCode, pairPhone } from './helpers';

const MINUTE = 60_000;

describe('pairing phones', () => {
  let app: TestApp;
  const clock = testClock();

  beforeAll(async () => {
    app = await startTestApp({ clock, env: { PUBLIC_URL: 'https://sms.example.test' } });
  });
  afterAll(() => app?.close());

  const pair = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    app.fetch('/v1/device/pair', json('POST', body, headers));

  it('issues a single-use 8-character code with a deep link and the SMSGate app URL, valid 10 minutes', async () => {
    const { key } = await accountWithKey(app);
    const res = await app.fetch('/v1/devices/pairing-codes', json('POST', undefined, { 'x-api-key': key }));
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(Object.keys(body).sort()).toEqual(['code', 'expires_at', 'id', 'pair_url', 'smsgate_api_url']);
    expect(body.code).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/);
    expect(new Date(body.expires_at).getTime()).toBe(clock.now().getTime() + 10 * MINUTE);
    const url = new URL(body.pair_url);
    expect(url.protocol).toBe('phonegateway:');
    expect(url.searchParams.get('code')).toBe(body.code);
    expect(url.searchParams.get('server')).toBe('https://sms.example.test');
    // What the SMSGate app's Cloud server screen takes as its API URL: built from PUBLIC_URL.
    expect(body.smsgate_api_url).toBe('https://sms.example.test/compat/smsgate/api/mobile/v1');

    const status = await app.fetch(`/v1/devices/pairing-codes/${body.id}`, { headers: { 'x-api-key': key } });
    expect(await readJson(status)).toEqual({ consumed: false, device: null, expires_at: body.expires_at });
  });

  it('pairs a phone with the code: 201 with the device and a token that works at once', async () => {
    const { key } = await accountWithKey(app);
    const { code, id } = await createPairingCode(app, key);
    const res = await pair({
      code: code.toLowerCase(),
      hardware_key: 'hw-pair-1',
      name: 'Office phone',
      brand: 'google',
      manufacturer: 'Google',
      model: 'Pixel 8',
      build_id: 'AP1A',
      os_version: '14',
      os_api_level: 34,
      app_version_code: 42,
      app_version_name: '1.4.2',
      push_token: 'fcm-token-1',
    });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(body.device_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(body.device).toMatchObject({
      name: 'Office phone',
      brand: 'google',
      manufacturer: 'Google',
      model: 'Pixel 8',
      os_version: '14',
      os_api_level: 34,
      app_version_code: 42,
      app_version_name: '1.4.2',
      enabled: true,
      is_default: true,
      online: true,
      heartbeat_interval_minutes: 15,
    });
    expect(JSON.stringify(body.device)).not.toMatch(/hw-pair-1|fcm-token-1|hash/);

    const me = await app.fetch('/v1/device', { headers: bearer(body.device_token) });
    expect(me.status).toBe(200);
    expect((await readJson(me)).device.id).toBe(body.device.id);

    const status = await readJson(
      await app.fetch(`/v1/devices/pairing-codes/${id}`, { headers: { 'x-api-key': key } }),
    );
    expect(status.consumed).toBe(true);
    expect(status.device.id).toBe(body.device.id);

    // Storage itself: only the hash is stored.
    const [row] = await app.orm.em.fork().execute('select token_hash from devices where id = ?', [body.device.id]);
    expect(row.token_hash).not.toContain(body.device_token);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a wrong, a used and an expired code with 400 invalid_code', async () => {
    const { key } = await accountWithKey(app);
    const wrong = await pair({ code: 'ZZZZZZZZ', hardware_key: 'hw-x' });
    expect(wrong.status).toBe(400);
    expect(await readJson(wrong)).toMatchObject({ code: 'invalid_code', status: 400 });

    const { code } = await createPairingCode(app, key);
    expect((await pair({ code, hardware_key: 'hw-used-1' })).status).toBe(201);
    const used = await pair({ code, hardware_key: 'hw-used-2' });
    expect(used.status).toBe(400);
    expect((await readJson(used)).code).toBe('invalid_code');

    const expiring = await createPairingCode(app, key);
    clock.advance(10 * MINUTE);
    const expired = await pair({ code: expiring.code, hardware_key: 'hw-late' });
    expect(expired.status).toBe(400);
    expect((await readJson(expired)).code).toBe('invalid_code');
  });

  it('consumes a code once when two phones race for it', async () => {
    const { key } = await accountWithKey(app, 'pro');
    const { code } = await createPairingCode(app, key);
    const results = await Promise.all([1, 2, 3, 4].map((n) => pair({ code, hardware_key: `hw-race-${n}` })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400]);
  });

  it('finds the same device on a repeat pairing of the same hardware key and revokes the old token', async () => {
    const { key } = await accountWithKey(app);
    const first = await pairPhone(app, key, { hardware_key: 'hw-repeat' });
    const second = await pairPhone(app, key, { hardware_key: 'hw-repeat' });
    expect(second.id).toBe(first.id);
    expect(second.token).not.toBe(first.token);
    expect((await app.fetch('/v1/device', { headers: bearer(first.token) })).status).toBe(401);
    expect((await app.fetch('/v1/device', { headers: bearer(second.token) })).status).toBe(200);
    const list = await readJson(await app.fetch('/v1/devices', { headers: { 'x-api-key': key } }));
    expect(list.data.map((d: { id: string }) => d.id)).toEqual([first.id]);
  });

  it('re-pairs an unpaired device with the same hardware key as the same row', async () => {
    const { key } = await accountWithKey(app);
    const first = await pairPhone(app, key, { hardware_key: 'hw-back' });
    expect(
      (await app.fetch(`/v1/devices/${first.id}`, { method: 'DELETE', headers: { 'x-api-key': key } })).status,
    ).toBe(204);
    const again = await pairPhone(app, key, { hardware_key: 'hw-back' });
    expect(again.id).toBe(first.id);
    expect(again.device.is_default).toBe(true);
    expect((await app.fetch(`/v1/devices/${first.id}`, { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('enforces the plan device limit only when a new hardware key pairs (free plan: 1)', async () => {
    const { key } = await accountWithKey(app);
    await pairPhone(app, key, { hardware_key: 'hw-limit-1' });
    const { code, id } = await createPairingCode(app, key);
    const refused = await pair({ code, hardware_key: 'hw-limit-2' });
    expect(refused.status).toBe(429);
    expect(await readJson(refused)).toMatchObject({ code: 'plan_limit_devices', status: 429 });
    // Nothing was written: the code is still unused, and a repeat of the known phone still pairs with it.
    const status = await readJson(
      await app.fetch(`/v1/devices/pairing-codes/${id}`, { headers: { 'x-api-key': key } }),
    );
    expect(status.consumed).toBe(false);
    expect((await pair({ code, hardware_key: 'hw-limit-1' })).status).toBe(201);

    // An unpaired phone no longer counts, and re-pairing it counts it again.
    const list = await readJson(await app.fetch('/v1/devices', { headers: { 'x-api-key': key } }));
    await app.fetch(`/v1/devices/${list.data[0].id}`, { method: 'DELETE', headers: { 'x-api-key': key } });
    await pairPhone(app, key, { hardware_key: 'hw-limit-2' });
    const third = await createPairingCode(app, key);
    expect((await pair({ code: third.code, hardware_key: 'hw-limit-1' })).status).toBe(429);
  });

  it('limits wrong codes per address: 20 per 10 minutes, then 429, but a right code still pairs', async () => {
    const { key } = await accountWithKey(app);
    const from = { 'x-forwarded-for': '192.0.2.77' };
    for (let i = 0; i < 20; i++)
      expect((await pair({ code: 'WRONG234', hardware_key: 'hw-brute' }, from)).status).toBe(400);
    const limited = await pair({ code: 'WRONG235', hardware_key: 'hw-brute' }, from);
    expect(limited.status).toBe(429);
    expect(await readJson(limited)).toMatchObject({ code: 'rate_limited' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Someone else's guesses behind the same address do not keep a person from pairing: a right,
    // unexpired code pairs, and is single use after that.
    const { code } = await createPairingCode(app, key);
    expect((await pair({ code, hardware_key: 'hw-shared-address' }, from)).status).toBe(201);
    expect((await pair({ code, hardware_key: 'hw-shared-address' }, from)).status).toBe(429);
    // Another address is not affected, and the window passes.
    expect((await pair({ code: 'WRONG234', hardware_key: 'hw-brute' }, { 'x-forwarded-for': '192.0.2.78' })).status).toBe(400);
    clock.advance(10 * MINUTE);
    expect((await pair({ code: 'WRONG234', hardware_key: 'hw-brute' }, from)).status).toBe(400);
  });

  /** A wrong code that names `code` (its first three characters) but is not it. */
  const nearMiss = (code: string, i: number) => {
    const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
    const tail = [...'2345'].map((_, j) => alphabet[(i * 7 + j * 3) % alphabet.length]).join('');
    const guess = `${code.slice(0, 3)}${tail}${code.at(-1) === 'Z' ? 'Y' : 'Z'}`;
    return guess === code ? `${code.slice(0, 3)}${tail}X` : guess;
  };

  it('voids a code after 5 wrong guesses that name it, from any number of addresses', async () => {
    clock.advance(10 * MINUTE);
    const { key } = await accountWithKey(app);
    const { code, id } = await createPairingCode(app, key);
    for (let i = 0; i < 5; i++) {
      const res = await pair({ code: nearMiss(code, i), hardware_key: 'hw-guess' }, { 'x-forwarded-for': `198.51.100.${i + 1}` });
      expect(res.status).toBe(400);
    }
    // The right code, from an address with no wrong guess of its own: void now, as if wrong.
    const refused = await pair({ code, hardware_key: 'hw-owner' }, { 'x-forwarded-for': '198.51.100.200' });
    expect(refused.status).toBe(400);
    expect(await readJson(refused)).toMatchObject({ code: 'invalid_code' });
    const status = await app.fetch(`/v1/devices/pairing-codes/${id}`, { headers: { 'x-api-key': key } });
    expect(await readJson(status)).toMatchObject({ consumed: false, device: null });
    // A new code of the same account pairs.
    const fresh = await createPairingCode(app, key);
    expect((await pair({ code: fresh.code, hardware_key: 'hw-owner' }, { 'x-forwarded-for': '198.51.100.200' })).status).toBe(201);
  });

  it('voids an account’s codes after 20 wrong guesses that name them, and leaves other accounts’ alone', async () => {
    clock.advance(10 * MINUTE);
    const { key } = await accountWithKey(app);
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await createPairingCode(app, key)).code);
    // Four per code (under the per-code limit), twenty in all, each from its own address.
    for (let i = 0; i < 20; i++) {
      const res = await pair({ code: nearMiss(codes[i % 5], i), hardware_key: 'hw-guess' }, { 'x-forwarded-for': `203.0.113.${i + 1}` });
      expect(res.status).toBe(400);
    }
    const right = await pair({ code: codes[0], hardware_key: 'hw-owner' }, { 'x-forwarded-for': '203.0.113.200' });
    expect(right.status).toBe(400);
    const { code: afterwards } = await createPairingCode(app, key);
    expect((await pair({ code: afterwards, hardware_key: 'hw-owner' }, { 'x-forwarded-for': '203.0.113.200' })).status).toBe(400);
    // Another account's code is not affected; and this account's pair again once the window passes.
    const other = await accountWithKey(app);
    const { code: theirs } = await createPairingCode(app, other.key);
    expect((await pair({ code: theirs, hardware_key: 'hw-other' }, { 'x-forwarded-for': '203.0.113.201' })).status).toBe(201);
    clock.advance(10 * MINUTE);
    const { code: later } = await createPairingCode(app, key);
    expect((await pair({ code: later, hardware_key: 'hw-owner' }, { 'x-forwarded-for': '203.0.113.200' })).status).toBe(201);
  });

  it('lets a code live up to 30 minutes when asked, as the dashboard asks: time to type it on a phone', async () => {
    const { key } = await accountWithKey(app);
    const create = (body: unknown) => app.fetch('/v1/devices/pairing-codes', json('POST', body, { 'x-api-key': key }));
    const res = await create({ expires_in_minutes: 30 });
    expect(res.status).toBe(201);
    const long = await readJson(res);
    expect(new Date(long.expires_at).getTime()).toBe(clock.now().getTime() + 30 * MINUTE);
    // Still good after the 10 minutes a code lives when none is asked for; over at 30.
    clock.advance(29 * MINUTE);
    expect((await pair({ code: long.code, hardware_key: 'hw-slow-typist' })).status).toBe(201);
    const late = await readJson(await create({ expires_in_minutes: 30 }));
    clock.advance(30 * MINUTE);
    expect((await pair({ code: late.code, hardware_key: 'hw-too-slow' })).status).toBe(400);

    for (const [body, field] of [
      [{ expires_in_minutes: 31 }, 'body.expires_in_minutes'],
      [{ expires_in_minutes: 0 }, 'body.expires_in_minutes'],
      [{ expires_in_minutes: '30' }, 'body.expires_in_minutes'],
    ] as const) {
      const refused = await create(body);
      expect(refused.status).toBe(422);
      expect(await readJson(refused)).toMatchObject({
        code: 'validation_failed',
        status: 422,
        errors: [{ field, message: expect.any(String) }],
      });
    }
  });

  describe('refused attempts, told to the account whose code was tried', () => {
    const refusals = async (key: string, query = '') => {
      const res = await app.fetch(`/v1/devices/pairing-refusals${query}`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      return (await readJson(res)) as {
        data: { id: string; pairing_code_id: string; reason: string; attempts: number; last_attempt_at: string }[];
        next_cursor?: string;
      };
    };
    const summary = async (key: string) =>
      (await refusals(key)).data.map((r) => `${r.pairing_code_id}:${r.reason}:${r.attempts}`).sort();
    /** The first three characters of `code` (which name it), the rest wrong. */
    const typo = (code: string) => code.slice(0, 3) + (code.endsWith('22222') ? '33333' : '22222');

    it('records wrong, used, expired, rate-limited and device-limit refusals, and nothing of the typed code', async () => {
      clock.advance(10 * MINUTE);
      const { key } = await accountWithKey(app);
      const from = (n: number) => ({ 'x-forwarded-for': `192.0.2.${100 + n}` });

      // Wrong: the first three characters name the code, the rest is mistyped. Counted, one line.
      const live = await createPairingCode(app, key);
      expect((await pair({ code: typo(live.code), hardware_key: 'hw-r' }, from(1))).status).toBe(400);
      expect(await summary(key)).toEqual([`${live.id}:wrong:1`]);
      expect((await pair({ code: typo(live.code).toLowerCase(), hardware_key: 'hw-r' }, from(1))).status).toBe(400);
      expect(await summary(key)).toEqual([`${live.id}:wrong:2`]);

      // Used: it paired a phone already.
      const used = await createPairingCode(app, key);
      expect((await pair({ code: used.code, hardware_key: 'hw-r1' }, from(2))).status).toBe(201);
      expect((await pair({ code: used.code, hardware_key: 'hw-r2' }, from(2))).status).toBe(400);

      // Device limit (free plan: one phone): the code stays unused, and the refusal says why.
      const full = await createPairingCode(app, key);
      expect((await pair({ code: full.code, hardware_key: 'hw-r3' }, from(3))).status).toBe(429);

      // Expired: its 10 minutes are over.
      const old = await createPairingCode(app, key);
      clock.advance(10 * MINUTE);
      expect((await pair({ code: old.code, hardware_key: 'hw-r4' }, from(4))).status).toBe(400);

      expect(await summary(key)).toEqual(
        [`${live.id}:wrong:2`, `${used.id}:used:1`, `${full.id}:device_limit:1`, `${old.id}:expired:1`].sort(),
      );

      // A code that names none of the account's codes cannot be told to it: nothing more is listed.
      const firsts = new Set([live, used, full, old].map((c) => c.code.slice(0, 3)));
      const madeUp = firsts.has('ZZZ') ? 'YYYYYYYY' : 'ZZZZZZZZ';
      expect((await pair({ code: madeUp, hardware_key: 'hw-r5' }, from(5))).status).toBe(400);
      expect((await refusals(key)).data).toHaveLength(4);

      // Rate limited, at the code: five wrong guesses void it, and then the right code is refused too.
      const guessed = await createPairingCode(app, key);
      for (let i = 0; i < 5; i++) {
        expect((await pair({ code: typo(guessed.code), hardware_key: 'hw-g' }, from(10 + i))).status).toBe(400);
      }
      expect((await pair({ code: guessed.code, hardware_key: 'hw-r6' }, from(20))).status).toBe(400);
      // And at the phone's network: past its 20 wrong codes, a used code tried from it is 429.
      for (let i = 0; i < 20; i++) {
        expect((await pair({ code: madeUp, hardware_key: 'hw-net' }, from(30))).status).toBe(400);
      }
      expect((await pair({ code: used.code, hardware_key: 'hw-net' }, from(30))).status).toBe(429);
      expect(await summary(key)).toEqual(
        [
          `${live.id}:wrong:2`,
          `${used.id}:used:1`,
          `${used.id}:rate_limited:1`,
          `${full.id}:device_limit:1`,
          `${old.id}:expired:1`,
          `${guessed.id}:wrong:5`,
          `${guessed.id}:rate_limited:1`,
        ].sort(),
      );

      // Storage itself: which code was named and why, never what was typed.
      const rows = await app.orm.em.fork().execute('select * from pairing_refusals');
      const stored = JSON.stringify(rows);
      for (const code of [live, used, full, old, guessed]) {
        expect(stored).not.toContain(code.code);
        expect(stored).not.toContain(typo(code.code));
      }
    });

    it('records a refused SMSGate registration, by Private Token and by the By Code tab', async () => {
      clock.advance(10 * MINUTE);
      const { key } = await accountWithKey(app);
      const register = (authorization: string) =>
        app.fetch(
          `${MOBILE_API}/device`,
          json('POST', { name: 'Google/sdk_gphone64_x86_64' }, { authorization, 'x-forwarded-for': '192.0.2.150' }),
        );
      const { code, id } = await createPairingCode(app, key);
      const token = await register(`Bearer ${typo(code)}`);
      expect(token.status).toBe(401);
      // What the app shows (its By Code tab shows our message; see docs/phones.md) says what to do.
      expect((await readJson(token)).message).toMatch(/new (pairing )?code.*By Code/);
      expect((await register(`Code ${typo(code)}`)).status).toBe(401);
      clock.advance(10 * MINUTE);
      expect((await register(`Code ${code}`)).status).toBe(401);
      expect(await summary(key)).toEqual([`${id}:expired:1`, `${id}:wrong:2`]);
    });

    it('lists one code’s refusals, newest first in pages, only to its account and with the devices scope', async () => {
      clock.advance(10 * MINUTE);
      const { account, key } = await accountWithKey(app, 'pro');
      const codes = [];
      for (let i = 0; i < 3; i++) {
        const code = await createPairingCode(app, key);
        codes.push(code);
        clock.advance(1000);
        expect(
          (await pair({ code: typo(code.code), hardware_key: 'hw-l' }, { 'x-forwarded-for': '192.0.2.160' })).status,
        ).toBe(400);
      }
      const first = await refusals(key, '?limit=2');
      expect(first.data.map((r) => r.pairing_code_id)).toEqual([codes[2].id, codes[1].id]);
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await refusals(key, `?limit=2&cursor=${first.next_cursor}`);
      expect(second.data.map((r) => r.pairing_code_id)).toEqual([codes[0].id]);
      expect(second.next_cursor).toBeUndefined();
      const one = await refusals(key, `?pairing_code_id=${codes[1].id}`);
      expect(one.data.map((r) => [r.pairing_code_id, r.reason])).toEqual([[codes[1].id, 'wrong']]);

      // Another account sees none of them, and naming one of these codes is 404.
      const other = await accountWithKey(app);
      expect((await refusals(other.key)).data).toEqual([]);
      const theirs = await app.fetch(`/v1/devices/pairing-refusals?pairing_code_id=${codes[1].id}`, {
        headers: { 'x-api-key': other.key },
      });
      expect(theirs.status).toBe(404);
      expect(await readJson(theirs)).toMatchObject({ code: 'not_found', status: 404 });

      const bad = await app.fetch('/v1/devices/pairing-refusals?pairing_code_id=nope&limit=0&cursor=x', {
        headers: { 'x-api-key': key },
      });
      expect(bad.status).toBe(422);
      const body = await readJson(bad);
      expect(body).toMatchObject({ code: 'validation_failed', status: 422 });
      expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'query.cursor',
        'query.limit',
        'query.pairing_code_id',
      ]);

      const readOnly = await createKey(app, account, ['read']);
      const scoped = await app.fetch('/v1/devices/pairing-refusals', { headers: { 'x-api-key': readOnly } });
      expect(scoped.status).toBe(403);
      expect((await readJson(scoped)).code).toBe('insufficient_scope');
      expect((await app.fetch('/v1/devices/pairing-refusals')).status).toBe(401);
    });
  });

  it('validates the pairing body', async () => {
    const res = await pair({ code: 'ABCDEFGH', os_api_level: 'many' });
    expect(res.status).toBe(422);
    const fields = (await readJson(res)).errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['body.hardware_key', 'body.os_api_level']);
  });

  it('needs the devices scope for pairing codes and hides other accounts’ codes', async () => {
    const { account, key } = await accountWithKey(app);
    const readOnly = await createKey(app, account, ['read']);
    const refused = await app.fetch('/v1/devices/pairing-codes', json('POST', undefined, { 'x-api-key': readOnly }));
    expect(refused.status).toBe(403);
    expect((await readJson(refused)).code).toBe('insufficient_scope');
    expect((await app.fetch('/v1/devices/pairing-codes', { method: 'POST' })).status).toBe(401);

    const { id } = await createPairingCode(app, key);
    const other = await accountWithKey(app);
    expect((await app.fetch(`/v1/devices/pairing-codes/${id}`, { headers: { 'x-api-key': other.key } })).status).toBe(
      404,
    );
    expect((await app.fetch(`/v1/devices/pairing-codes/not-a-uuid`, { headers: { 'x-api-key': key } })).status).toBe(
      404,
    );
  });
});
