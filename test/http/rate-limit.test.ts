import type { MikroORM } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openOrm } from '../../src/db/orm';
import { createRateLimiter } from '../../src/http/rate-limit';
import { testClock } from '../support/app';

const DAY = 86_400_000;
const window = { limit: 3, windowMs: 15 * 60_000 };

// The fixed windows live in one table that every api process shares, and each process counts by
// its own clock. Dropping old windows must not depend on whose clock is asking.
describe('the abuse limits', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openOrm(inject('databaseUrl'));
  });
  afterAll(() => orm?.close());

  const limiter = (clock = testClock()) => createRateLimiter({ em: () => orm.em.fork(), clock, sweepChance: 1 });
  const windowsOf = async (key: string): Promise<number> => {
    const [row] = await orm.em.fork().execute('select count(*)::int as n from rate_limit_windows where key = ?', [key]);
    return row.n;
  };

  it('refuse past the limit within a window, and count again in the next', async () => {
    const clock = testClock();
    const limits = limiter(clock);
    const key = `test:${randomUUID()}`;
    for (let i = 0; i < window.limit; i++) await limits.hit(key, window);
    await expect(limits.hit(key, window)).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
    await expect(limits.check(key, window)).rejects.toMatchObject({ status: 429 });
    clock.advance(window.windowMs);
    await expect(limits.hit(key, window)).resolves.toBeUndefined();
  });

  it('keep a live window when a process whose clock is days ahead drops old ones', async () => {
    const behind = limiter(testClock());
    const ahead = limiter(testClock(new Date(Date.now() + 20 * DAY)));
    const key = `test:${randomUUID()}`;
    for (let i = 0; i < window.limit; i++) await behind.hit(key, window);

    await ahead.hit(`test:${randomUUID()}`, window);

    expect(await windowsOf(key)).toBe(1);
    await expect(behind.hit(key, window)).rejects.toMatchObject({ status: 429 });
  });

  it('drop a window nobody has hit for a day by the database clock', async () => {
    const limits = limiter();
    const idle = `test:${randomUUID()}`;
    const live = `test:${randomUUID()}`;
    await limits.hit(idle, window);
    await orm.em
      .fork()
      .execute(`update rate_limit_windows set last_hit_at = now() - interval '25 hours' where key = ?`, [idle]);

    await limits.hit(live, window);

    expect(await windowsOf(idle)).toBe(0);
    expect(await windowsOf(live)).toBe(1);
  });
});
