import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';

// What the readiness check asks Postgres.

export const healthRepository = {
  /** Resolves when Postgres answers a statement on a pooled connection. */
  async ping(em: EntityManager): Promise<void> {
    await query(em, sql`select 1`);
  },
};
