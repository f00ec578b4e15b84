import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS } from '../../src/idempotency/idempotency.service';
import { createKey, json, registerAccount, type Account } from '../support/accounts';
import { startTestApp, testClock, type TestApp } from '../support/app';
import { readJson } from '../support/http';
import { sendingTenant } from '../messages/helpers';

const REPLAYED = 'idempotent-replayed';

describe('Idempotency-Key', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterAll(() => app?.close());

  type Tenant = Awaited<ReturnType<typeof sendingTenant>>;

  /** POST /v1/messages with the tenant's key and an Idempotency-Key. */
  const send = (tenant: Tenant, key: string | undefined, body: unknown) =>
    app.fetch(
      '/v1/messages',
      json('POST', body, { 'x-api-key': tenant.key, ...(key === undefined ? {} : { 'idempotency-key': key }) }),
    );

  const batchesOf = async (tenant: Tenant) => (await readJson(await tenant.call('GET', '/v1/batches'))).data;
  const sentToday = async (tenant: Tenant) =>
    (await readJson(await tenant.call('GET', '/v1/auth/me'))).usage.sent_today as number;

  it('answers a repeat with the first response and the replay header, and sends nothing again', async () => {
    const tenant = await sendingTenant(app);
    const key = `order-${randomUUID()}`;
    const body = { to: ['+14155550101', '+14155550102'], body: 'Your code is 1234' };

    const first = await send(tenant, key, body);
    expect(first.status).toBe(202);
    expect(first.headers.get(REPLAYED)).toBeNull();
    const firstBody = await readJson(first);

    // The same body with its fields in another order is the same request.
    const again = await send(tenant, key, { body: body.body, to: body.to });
    expect(again.status).toBe(202);
    expect(again.headers.get(REPLAYED)).toBe('true');
    expect(await readJson(again)).toEqual(firstBody);

    const batches = await batchesOf(tenant);
    expect(batches.map((b: { id: string }) => b.id)).toEqual([firstBody.batch.id]);
    expect(await sentToday(tenant)).toBe(2);
  });

  it('refuses the same key with another body or on another endpoint (422 idempotency_key_reused)', async () => {
    const tenant = await sendingTenant(app);
    const key = randomUUID();
    expect((await send(tenant, key, { to: ['+14155550103'], body: 'first' })).status).toBe(202);

    const other = await send(tenant, key, { to: ['+14155550103'], body: 'second' });
    expect(other.status).toBe(422);
    expect(await readJson(other)).toEqual({
      code: 'idempotency_key_reused',
      message: expect.any(String),
      status: 422,
    });
    const elsewhere = await app.fetch(
      '/v1/devices/pairing-codes',
      json('POST', undefined, { 'x-api-key': tenant.key, 'idempotency-key': key }),
    );
    expect(elsewhere.status).toBe(422);
    expect((await readJson(elsewhere)).code).toBe('idempotency_key_reused');

    expect(await batchesOf(tenant)).toHaveLength(1);
    expect(await sentToday(tenant)).toBe(1);
  });

  it('answers 409 idempotency_key_in_use to a repeat while the first is still running', async () => {
    const tenant = await sendingTenant(app);
    const key = randomUUID();
    const body = { to: ['+14155550104'], body: 'held' };
    // A send counts itself on the account's usage row: holding that row's lock holds the first
    // request inside its transaction, after it took the key.
    await app.services.plans.setUsage(tenant.account.userId, {
      sentToday: 0,
      sentThisMonth: 0,
      receivedToday: 0,
      receivedThisMonth: 0,
    });
    const holder = new pg.Client({ connectionString: inject('databaseUrl') });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from account_usage where user_id = $1 for update', [tenant.account.userId]);
      const holderPid = (await holder.query('select pg_backend_pid() as pid')).rows[0].pid as number;

      const first = send(tenant, key, body);
      await expect
        .poll(async () => {
          const { rows } = await holder.query(
            'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
            [holderPid],
          );
          return rows[0].n;
        })
        .toBe(1);

      const repeat = await send(tenant, key, body);
      expect(repeat.status).toBe(409);
      expect(await readJson(repeat)).toEqual({
        code: 'idempotency_key_in_use',
        message: expect.any(String),
        status: 409,
      });
      // Even with another body: the key is taken until the first one ends.
      expect((await send(tenant, key, { ...body, body: 'other' })).status).toBe(409);

      await holder.query('commit');
      const done = await first;
      expect(done.status).toBe(202);
      const doneBody = await readJson(done);

      const after = await send(tenant, key, body);
      expect(after.status).toBe(202);
      expect(after.headers.get(REPLAYED)).toBe('true');
      expect(await readJson(after)).toEqual(doneBody);
      expect(await batchesOf(tenant)).toHaveLength(1);
    } finally {
      await holder.end();
    }
  });

  it('forgets a key after 24 hours: the same request runs again', async () => {
    const clock = testClock();
    const later = await startTestApp({ clock });
    try {
      const tenant = await sendingTenant(later);
      const key = randomUUID();
      const body = { to: ['+14155550105'], body: 'daily reminder' };
      const call = () =>
        later.fetch('/v1/messages', json('POST', body, { 'x-api-key': tenant.key, 'idempotency-key': key }));
      const first = await readJson(await call());

      clock.advance(IDEMPOTENCY_TTL_MS - 60_000);
      const within = await call();
      expect(within.headers.get(REPLAYED)).toBe('true');
      expect((await readJson(within)).batch.id).toBe(first.batch.id);

      clock.advance(2 * 60_000);
      const expired = await call();
      expect(expired.status).toBe(202);
      expect(expired.headers.get(REPLAYED)).toBeNull();
      const second = await readJson(expired);
      expect(second.batch.id).not.toBe(first.batch.id);
      // The key now answers with its new first response.
      const replay = await call();
      expect(replay.headers.get(REPLAYED)).toBe('true');
      expect((await readJson(replay)).batch.id).toBe(second.batch.id);
      const batches = await readJson(await tenant.call('GET', '/v1/batches'));
      expect(batches.data).toHaveLength(2);
    } finally {
      await later.close();
    }
  });

  it("removes expired keys in the reconciler's sweep", async () => {
    // Keys made 25 hours ago (an app whose clock is a day behind), swept on the real clock: only
    // keys older than 24 hours go, so other tests' keys are untouched.
    const past = await startTestApp({ clock: testClock(new Date(Date.now() - IDEMPOTENCY_TTL_MS - 3_600_000)) });
    try {
      const account = await registerAccount(app, { verified: true });
      const key = await createKey(app, account, ['devices']);
      const old = await past.fetch(
        '/v1/devices/pairing-codes',
        json('POST', undefined, { 'x-api-key': key, 'idempotency-key': 'swept' }),
      );
      expect(old.status).toBe(201);
      const fresh = await app.fetch(
        '/v1/devices/pairing-codes',
        json('POST', undefined, { 'x-api-key': key, 'idempotency-key': 'kept' }),
      );
      expect(fresh.status).toBe(201);
      const stored = async () =>
        (
          await app.orm.em
            .fork()
            .execute<{ key: string }[]>('select key from idempotency_keys where user_id = ? order by key', [
              account.userId,
            ])
        ).map((row) => row.key);
      expect(await stored()).toEqual(['kept', 'swept']);

      const sweep = app.services.idempotency.service.sweep();
      expect(sweep.routine).toBe(true);
      expect(await sweep.run()).toBeGreaterThanOrEqual(1);
      expect(await stored()).toEqual(['kept']);
    } finally {
      await past.close();
    }
  });

  it("keeps each account's keys apart", async () => {
    const [a, b] = [await sendingTenant(app), await sendingTenant(app)];
    const key = 'shared-key-1';
    const body = { to: ['+14155550106'], body: 'same words' };
    const fromA = await readJson(await send(a, key, body));
    const fromB = await send(b, key, body);
    expect(fromB.status).toBe(202);
    expect(fromB.headers.get(REPLAYED)).toBeNull();
    const bodyB = await readJson(fromB);
    expect(bodyB.batch.id).not.toBe(fromA.batch.id);
    // Another body under the same key is B's own business, not a reuse of A's.
    expect((await send(b, 'shared-key-2', { ...body, body: 'other words' })).status).toBe(202);
    expect((await send(a, 'shared-key-2', body)).status).toBe(202);

    const replayA = await send(a, key, body);
    expect((await readJson(replayA)).batch.id).toBe(fromA.batch.id);
    expect(await batchesOf(a)).toHaveLength(2);
    expect(await batchesOf(b)).toHaveLength(2);
  });

  it('keeps the key free when the request was refused: nothing was done', async () => {
    const tenant = await sendingTenant(app);
    const key = randomUUID();
    const refused = await send(tenant, key, { to: ['not a number'], body: 'x' });
    expect(refused.status).toBe(422);
    expect((await readJson(refused)).code).toBe('validation_failed');

    const fixed = await send(tenant, key, { to: ['+14155550107'], body: 'x' });
    expect(fixed.status).toBe(202);
    expect(fixed.headers.get(REPLAYED)).toBeNull();
    expect(await batchesOf(tenant)).toHaveLength(1);
  });

  it('refuses an empty, too long or non-printable key with validation_failed', async () => {
    const tenant = await sendingTenant(app);
    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await app.fetch('/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': tenant.key, 'idempotency-key': bad },
        body: JSON.stringify({ to: ['+14155550108'], body: 'x' }),
      });
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(await readJson(res)).toEqual({
        code: 'validation_failed',
        message: expect.any(String),
        status: 422,
        errors: [{ field: 'header.Idempotency-Key', message: expect.stringContaining('255') }],
      });
    }
    expect(await batchesOf(tenant)).toHaveLength(0);
    expect((await send(tenant, 'k'.repeat(255), { to: ['+14155550108'], body: 'x' })).status).toBe(202);
  });

  it('replays POST /v1/webhooks, its secret included, and creates one webhook', async () => {
    const account = await registerAccount(app, { verified: true, plan: 'pro' });
    const key = await createKey(app, account, ['webhooks']);
    const create = () =>
      app.fetch(
        '/v1/webhooks',
        json(
          'POST',
          { url: 'https://hooks.example.test/in', events: ['message.received'] },
          {
            'x-api-key': key,
            'idempotency-key': 'webhook-1',
          },
        ),
      );
    const first = await create();
    expect(first.status).toBe(201);
    const firstBody = await readJson(first);
    const again = await create();
    expect(again.status).toBe(201);
    expect(again.headers.get(REPLAYED)).toBe('true');
    expect(await readJson(again)).toEqual(firstBody);
    const list = await readJson(await app.fetch('/v1/webhooks', { headers: { 'x-api-key': key } }));
    expect(list.data.map((w: { id: string }) => w.id)).toEqual([firstBody.webhook.id]);
  });

  it('replays POST /v1/devices/pairing-codes with the same code', async () => {
    const account = await registerAccount(app);
    const key = await createKey(app, account, ['devices']);
    const create = () =>
      app.fetch(
        '/v1/devices/pairing-codes',
        json('POST', undefined, { 'x-api-key': key, 'idempotency-key': 'pair-1' }),
      );
    const first = await create();
    expect(first.status).toBe(201);
    const firstBody = await readJson(first);
    const again = await create();
    expect(again.status).toBe(201);
    expect(again.headers.get(REPLAYED)).toBe('true');
    expect(await readJson(again)).toEqual(firstBody);
    const other = await readJson(
      await app.fetch('/v1/devices/pairing-codes', json('POST', undefined, { 'x-api-key': key })),
    );
    expect(other.code).not.toBe(firstBody.code);
  });

  it('replays POST /v1/api-keys with the same key, and creates one key', async () => {
    const account: Account = await registerAccount(app);
    const create = () =>
      app.fetch(
        '/v1/api-keys',
        json('POST', { name: 'ci', scopes: ['read'] }, { cookie: account.cookie, 'idempotency-key': 'key-1' }),
      );
    const first = await create();
    expect(first.status).toBe(201);
    const firstBody = await readJson(first);
    const again = await create();
    expect(again.status).toBe(201);
    expect(again.headers.get(REPLAYED)).toBe('true');
    expect(await readJson(again)).toEqual(firstBody);
    const keys = await readJson(await app.fetch('/v1/api-keys', { headers: { cookie: account.cookie } }));
    expect(keys.data.map((k: { id: string }) => k.id)).toEqual([firstBody.api_key.id]);
    // The replayed key works: it is the one that was stored (as a hash) the first time.
    const me = await app.fetch('/v1/auth/me', { headers: { 'x-api-key': firstBody.key } });
    expect(me.status).toBe(200);
  });

  it('stores the answers sealed when SECRETS_KEY is set', async () => {
    const sealed = await startTestApp({ env: { SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') } });
    try {
      const account = await registerAccount(sealed);
      const res = await sealed.fetch(
        '/v1/api-keys',
        json('POST', { name: 'sealed' }, { cookie: account.cookie, 'idempotency-key': 'sealed-1' }),
      );
      const { key } = await readJson(res);
      const [row] = await sealed.orm.em
        .fork()
        .execute<{ response_body: string }[]>('select response_body from idempotency_keys where user_id = ?', [
          account.userId,
        ]);
      expect(row.response_body).not.toContain(key);
      const again = await sealed.fetch(
        '/v1/api-keys',
        json('POST', { name: 'sealed' }, { cookie: account.cookie, 'idempotency-key': 'sealed-1' }),
      );
      expect((await readJson(again)).key).toBe(key);
    } finally {
      await sealed.close();
    }
  });
});
