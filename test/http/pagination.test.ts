import { randomUUID } from 'node:crypto';
import * as yup from 'yup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Event } from '../../src/events/event.entity';
import {
  createdWithin,
  decodeCursor,
  encodeCursor,
  findPage,
  pageBody,
  pageFields,
  type Order,
} from '../../src/http/pagination';
import { registerAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';

describe('cursor pagination', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('round-trips opaque cursors and rejects anything else', () => {
    const row = { createdAt: new Date('2026-01-02T03:04:05.678Z'), id: randomUUID() };
    const cursor = encodeCursor(row);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(row);
    for (const bad of [
      '',
      'bogus',
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from('["x","y"]').toString('base64url'),
    ])
      expect(decodeCursor(bad)).toBeNull();
  });

  it('validates limit (1..200, default 50) and cursor as shared query fields', async () => {
    const schema = yup.object(pageFields());
    // Read as validate() reads a query string: its numbers are decimal text.
    const query = { context: { query: true } };
    expect(await schema.validate({}, query)).toEqual({ limit: 50 });
    expect(await schema.validate({ limit: '200' }, query)).toEqual({ limit: 200 });
    for (const limit of ['0', '201', 'abc', '1.5', '0x10', '1e2'])
      await expect(schema.validate({ limit }, query)).rejects.toThrow(/limit/);
    await expect(schema.validate({ cursor: 'nope' }, query)).rejects.toThrow(/cursor/);
  });

  it('walks every row once in both orders, stable while rows are inserted, ties broken by id', async () => {
    const account = await registerAccount(app);
    const em = app.orm.em.fork();
    const base = Date.now() - 3_600_000;
    // Pairs of rows share a timestamp, so the id decides their order.
    const insert = async (ms: number) => {
      const event = em.create(Event, {
        id: randomUUID(),
        userId: account.userId,
        name: 'ping',
        data: {},
        createdAt: new Date(ms),
      });
      await em.flush();
      return event.id;
    };
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push(await insert(base + Math.floor(i / 2) * 1000));

    for (const order of ['desc', 'asc'] as Order[]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await findPage(app.orm.em.fork(), Event, { userId: account.userId }, { cursor, limit: 4, order });
        const body = pageBody(page, (e) => e.id);
        seen.push(...body.data);
        cursor = body.next_cursor;
        if (!cursor) expect('next_cursor' in body).toBe(false);
        pages += 1;
        // Rows written meanwhile (newer ones) never shift the pages still to come in desc order.
        if (order === 'desc' && pages === 1) await insert(Date.now());
      } while (cursor);
      expect(pages).toBe(3);
      const expected = [...ids].sort((a, b) => {
        const ta = Math.floor(ids.indexOf(a) / 2);
        const tb = Math.floor(ids.indexOf(b) / 2);
        return ta - tb || (a < b ? -1 : 1);
      });
      if (order === 'desc') expect(seen).toEqual(expected.reverse());
      else expect(seen.slice(0, 11)).toEqual(expected);
      expect(new Set(seen).size).toBe(seen.length);
    }

    // An exactly full last page has no next cursor.
    const exact = await findPage(app.orm.em.fork(), Event, { userId: account.userId }, { limit: 12 });
    expect(exact.items).toHaveLength(12);
    expect(exact.nextCursor).toBeUndefined();
  });

  it('filters created_at from (inclusive) to (exclusive), and not at all without bounds', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    const to = new Date('2026-02-01T00:00:00Z');
    expect(createdWithin(from, to)).toEqual({ createdAt: { $gte: from, $lt: to } });
    expect(createdWithin(from)).toEqual({ createdAt: { $gte: from } });
    expect(createdWithin(undefined, to)).toEqual({ createdAt: { $lt: to } });
    expect(createdWithin()).toEqual({});
  });
});
