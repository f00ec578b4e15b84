import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { startAppWithFakeFcm } from './fake-fcm';
import { fetchOutbox, pairPhone, spendPace } from './helpers';

// A phone with no live channel, reached only by push (the fake FCM, ./fake-fcm.ts): when its
// max_sends_per_minute leaves work waiting, it is woken by push once its trailing minute frees, as a
// phone on the live channel is told (phone-events.test.ts, "its pace ran out").

describe('a paced phone reached by push', () => {
  let app: TestApp;
  let stack: Awaited<ReturnType<typeof startAppWithFakeFcm>> | undefined;

  beforeAll(async () => {
    stack = await startAppWithFakeFcm();
    app = stack.app;
  });
  afterAll(() => stack?.close());

  const wakesOf = (token: string) =>
    stack!.fcm.state.messages.filter((m) => m.token === token && m.data.type === 'wake');

  it('is woken by push when its trailing minute frees, and fetches the rest', async () => {
    app.clock.set(new Date(Date.UTC(2030, 0, 15, 10, 0)));
    try {
      const key = await createKey(app, await registerAccount(app, { verified: true, plan: 'pro' }));
      const phone = await pairPhone(app, key, { push_token: 'paced-token-1' });
      const patched = await app.fetch(
        `/v1/devices/${phone.id}`,
        json('PATCH', { max_sends_per_minute: 2 }, { 'x-api-key': key }),
      );
      expect(patched.status).toBe(200);
      await spendPace(app, key, phone, ['+14155550171', '+14155550172', '+14155550173', '+14155550174']);
      // Its pace allows nothing more in this minute, and nothing was pushed for it yet.
      expect(await fetchOutbox(app, phone)).toHaveLength(0);
      await app.services.background.idle();
      expect(wakesOf('paced-token-1')).toHaveLength(0);

      // The minute moves on: it may send two more, and FCM carries the wake (not left to its heartbeat).
      app.clock.advance(61_000);
      await expect.poll(() => wakesOf('paced-token-1').length, { timeout: 15_000 }).toBe(1);
      expect(await fetchOutbox(app, phone)).toHaveLength(2);
    } finally {
      app.clock.set(new Date());
    }
  });

  it('lets a paced phone go without a push when nothing is left waiting', async () => {
    app.clock.set(new Date(Date.UTC(2030, 0, 16, 10, 0)));
    try {
      const key = await createKey(app, await registerAccount(app, { verified: true, plan: 'pro' }));
      const phone = await pairPhone(app, key, { push_token: 'paced-token-2' });
      await app.fetch(`/v1/devices/${phone.id}`, json('PATCH', { max_sends_per_minute: 2 }, { 'x-api-key': key }));
      const to = ['+14155550181', '+14155550182'];
      expect(
        (await app.fetch('/v1/messages', json('POST', { body: 'Two', to, device_id: phone.id }, { 'x-api-key': key })))
          .status,
      ).toBe(202);
      // Its two messages use up its minute, and nothing else waits.
      expect(await fetchOutbox(app, phone)).toHaveLength(2);
      expect(app.services.pacedWakes.size()).toBeGreaterThan(0);
      await expect.poll(() => app.services.pacedWakes.size(), { timeout: 15_000 }).toBe(0);
      await app.services.background.idle();
      expect(wakesOf('paced-token-2')).toHaveLength(0);
    } finally {
      app.clock.set(new Date());
    }
  });
});
