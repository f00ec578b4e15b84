import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { createKey, json } from '../support/accounts';
import { deviceRow, eventsOf, updateDeviceRow } from '../support/factories';
import { readJson } from '../support/http';
import { accountWithKey, bearer, pairPhone } from './helpers';

const DEVICE_FIELDS = [
  'app_version_code',
  'app_version_name',
  'brand',
  'created_at',
  'enabled',
  'heartbeat_interval_minutes',
  'id',
  'is_default',
  'last_heartbeat_at',
  'manufacturer',
  'max_sends_per_day',
  'max_sends_per_hour',
  'max_sends_per_minute',
  'model',
  'name',
  'online',
  'os_api_level',
  'os_version',
  'paused_until',
  'preferred_sim_subscription_id',
  'processing_order',
  'push_token_invalid_reason',
  'push_token_invalidated_at',
  'queue_depth',
  'receive_enabled',
  'received_count',
  'send_delay_jitter_seconds',
  'send_delay_seconds',
  'send_window',
  'sending_capacity',
  'sending_capacity_minutes',
  'sent_count',
  'sim_selection',
  'sims',
  'telemetry',
  'updated_at',
];

describe('phones through the API and the phone’s own endpoints', () => {
  let app: TestApp;
  const clock = testClock();

  beforeAll(async () => {
    app = await startTestApp({ clock });
  });
  afterAll(() => app?.close());

  const withKey = (key: string, method = 'GET', body?: unknown) => json(method, body, { 'x-api-key': key });

  it('renders every field of the Device resource', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const res = await app.fetch(`/v1/devices/${phone.id}`, withKey(key));
    expect(res.status).toBe(200);
    const { device } = await readJson(res);
    expect(Object.keys(device).sort()).toEqual(DEVICE_FIELDS);
    expect(device).toMatchObject({
      id: phone.id,
      name: 'Google Pixel 8',
      sent_count: 0,
      received_count: 0,
      send_delay_seconds: 0,
      preferred_sim_subscription_id: null,
      push_token_invalid_reason: null,
      sims: [],
      telemetry: {},
      // Paired through our own API: no platform limit known, an empty queue, not paused.
      sending_capacity: null,
      sending_capacity_minutes: 30,
      queue_depth: 0,
      paused_until: null,
    });
  });

  it('changes only the fields a PATCH sends', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const patch = async (body: Record<string, unknown>) => {
      const res = await app.fetch(`/v1/devices/${phone.id}`, withKey(key, 'PATCH', body));
      expect(res.status).toBe(200);
      return (await readJson(res)).device;
    };
    let device = phone.device;
    const steps: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ name: 'Shop' }, { name: 'Shop' }],
      [{ enabled: false }, { enabled: false }],
      [{ receive_enabled: false }, { receive_enabled: false }],
      [{ heartbeat_interval_minutes: 5 }, { heartbeat_interval_minutes: 5 }],
      [{ send_delay_seconds: 30 }, { send_delay_seconds: 30 }],
      [{ preferred_sim_subscription_id: 2 }, { preferred_sim_subscription_id: 2 }],
      [{ clear_preferred_sim: false }, {}],
      [{ clear_preferred_sim: true }, { preferred_sim_subscription_id: null }],
      [{}, {}],
    ];
    for (const [body, changed] of steps) {
      const next = await patch(body);
      const { updated_at: _before, ...expected } = { ...device, ...changed };
      const { updated_at: _after, ...actual } = next;
      expect(actual).toEqual(expected);
      device = next;
    }
    // Persisted, not only rendered.
    expect((await readJson(await app.fetch(`/v1/devices/${phone.id}`, withKey(key)))).device).toMatchObject({
      name: 'Shop',
      enabled: false,
      receive_enabled: false,
      heartbeat_interval_minutes: 5,
      send_delay_seconds: 30,
      preferred_sim_subscription_id: null,
    });
  });

  it('validates PATCH fields and their bounds', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const res = await app.fetch(
      `/v1/devices/${phone.id}`,
      withKey(key, 'PATCH', {
        name: '',
        enabled: 'maybe',
        heartbeat_interval_minutes: 0,
        send_delay_seconds: 3601,
        preferred_sim_subscription_id: 1.5,
      }),
    );
    expect(res.status).toBe(422);
    const fields = (await readJson(res)).errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual([
      'body.enabled',
      'body.heartbeat_interval_minutes',
      'body.name',
      'body.preferred_sim_subscription_id',
      'body.send_delay_seconds',
    ]);
    const both = await app.fetch(
      `/v1/devices/${phone.id}`,
      withKey(key, 'PATCH', { preferred_sim_subscription_id: 1, clear_preferred_sim: true }),
    );
    expect(both.status).toBe(422);
    expect((await readJson(both)).errors[0].field).toBe('body.clear_preferred_sim');
    expect((await readJson(await app.fetch(`/v1/devices/${phone.id}`, withKey(key)))).device.name).toBe(
      'Google Pixel 8',
    );
  });

  it('lets the phone read and change its own settings, except the heartbeat interval', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const res = await app.fetch(
      '/v1/device',
      json(
        'PATCH',
        { name: 'Mine', send_delay_seconds: 3, heartbeat_interval_minutes: 1, preferred_sim_subscription_id: 7 },
        bearer(phone.token),
      ),
    );
    expect(res.status).toBe(200);
    expect((await readJson(res)).device).toMatchObject({
      name: 'Mine',
      send_delay_seconds: 3,
      heartbeat_interval_minutes: 15,
      preferred_sim_subscription_id: 7,
    });
    const cleared = await app.fetch('/v1/device', json('PATCH', { clear_preferred_sim: true }, bearer(phone.token)));
    expect((await readJson(cleared)).device.preferred_sim_subscription_id).toBeNull();
  });

  it('keeps exactly one default, listed first, then newest first', async () => {
    const { key } = await accountWithKey(app, 'pro');
    const first = await pairPhone(app, key);
    clock.advance(1000);
    const second = await pairPhone(app, key);
    clock.advance(1000);
    const third = await pairPhone(app, key);
    const ids = async () =>
      (await readJson(await app.fetch('/v1/devices', withKey(key)))).data.map(
        (d: { id: string; is_default: boolean }) => [d.id, d.is_default],
      );
    expect(await ids()).toEqual([
      [first.id, true],
      [third.id, false],
      [second.id, false],
    ]);

    const res = await app.fetch(`/v1/devices/${second.id}/default`, withKey(key, 'POST'));
    expect(res.status).toBe(200);
    expect((await readJson(res)).device).toMatchObject({ id: second.id, is_default: true });
    expect(await ids()).toEqual([
      [second.id, true],
      [third.id, false],
      [first.id, false],
    ]);

    // Racing requests still leave exactly one default.
    const raced = await Promise.all(
      [first, third, second, first, third].map((p) => app.fetch(`/v1/devices/${p.id}/default`, withKey(key, 'POST'))),
    );
    expect(raced.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await ids()).filter(([, isDefault]: [string, boolean]) => isDefault)).toHaveLength(1);
  });

  it('unpairs from the API: token revoked at once, hidden afterwards, row and history kept', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const res = await app.fetch(`/v1/devices/${phone.id}`, withKey(key, 'DELETE'));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const revoked = await app.fetch('/v1/device', { headers: bearer(phone.token) });
    expect(revoked.status).toBe(401);
    expect((await readJson(revoked)).code).toBe('unauthenticated');
    expect((await app.fetch('/v1/device/heartbeat', json('POST', {}, bearer(phone.token)))).status).toBe(401);
    expect((await app.fetch(`/v1/devices/${phone.id}`, withKey(key))).status).toBe(404);
    expect((await app.fetch(`/v1/devices/${phone.id}`, withKey(key, 'DELETE'))).status).toBe(404);
    expect((await readJson(await app.fetch('/v1/devices', withKey(key)))).data).toEqual([]);
    // Storage itself: the row stays (its history and counters carry on), without a token.
    const row = await deviceRow(app.orm, phone.id);
    expect(row.unpairedAt).not.toBeNull();
    expect(row.tokenHash).toBeNull();
  });

  it('unpairs from the phone itself with DELETE /v1/device', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    expect((await app.fetch('/v1/device', { method: 'DELETE', headers: bearer(phone.token) })).status).toBe(204);
    expect((await app.fetch('/v1/device', { headers: bearer(phone.token) })).status).toBe(401);
    expect((await app.fetch(`/v1/devices/${phone.id}`, withKey(key))).status).toBe(404);
  });

  it('refuses missing, unknown and API-key credentials on phone endpoints', async () => {
    const { key } = await accountWithKey(app);
    expect((await app.fetch('/v1/device')).status).toBe(401);
    expect((await app.fetch('/v1/device', { headers: bearer('x'.repeat(43)) })).status).toBe(401);
    expect((await app.fetch('/v1/device', { headers: bearer(key) })).status).toBe(401);
    expect((await app.fetch('/v1/device', { headers: { 'x-api-key': key } })).status).toBe(401);
  });

  it('enforces scopes: read lists and gets, devices changes', async () => {
    const { account, key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    const read = await createKey(app, account, ['read']);
    const send = await createKey(app, account, ['send']);
    const devices = await createKey(app, account, ['devices']);
    expect((await app.fetch('/v1/devices', withKey(read))).status).toBe(200);
    expect((await app.fetch(`/v1/devices/${phone.id}`, withKey(read))).status).toBe(200);
    expect((await app.fetch('/v1/devices', withKey(send))).status).toBe(403);
    for (const [method, path, body] of [
      ['PATCH', `/v1/devices/${phone.id}`, { name: 'x' }],
      ['POST', `/v1/devices/${phone.id}/default`, undefined],
      ['DELETE', `/v1/devices/${phone.id}`, undefined],
    ] as const) {
      const refused = await app.fetch(path, withKey(read, method, body));
      expect(refused.status).toBe(403);
      expect((await readJson(refused)).code).toBe('insufficient_scope');
    }
    expect((await app.fetch(`/v1/devices/${phone.id}`, withKey(devices, 'PATCH', { name: 'ok' }))).status).toBe(200);
    // The dashboard session may do everything.
    expect((await app.fetch('/v1/devices', { headers: { cookie: account.cookie } })).status).toBe(200);
  });

  it('answers 404 for another account’s device id, whatever the operation', async () => {
    const mine = await accountWithKey(app);
    const theirs = await accountWithKey(app);
    const phone = await pairPhone(app, theirs.key);
    for (const [method, path, body] of [
      ['GET', `/v1/devices/${phone.id}`, undefined],
      ['PATCH', `/v1/devices/${phone.id}`, { name: 'stolen' }],
      ['POST', `/v1/devices/${phone.id}/default`, undefined],
      ['DELETE', `/v1/devices/${phone.id}`, undefined],
    ] as const) {
      const res = await app.fetch(path, withKey(mine.key, method, body));
      expect(res.status).toBe(404);
      expect((await readJson(res)).code).toBe('not_found');
    }
    expect((await readJson(await app.fetch('/v1/devices', withKey(mine.key)))).data).toEqual([]);
    expect((await app.fetch('/v1/device', { headers: bearer(phone.token) })).status).toBe(200);
    expect((await readJson(await app.fetch(`/v1/devices/${phone.id}`, withKey(theirs.key)))).device.name).toBe(
      'Google Pixel 8',
    );
  });

  it('stores what a heartbeat reports and returns the settings to apply', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    await app.fetch(`/v1/devices/${phone.id}`, withKey(key, 'PATCH', { send_delay_seconds: 12 }));
    clock.advance(60_000);
    const sims = [{ subscription_id: 1, carrier: 'Acme', slot: 0, country: 'de' }];
    const telemetry = { battery: 81, network: 'wifi', timezone: 'Europe/Berlin' };
    const res = await app.fetch(
      '/v1/device/heartbeat',
      json(
        'POST',
        { app_version_code: 43, app_version_name: '1.4.3', os_api_level: 35, os_version: '15', sims, telemetry },
        bearer(phone.token),
      ),
    );
    expect(res.status).toBe(200);
    const { device } = await readJson(res);
    expect(device).toMatchObject({
      app_version_code: 43,
      app_version_name: '1.4.3',
      os_api_level: 35,
      os_version: '15',
      sims,
      telemetry,
      send_delay_seconds: 12,
      online: true,
      last_heartbeat_at: clock.now().toISOString(),
    });
    const bad = await app.fetch(
      '/v1/device/heartbeat',
      json('POST', { sims: 'two', telemetry: [1] }, bearer(phone.token)),
    );
    expect(bad.status).toBe(422);
    expect((await readJson(bad)).errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'body.sims',
      'body.telemetry',
    ]);
    expect((await app.fetch('/v1/device/push-token', json('POST', { token: 'new' }, bearer(phone.token)))).status).toBe(
      204,
    );
    expect((await app.fetch('/v1/device/push-token', json('POST', {}, bearer(phone.token)))).status).toBe(422);
  });

  it('marks an offline phone online on its next heartbeat, with one device.online event', async () => {
    const { account, key } = await accountWithKey(app);
    const phone = await pairPhone(app, key);
    await updateDeviceRow(app.orm, phone.id, { online: false });
    const beats = await Promise.all(
      [1, 2, 3].map(() => app.fetch('/v1/device/heartbeat', json('POST', {}, bearer(phone.token)))),
    );
    for (const beat of beats) expect((await readJson(beat)).device.online).toBe(true);
    const events = await eventsOf(app.orm, { userId: account.userId });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ name: 'device.online', deviceId: phone.id });
    expect(events[0].data).toMatchObject({ id: phone.id, online: true });
  });
});
