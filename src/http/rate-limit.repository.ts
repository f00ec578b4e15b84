import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';

// The SQL of `rate_limit_windows`: one counter per key and fixed window.

export const rateLimitRepository = {
  /** Counts one hit in the window and returns the window's hits so far. */
  async hit(em: EntityManager, key: string, windowStart: Date): Promise<number> {
    const [row] = await query<{ hits: number }>(
      em,
      sql`insert into rate_limit_windows (key, window_start, hits) values (${key}, ${windowStart}, 1)
            on conflict (key, window_start)
            do update set hits = rate_limit_windows.hits + 1, last_hit_at = now()
            returning hits`,
    );
    return row.hits;
  },

  async hits(em: EntityManager, key: string, windowStart: Date): Promise<number> {
    const [row] = await query<{ hits: number }>(
      em,
      sql`select hits from rate_limit_windows where key = ${key} and window_start = ${windowStart}`,
    );
    return row?.hits ?? 0;
  },

  /** Drops the windows nobody has hit for a day by the database's clock; no window is that long. */
  async dropIdle(em: EntityManager): Promise<void> {
    await query(em, sql`delete from rate_limit_windows where last_hit_at < now() - interval '1 day'`);
  },
};
