import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app';
import { json } from '../support/accounts';
import { readJson } from '../support/http';
import { startAppWithFakeFcm, type startFakeFcm } from './fake-fcm';
import { accountWithKey, bearer, pairPhone } from './helpers';

describe('settings push through FCM HTTP v1', () => {
  let app: TestApp;
  let fcm: Awaited<ReturnType<typeof startFakeFcm>>;
  let stack: Awaited<ReturnType<typeof startAppWithFakeFcm>> | undefined;

  beforeAll(async () => {
    stack = await startAppWithFakeFcm();
    ({ app, fcm } = stack);
  });
  afterAll(() => stack?.close());

  const patch = async (key: string, id: string, body: Record<string, unknown>) => {
    const res = await app.fetch(`/v1/devices/${id}`, json('PATCH', body, { 'x-api-key': key }));
    expect(res.status).toBe(200);
    await app.services.background.idle();
    return (await readJson(res)).device;
  };
  const pushesTo = (token: string) => fcm.state.messages.filter((m) => m.token === token);

  it('tells the phone at once on PATCH, with a bearer token from a signed service-account JWT', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key, { push_token: 'live-token-1' });
    await patch(key, phone.id, { send_delay_seconds: 9 });
    await patch(key, phone.id, { name: 'Again' });
    const pushes = pushesTo('live-token-1');
    expect(pushes).toHaveLength(2);
    expect(pushes[0].data).toEqual({ type: 'settings' });
    expect(pushes[0].bearer).toMatch(/^ya29\./);
    expect(fcm.state.rejectedAssertions).toBe(0);
    // The access token is cached until it expires.
    expect(fcm.state.tokenRequests).toBe(1);

    // The phone changing its own settings needs no push.
    await app.fetch('/v1/device', json('PATCH', { name: 'Self' }, bearer(phone.token)));
    await app.services.background.idle();
    expect(pushesTo('live-token-1')).toHaveLength(2);
  });

  it('marks an unregistered token invalid, stops using it, and a new token clears the mark', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key, { push_token: 'dead-token-1' });
    await patch(key, phone.id, { receive_enabled: false });
    const { device } = await readJson(await app.fetch(`/v1/devices/${phone.id}`, { headers: { 'x-api-key': key } }));
    expect(device.push_token_invalid_reason).toBe('unregistered');
    expect(Date.parse(device.push_token_invalidated_at)).not.toBeNaN();

    await patch(key, phone.id, { receive_enabled: true });
    expect(pushesTo('dead-token-1')).toHaveLength(1);

    expect(
      (await app.fetch('/v1/device/push-token', json('POST', { token: 'live-token-2' }, bearer(phone.token)))).status,
    ).toBe(204);
    const cleared = await patch(key, phone.id, { name: 'Renewed' });
    expect(cleared.push_token_invalid_reason).toBeNull();
    expect(cleared.push_token_invalidated_at).toBeNull();
    expect(pushesTo('live-token-2')).toHaveLength(1);
  });

  it('treats a malformed token as invalid and a new token from a heartbeat clears it', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key, { push_token: 'bad-token-1' });
    await patch(key, phone.id, { enabled: false });
    const me = await readJson(await app.fetch('/v1/device', { headers: bearer(phone.token) }));
    expect(me.device.push_token_invalid_reason).toBe('invalid_token');
    const beat = await app.fetch(
      '/v1/device/heartbeat',
      json('POST', { push_token: 'live-token-3' }, bearer(phone.token)),
    );
    expect((await readJson(beat)).device.push_token_invalid_reason).toBeNull();
  });

  it('never fails a PATCH when FCM is down', async () => {
    const { key } = await accountWithKey(app);
    const phone = await pairPhone(app, key, { push_token: 'live-token-4' });
    fcm.state.down = true;
    try {
      const device = await patch(key, phone.id, { name: 'Offline FCM' });
      expect(device.name).toBe('Offline FCM');
      expect(device.push_token_invalid_reason).toBeNull();
    } finally {
      fcm.state.down = false;
    }
    await patch(key, phone.id, { name: 'FCM back' });
    expect(pushesTo('live-token-4')).toHaveLength(1);
  });
});
