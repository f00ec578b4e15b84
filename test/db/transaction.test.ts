import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterCommit, inOneStatement, transaction } from '../../src/db/transaction';
import { query, sql } from '../../src/db/sql';
import { openOrm } from '../../src/db/orm';
import { testConfig } from '../support/config';

// transaction() nests: an inner one on an EntityManager already in a transaction is a savepoint,
// and what it registers with afterCommit waits for the outermost commit.
describe('transaction()', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openOrm(testConfig().databaseUrl!);
  });
  afterAll(() => orm?.close());

  it('runs the tasks of a nested transaction after the outermost commit, not at its savepoint', async () => {
    const ran: string[] = [];
    await transaction(orm.em.fork(), async (outer) => {
      afterCommit(outer, () => ran.push('outer'));
      // A service inside uses the context's EntityManager (orm.em resolves to the outer transaction).
      await transaction(orm.em, async (inner) => {
        expect(inner.isInTransaction()).toBe(true);
        afterCommit(inner, () => ran.push('inner'));
      });
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['outer', 'inner']);
  });

  it('drops the nested tasks when the outer transaction rolls back', async () => {
    const ran: string[] = [];
    await expect(
      transaction(orm.em.fork(), async () => {
        await transaction(orm.em, async (inner) => {
          afterCommit(inner, () => ran.push('inner'));
        });
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(ran).toEqual([]);
  });

  it('drops the tasks of a rolled-back savepoint and keeps the outer ones', async () => {
    const ran: string[] = [];
    await transaction(orm.em.fork(), async (outer) => {
      afterCommit(outer, () => ran.push('outer'));
      await expect(
        transaction(orm.em, async (inner) => {
          afterCommit(inner, () => ran.push('inner'));
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
    });
    expect(ran).toEqual(['outer']);
  });

  it('runs the tasks of an independent transaction opened inside another at its own commit', async () => {
    const ran: string[] = [];
    await transaction(orm.em.fork(), async () => {
      await transaction(orm.em.fork(), async (own) => {
        expect(own.isInTransaction()).toBe(true);
        afterCommit(own, () => ran.push('own'));
      });
      expect(ran).toEqual(['own']);
    });
  });

  it('runs what follows a single statement right after it, and refuses inside a transaction', async () => {
    const ran: string[] = [];
    const written = await inOneStatement(
      orm.em,
      () => query(orm.em.fork(), sql`select 1 as one`),
      (rows) => ran.push(`after ${rows.length}`),
    );
    expect(written).toEqual([{ one: 1 }]);
    expect(ran).toEqual(['after 1']);
    // Inside a transaction (an Idempotency-Key's) the statement would not be committed yet.
    await transaction(orm.em.fork(), async () => {
      await expect(
        inOneStatement(
          orm.em,
          () => query(orm.em, sql`select 1`),
          () => ran.push('never'),
        ),
      ).rejects.toThrow('use transaction()');
    });
    expect(ran).toEqual(['after 1']);
  });
});
