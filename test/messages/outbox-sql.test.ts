import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { query, sql } from '../../src/db/sql';
import { openOrm } from '../../src/db/orm';
import { NO_PACE, placement, type Pace } from '../../src/messages/outbox';
import { placementSql } from '../../src/messages/sends.repository';
import { testConfig } from '../support/config';

// A send written in one statement places itself there: its first stale deadline and its estimate are
// SQL of the queue's `ahead`. They must be the instants placement() gives, to the millisecond, for
// every pace (fractional seconds per message included), queue depth, size and ttl.
describe('placementSql()', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openOrm(testConfig().databaseUrl!);
  });
  afterAll(() => orm?.close());

  const paces: Pace[] = [
    NO_PACE,
    { ...NO_PACE, sendDelaySeconds: 3 },
    { ...NO_PACE, sendDelaySeconds: 2, jitterSeconds: 3 },
    { ...NO_PACE, maxPerMinute: 7 },
    { ...NO_PACE, maxPerHour: 1234 },
    { ...NO_PACE, sendDelaySeconds: 1, jitterSeconds: 1, maxPerMinute: 11, maxPerHour: 601 },
    // 14.0625 s a message: estimates land on half milliseconds, where Math.round and rint differ.
    { ...NO_PACE, maxPerHour: 256 },
    // Stock Android's 30 per 30 minutes: a minute a message; 7 per 13 minutes: 111.428… s.
    { ...NO_PACE, sendDelaySeconds: 3, capacity: { count: 30, minutes: 30 } },
    { ...NO_PACE, maxPerMinute: 11, capacity: { count: 7, minutes: 13 } },
  ];
  const cases = paces.flatMap((pace) =>
    [0, 1, 7, 99_999, 1_234_567].flatMap((ahead) =>
      [1, 3, 1000].flatMap((count) =>
        [null, 1, 3601].map((ttlSeconds) => ({
          pace,
          ahead,
          count,
          ttlSeconds,
          sendableAt: new Date(Date.UTC(2026, 10, 24, 9, 30, 0, 123 + ahead)),
          staleWindowMs: 3_600_000,
        })),
      ),
    ),
  );

  it('gives the instants placement() gives', async () => {
    const em = orm.em.fork();
    const expected = cases.map((input) => {
      const placed = placement(input);
      return {
        first: placed.firstStaleAt.getTime(),
        estimate: placed.estimate.getTime(),
        per: placed.perMessageSeconds,
        ttl: placed.ttlAt?.getTime() ?? null,
      };
    });
    const got = await Promise.all(
      cases.map(async ({ ahead, ...input }) => {
        const placed = placementSql(input, sql`q.ahead`);
        const [row] = await query<{ first: string; estimate: string }>(
          em.fork(),
          sql`select (extract(epoch from ${placed.firstStaleAt}) * 1000)::text as first,
                     (extract(epoch from ${placed.estimate}) * 1000)::text as estimate
                from (select ${ahead}::int as ahead) q`,
        );
        return {
          first: Number(row.first),
          estimate: Number(row.estimate),
          per: placed.perMessageSeconds,
          ttl: placed.ttlAt?.getTime() ?? null,
        };
      }),
    );
    expect(got).toEqual(expected);
  });

  it('leaves a phone with a send window to placement()', () => {
    const window = { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00', timezone: 'UTC' };
    expect(() =>
      placementSql(
        { pace: { ...NO_PACE, window }, count: 1, ttlSeconds: null, sendableAt: new Date(), staleWindowMs: 0 },
        sql`q.ahead`,
      ),
    ).toThrow('send window');
  });
});
