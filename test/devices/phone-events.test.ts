import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { createPhoneChannel } from '../../src/devices/phone-channel';
import { outboxRepository } from '../../src/messages/outbox.repository';
import { createLogger } from '../../src/lib/logger';
import { createKey, json, registerAccount } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, fetchOutbox, pairPhone, spendPace } from './helpers';
import { SimulatedPhone } from '../../tools/phone/phone';

/** An open GET /v1/device/events: every line it received, and the events parsed from them. */
async function listen(app: TestApp, token: string) {
  const abort = new AbortController();
  const res = await app.fetch('/v1/device/events', { headers: bearer(token), signal: abort.signal });
  const lines: string[] = [];
  let ended = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        const parts = buffer.split('\n');
        buffer = parts.pop()!;
        lines.push(...parts);
      }
    } catch {
      // aborted by the test
    }
    ended = true;
  })();
  const events = () => lines.filter((line) => line.startsWith('event: ')).map((line) => line.slice(7));
  return {
    res,
    lines,
    events,
    ended: () => ended,
    async close() {
      abort.abort();
      await reading;
    },
  };
}

/** A verified account (it may send) with an all-scopes key. */
async function sender(app: TestApp): Promise<{ key: string }> {
  const account = await registerAccount(app, { verified: true });
  return { key: await createKey(app, account) };
}

describe('the phone’s live channel, GET /v1/device/events', () => {
  // Two api processes over one database: what one accepts, a phone listening on the other hears.
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({ env: { PHONE_EVENTS_HEARTBEAT: '200ms' } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('tells the phone of new work and changed settings from any api process, then that it was unpaired', async () => {
    const { key } = await sender(a);
    const phone = await pairPhone(a, key);
    const stream = await listen(b, phone.token);
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toBe('text/event-stream');
    await expect.poll(() => stream.events()).toEqual(['ready']);
    expect(stream.lines).toContain('data: {"type":"ready"}');
    expect(b.services.notifier.listening()).toBe(true);

    const sent = await a.fetch(
      '/v1/messages',
      json('POST', { body: 'Your code is 1234', to: ['+14155550140'], device_id: phone.id }, { 'x-api-key': key }),
    );
    expect(sent.status).toBe(202);
    await expect.poll(() => stream.events()).toEqual(['ready', 'outbox']);

    // A heartbeat changes nothing the phone applies: no event.
    expect(
      (await a.fetch('/v1/device/heartbeat', json('POST', { app_version_code: 7 }, bearer(phone.token)))).status,
    ).toBe(200);
    const patched = await a.fetch(
      `/v1/devices/${phone.id}`,
      json('PATCH', { send_delay_seconds: 4 }, { 'x-api-key': key }),
    );
    expect(patched.status).toBe(200);
    await expect.poll(() => stream.events()).toEqual(['ready', 'outbox', 'settings']);

    expect((await a.fetch(`/v1/devices/${phone.id}`, json('DELETE', undefined, { 'x-api-key': key }))).status).toBe(
      204,
    );
    await expect.poll(() => stream.ended()).toBe(true);
    expect(stream.events()).toEqual(['ready', 'outbox', 'settings', 'unpaired']);
    // The phone's stream is gone from the process, and its token no longer opens one.
    await expect.poll(() => b.services.phoneChannel.size()).toBe(0);
    const again = await b.fetch('/v1/device/events', { headers: bearer(phone.token) });
    expect(again.status).toBe(401);
    expect(await readJson(again)).toMatchObject({ code: 'unauthenticated', status: 401 });
  });

  it('keeps an idle stream open with heartbeat comments', async () => {
    const { key } = await sender(a);
    const phone = await pairPhone(a, key);
    const stream = await listen(b, phone.token);
    await expect.poll(() => stream.lines.filter((line) => line === ': heartbeat').length).toBeGreaterThanOrEqual(2);
    expect(stream.events()).toEqual(['ready']);
    expect(stream.lines).toContain('retry: 2000');
    await stream.close();
    await expect.poll(() => b.services.phoneChannel.size()).toBe(0);
  });

  it('is for phones only: no token, another kind of credential or a wrong token is a 401', async () => {
    const { key } = await sender(a);
    const attempts: Record<string, string>[] = [{}, { 'x-api-key': key }, bearer('dt_not-a-token')];
    for (const headers of attempts) {
      const res = await b.fetch('/v1/device/events', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(await readJson(res)).toMatchObject({ code: 'unauthenticated' });
    }
  });

  /** A simulator paired with `key`, listening on b, with an hour between polls: only the live channel brings work in the test's time. */
  async function listeningSimulator(key: string, lines: string[] = []): Promise<SimulatedPhone> {
    const { code } = await readJson(
      await a.fetch('/v1/devices/pairing-codes', json('POST', undefined, { 'x-api-key': key })),
    );
    const simulated = new SimulatedPhone({
      server: b.url,
      code,
      pollSeconds: 3600,
      sentAfterMs: 0,
      deliveredAfterMs: 0,
      log: (line) => lines.push(line),
    });
    await simulated.start();
    return simulated;
  }

  it('lets the simulator fetch as soon as it is told, without polling', async () => {
    const { key } = await sender(a);
    const lines: string[] = [];
    const simulated = await listeningSimulator(key, lines);
    try {
      await expect.poll(() => simulated.live).toBe(true);
      const sent = await readJson(
        await a.fetch(
          '/v1/messages',
          json('POST', { body: 'Live', to: ['+14155550141'], device_id: simulated.deviceId }, { 'x-api-key': key }),
        ),
      );
      await expect
        .poll(
          async () =>
            (await readJson(await a.fetch(`/v1/messages/${sent.message_ids[0]}`, { headers: { 'x-api-key': key } })))
              .message.status,
        )
        .toBe('delivered');
      expect(simulated.sendCounts.get(sent.message_ids[0])).toBe(1);
    } finally {
      await simulated.stop();
    }
    expect(lines.some((line) => line.startsWith('live channel open'))).toBe(true);
  });

  it('tells the simulator of the rest of a send larger than one fetch as soon as it has reported a page', async () => {
    const account = await registerAccount(a, { verified: true, plan: 'business' });
    const key = await createKey(a, account);
    // A minute between the live channel's safety polls: the next page within the test's time comes
    // from being told.
    const simulated = await listeningSimulator(key);
    try {
      await expect.poll(() => simulated.live).toBe(true);
      const to = Array.from({ length: 250 }, (_, i) => `+1415557${String(i).padStart(4, '0')}`);
      const { batch } = await readJson(
        await a.fetch(
          '/v1/messages',
          json('POST', { body: 'Pages', to, device_id: simulated.deviceId }, { 'x-api-key': key }),
        ),
      );
      // Three fetches, each as soon as the page before was reported: seconds, not the minutes of
      // three safety polls.
      await expect
        .poll(
          async () =>
            (await readJson(await a.fetch(`/v1/batches/${batch.id}`, { headers: { 'x-api-key': key } }))).batch,
          { timeout: 30_000 },
        )
        .toMatchObject({ status: 'completed', delivered_count: 250 });
    } finally {
      await simulated.stop();
    }
  });

  it('holds news of work outside a phone’s send window and tells it when the window opens', async () => {
    // Friday 18:30 in Berlin: the window (weekdays 09:00–18:00) is closed until Monday 09:00 (08:00 UTC).
    a.clock.set(new Date(Date.UTC(2030, 0, 11, 17, 30)));
    // A channel of its own on the app's clock, looking every 50 ms (no notifications): one look covers both phones.
    const channel = createPhoneChannel({
      orm: a.orm,
      outbox: outboxRepository,
      clock: a.clock,
      logger: createLogger('silent'),
      pollMs: 50,
    });
    const account = await registerAccount(a, { verified: true, plan: 'pro' });
    const key = await createKey(a, account);
    const [windowed, always] = [await pairPhone(a, key), await pairPhone(a, key)];
    const window = { timezone: 'Europe/Berlin', days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' };
    const patched = await a.fetch(
      `/v1/devices/${windowed.id}`,
      json('PATCH', { send_window: window }, { 'x-api-key': key }),
    );
    expect(patched.status).toBe(200);
    const told = { windowed: [] as string[], always: [] as string[] };
    const connection = (events: string[]) => ({ send: (e: string) => events.push(e), keepAlive() {}, end() {} });
    const closers = [
      await channel.open(windowed.id, connection(told.windowed)),
      await channel.open(always.id, connection(told.always)),
    ];
    try {
      for (const phone of [windowed, always]) {
        const res = await a.fetch(
          '/v1/messages',
          json('POST', { body: 'Weekend', to: ['+14155550150'], device_id: phone.id }, { 'x-api-key': key }),
        );
        expect(res.status).toBe(202);
      }
      await expect.poll(() => told.always).toEqual(['outbox']);
      // Looked at in the same look: nothing to fetch while its window is closed.
      expect(told.windowed).toEqual([]);
      a.clock.set(new Date(Date.UTC(2030, 0, 14, 8, 0)));
      await expect.poll(() => told.windowed).toEqual(['outbox']);
      expect(told.always).toEqual(['outbox']);
    } finally {
      for (const close of closers) close();
      a.clock.set(new Date());
    }
  });

  it('tells a phone its pace ran out of again when its trailing minute frees', async () => {
    a.clock.set(new Date(Date.UTC(2030, 0, 15, 10, 0)));
    // A channel of its own on the app's clock, looking every 50 ms (no notifications).
    const channel = createPhoneChannel({
      orm: a.orm,
      outbox: outboxRepository,
      clock: a.clock,
      logger: createLogger('silent'),
      pollMs: 50,
    });
    const key = await createKey(a, await registerAccount(a, { verified: true, plan: 'pro' }));
    const phone = await pairPhone(a, key);
    const patched = await a.fetch(
      `/v1/devices/${phone.id}`,
      json('PATCH', { max_sends_per_minute: 2 }, { 'x-api-key': key }),
    );
    expect(patched.status).toBe(200);
    const told: string[] = [];
    const close = await channel.open(phone.id, { send: (e: string) => told.push(e), keepAlive() {}, end() {} });
    try {
      await spendPace(a, key, phone, ['+14155550161', '+14155550162', '+14155550163', '+14155550164']);
      await expect.poll(() => told.includes('outbox')).toBe(true);
      // Told of the rest, it fetches: its pace allows nothing more in this minute.
      expect(await fetchOutbox(a, phone)).toHaveLength(0);
      // What the channel tells from here on is news of this state, not of a look begun before it.
      await channel.lookNow();
      told.length = 0;
      // The minute moves on: it may send two more, and is told so (not left to its next pull).
      a.clock.advance(61_000);
      await expect.poll(() => told, { timeout: 3_000 }).toEqual(['outbox']);
      expect(await fetchOutbox(a, phone)).toHaveLength(2);
    } finally {
      close();
      a.clock.set(new Date());
    }
  });
});
