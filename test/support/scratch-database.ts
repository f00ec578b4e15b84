import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import { openOrm } from '../../src/db/orm';
import { query, sql } from '../../src/db/sql';

export interface ScratchDatabase {
  orm: MikroORM;
  /** Closes the ORM and drops the database. */
  drop(): Promise<void>;
}

/**
 * A throwaway database beside the shared test database, on the same Postgres, migrated up to and
 * including the migration `to`: for tests of migrations, which need a database that is not yet
 * migrated to the end.
 */
export async function scratchDatabase(to: string): Promise<ScratchDatabase> {
  const name = `phone_gateway_migration_${randomUUID().replaceAll('-', '')}`;
  const admin = await openOrm(inject('databaseUrl'));
  let orm: MikroORM | undefined;
  const drop = async () => {
    await orm?.close();
    await query(admin.em.fork(), sql`drop database if exists ${sql.identifier(name)}`);
    await admin.close();
  };
  try {
    await query(admin.em.fork(), sql`create database ${sql.identifier(name)}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${name}`;
    orm = await openOrm(url.toString());
    await orm.getMigrator().up({ to });
    return { orm, drop };
  } catch (error) {
    // The first error tells what went wrong; one in dropping would hide it.
    await drop().catch(() => undefined);
    throw error;
  }
}
