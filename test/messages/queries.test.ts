import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { startTestApp, type TestApp } from '../support/app';
import { createKey, json, registerAccount } from '../support/accounts';
import { readJson } from '../support/http';
import { bearer, pairPhone, type PairedPhone } from '../devices/helpers';
import { query, sql, Sql } from '../../src/db/sql';
import { transaction } from '../../src/db/transaction';
import { ownTextOf } from '../../src/messages/messages.repository';

// Queries read Postgres only; no workflow runs here (the sends' workflow starts fail fast and are
// left to the reconciler).
describe('message and batch queries', () => {
  let app: TestApp;
  let key: string;
  let phone: PairedPhone;
  let other: PairedPhone;
  const batches: string[] = [];
  const call = (path: string) => app.fetch(path, { headers: { 'x-api-key': key } });

  beforeAll(async () => {
    app = await startTestApp({
      temporal: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 100 }) }),
    });
    const account = await registerAccount(app, { verified: true, plan: 'pro' });
    key = await createKey(app, account);
    phone = await pairPhone(app, key);
    other = await pairPhone(app, key);
    for (const [body, to] of [
      ['Your code is 1234', ['+14155550201', '+14155550202']],
      ['Meeting moved to 3pm', ['+14155550203']],
      ['Invoice ready', ['+14155550204']],
    ] as const) {
      app.clock.advance(1000);
      const res = await app.fetch(
        '/v1/messages',
        json('POST', { body, to, device_id: phone.id }, { 'x-api-key': key }),
      );
      batches.push((await readJson(res)).batch.id);
    }
    app.clock.advance(1000);
    await app.fetch(
      '/v1/device/inbound',
      json(
        'POST',
        { body: 'Can we meet?', sender: '+14155550999', received_at: app.clock.now().toISOString() },
        bearer(other.token),
      ),
    );
  }, 60_000);
  afterAll(() => app?.close());

  const bodies = async (path: string) => (await readJson(await call(path))).data.map((m: { body: string }) => m.body);

  it('lists newest first by default, oldest first with order=asc', async () => {
    expect(await bodies('/v1/messages')).toEqual([
      'Can we meet?',
      'Invoice ready',
      'Meeting moved to 3pm',
      'Your code is 1234',
      'Your code is 1234',
    ]);
    expect((await bodies('/v1/messages?order=asc'))[0]).toBe('Your code is 1234');
  });

  it('filters by direction, status, batch, device and text', async () => {
    expect(await bodies('/v1/messages?direction=inbound')).toEqual(['Can we meet?']);
    expect(await bodies('/v1/messages?status=received')).toEqual(['Can we meet?']);
    expect((await bodies('/v1/messages?status=queued')).length).toBe(4);
    expect(await bodies(`/v1/messages?batch_id=${batches[1]}`)).toEqual(['Meeting moved to 3pm']);
    expect(await bodies(`/v1/messages?device_ids=${other.id}`)).toEqual(['Can we meet?']);
    expect((await bodies(`/v1/messages?device_ids=${phone.id},${other.id}`)).length).toBe(5);
    expect(await bodies('/v1/messages?q=meet')).toEqual(['Can we meet?', 'Meeting moved to 3pm']);
    expect(await bodies('/v1/messages?q=555020')).toEqual([
      'Invoice ready',
      'Meeting moved to 3pm',
      'Your code is 1234',
      'Your code is 1234',
    ]);
    expect(await bodies('/v1/messages?q=%25')).toEqual([]);
  });

  it('finds a send by one of its numbers, by its text, and a text by the number that sent it', async () => {
    const found = (await readJson(await call('/v1/messages?q=5550202'))).data;
    expect(found.map((m: { recipient: string }) => m.recipient)).toEqual(['+14155550202']);
    expect(await bodies('/v1/messages?q=code')).toEqual(['Your code is 1234', 'Your code is 1234']);
    expect(await bodies('/v1/messages?q=555099')).toEqual(['Can we meet?']);
    // A number and a text do not run into each other: a send's message matches one or the other.
    expect(await bodies('/v1/messages?q=1234%20%2B1415')).toEqual([]);
    const all = (await readJson(await call('/v1/messages?q=%2B141555502'))).data.map((m: { id: string }) => m.id);
    expect(all).toHaveLength(4);
    const first = await readJson(await call('/v1/messages?q=%2B141555502&limit=3'));
    const second = await readJson(await call(`/v1/messages?q=%2B141555502&limit=3&cursor=${first.next_cursor}`));
    expect([...first.data, ...second.data].map((m: { id: string }) => m.id)).toEqual(all);
    expect(second.next_cursor).toBeUndefined();
  });

  it('searches a text of its own through the trigram index', async () => {
    const plan = await transaction(app.orm.em.fork(), async (tx) => {
      // The planner's choice among indexes, as on a table too large to read whole.
      await query(tx, sql`set local enable_seqscan = off`);
      const own = new Sql([ownTextOf('m')], []);
      return query(
        tx,
        sql`explain (format json) select id from messages m
             where not m.encrypted and not m.body_from_batch and ${own} ilike '%meet%'`,
      );
    });
    expect(JSON.stringify(plan)).toContain('messages_search_idx');
  });

  it('bounds by created_at: from inclusive, to exclusive', async () => {
    const all = (await readJson(await call('/v1/messages?order=asc'))).data;
    const third = all[2];
    const from = encodeURIComponent(third.created_at);
    const after = (await readJson(await call(`/v1/messages?order=asc&from=${from}`))).data;
    expect(after[0].id).toBe(third.id);
    const before = (await readJson(await call(`/v1/messages?order=asc&to=${from}`))).data;
    expect(before.map((m: { id: string }) => m.id)).toEqual(all.slice(0, 2).map((m: { id: string }) => m.id));
  });

  it('pages with a stable cursor, also when rows arrive between pages', async () => {
    const first = await readJson(await call('/v1/messages?limit=2'));
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    // A new text arrives: it is newer than the first page and must not shift the next one.
    app.clock.advance(1000);
    await app.fetch(
      '/v1/device/inbound',
      json(
        'POST',
        { body: 'Late arrival', sender: '+14155550998', received_at: app.clock.now().toISOString() },
        bearer(other.token),
      ),
    );
    const second = await readJson(await call(`/v1/messages?limit=2&cursor=${first.next_cursor}`));
    const third = await readJson(await call(`/v1/messages?limit=2&cursor=${second.next_cursor}`));
    const ids = [...first.data, ...second.data, ...third.data].map((m: { id: string }) => m.id);
    expect(new Set(ids).size).toBe(5);
    expect(third.next_cursor).toBeUndefined();
  });

  it('refuses bad query parameters with 422', async () => {
    for (const query of [
      'limit=0',
      'limit=201',
      'cursor=nonsense',
      'status=lost',
      'order=sideways',
      'from=yesterday',
      'device_ids=abc',
    ]) {
      const res = await call(`/v1/messages?${query}`);
      expect(res.status, query).toBe(422);
    }
  });

  it('lists batches newest first with their counts, and pages them', async () => {
    const page = await readJson(await call('/v1/batches?limit=2'));
    expect(page.data.map((b: { id: string }) => b.id)).toEqual([batches[2], batches[1]]);
    expect(page.data[0]).toMatchObject({ status: 'queued', recipient_count: 1, sent_count: 0 });
    const rest = await readJson(await call(`/v1/batches?limit=2&cursor=${page.next_cursor}`));
    expect(rest.data.map((b: { id: string }) => b.id)).toEqual([batches[0]]);
    expect(rest.next_cursor).toBeUndefined();
  });

  it('lets a phone list its own messages only', async () => {
    const mine = await readJson(await app.fetch('/v1/device/messages', { headers: bearer(other.token) }));
    expect(mine.data.map((m: { body: string }) => m.body)).toEqual(['Late arrival', 'Can we meet?']);
    const outbound = await readJson(
      await app.fetch('/v1/device/messages?direction=outbound', { headers: bearer(phone.token) }),
    );
    expect(outbound.data).toHaveLength(4);
  });
});
