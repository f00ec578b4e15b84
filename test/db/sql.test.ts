import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import { compile, query, queryEntities, sql } from '../../src/db/sql';
import { transaction } from '../../src/db/transaction';
import { openOrm } from '../../src/db/orm';
import { Message } from '../../src/messages/message.entity';
import { testConfig } from '../support/config';

describe('sql``', () => {
  it('binds each value as a numbered parameter where it sits, never as text', () => {
    const at = new Date('2026-11-24T06:00:00.000Z');
    expect(
      compile(sql`select * from t where a = ${'x'} and b = ${2} and c = ${true} and d = ${at} and e = ${null}`),
    ).toEqual({
      text: 'select * from t where a = $1 and b = $2 and c = $3 and d = $4 and e = $5',
      values: ['x', 2, true, '2026-11-24T06:00:00.000Z', null],
    });
    expect(compile(sql`select ${{ k: "it's" }}::jsonb, ${undefined}::text`)).toEqual({
      text: 'select $1::jsonb, $2::text',
      values: ['{"k":"it\'s"}', null],
    });
    expect(() => compile(sql`select ${Number.NaN}`)).toThrow('not a finite number');
    expect(() => compile(sql`select ${Symbol('s')}`)).toThrow('no SQL parameter');
  });

  it('binds an array as one parameter, dates in it as ISO 8601', () => {
    const ids = ['7a870900-d2e9-4dd5-879e-8cde9295e167', 'c2b8f7c8-0a54-4b7b-9a59-0b1f1e7f8a11'];
    expect(compile(sql`where id = any(${ids}::uuid[]) and at = any(${[new Date(0)]}::timestamptz[])`)).toEqual({
      text: 'where id = any($1::uuid[]) and at = any($2::timestamptz[])',
      values: [ids, ['1970-01-01T00:00:00.000Z']],
    });
  });

  it('splices fragments with their own values, numbered in order; join and empty compose them', () => {
    const deviceId = 'd';
    const filters = [sql`user_id = ${'u'}`, deviceId ? sql`device_id = ${deviceId}` : sql.empty];
    const statement = sql`select ${sql.identifier('id')} from messages where ${sql.join(filters, sql` and `)} limit ${5}`;
    expect(compile(statement)).toEqual({
      text: 'select "id" from messages where user_id = $1 and device_id = $2 limit $3',
      values: ['u', 'd', 5],
    });
    expect(compile(sql`values ${sql.join([1, 2, 3].map((n) => sql`(${n}::int)`))}`)).toEqual({
      text: 'values ($1::int), ($2::int), ($3::int)',
      values: [1, 2, 3],
    });
    expect(compile(sql`select 1${sql.empty}`).text).toBe('select 1');
    expect(compile(sql.join([])).text).toBe('');
  });

  it('refuses a name that is not a plain identifier', () => {
    expect(() => sql.identifier('users; drop table users')).toThrow('not an identifier');
    expect(() => sql.identifier('"x"')).toThrow('not an identifier');
  });

  describe('query()', () => {
    let orm: MikroORM;
    // A table of this run's own (any pooled connection may run a statement), in a schema of its own:
    // the schema's own tables are read back whole beside it (test/db/schema-sql.test.ts).
    const schemaName = `sql_probe_${process.pid}`;
    const probe = sql`${sql.identifier(schemaName)}.probe`;
    beforeAll(async () => {
      orm = await openOrm(testConfig().databaseUrl!);
      await query(orm.em.fork(), sql`create schema ${sql.identifier(schemaName)}`);
      await query(orm.em.fork(), sql`create table ${probe} (id int primary key, note text, at timestamptz)`);
    });
    afterAll(async () => {
      if (orm) await query(orm.em.fork(), sql`drop schema if exists ${sql.identifier(schemaName)} cascade`);
      await orm?.close();
    });

    it('returns rows with camelCase keys; timestamps as Postgres writes them (the ORM leaves them to its mapper)', async () => {
      const at = new Date('2026-11-24T06:15:12.523Z');
      const [row] = await query(
        orm.em.fork(),
        sql`select ${'7a870900-d2e9-4dd5-879e-8cde9295e167'}::uuid as user_id, ${41.5}::float8 as half_n,
                   ${at}::timestamptz as created_at, ${false}::boolean as is_flag,
                   ${{ text: 'O\'Brien \\ "quoted" ? $1', n: [1, 2] }}::jsonb as doc, ${null}::text as nothing`,
      );
      expect(row).toEqual({
        userId: '7a870900-d2e9-4dd5-879e-8cde9295e167',
        halfN: 41.5,
        createdAt: '2026-11-24 06:15:12.523+00',
        isFlag: false,
        doc: { text: 'O\'Brien \\ "quoted" ? $1', n: [1, 2] },
        nothing: null,
      });
    });

    it('an injection attempt is only a value: it matches as text and runs nothing', async () => {
      const em = orm.em.fork();
      const hostile = `x'); drop table ${schemaName}.probe; --`;
      await query(em, sql`insert into ${probe} (id, note) values (${1}, ${hostile})`);
      expect(await query(em, sql`select note from ${probe} where note = ${hostile}`)).toEqual([{ note: hostile }]);
      // An array item with a quote, a comma and a brace stays one item.
      const items = ['a,b', 'c"}', hostile];
      expect(await query(em, sql`select unnest(${items}::text[]) as item`)).toEqual(items.map((item) => ({ item })));
      expect(await query(em, sql`select count(*)::int as n from ${probe}`)).toEqual([{ n: 1 }]);
    });

    it('matches an array natively: = any(…::uuid[])', async () => {
      const rows = await query<{ n: number }>(
        orm.em.fork(),
        sql`select n from (values (1), (2), (3)) v(n) where n = any(${[1, 3]}::int[]) order by n`,
      );
      expect(rows).toEqual([{ n: 1 }, { n: 3 }]);
      expect(await query(orm.em.fork(), sql`select 1 as n where 1 = any(${[]}::int[])`)).toEqual([]);
    });

    it('prepared: the same text each time, the same rows', async () => {
      const em = orm.em.fork();
      for (const [id, flag] of [
        [10, true],
        [11, false],
        [12, true],
      ] as const) {
        const rows = await query(
          em,
          sql`insert into ${probe} (id, note) select ${id}, ${'n'}::text || ${id} where ${flag} returning id, note`,
          { prepared: true },
        );
        expect(rows).toEqual(flag ? [{ id, note: `n${id}` }] : []);
      }
      expect(await query(em, sql`select id from ${probe} where id >= ${10} order by id`, { prepared: true })).toEqual([
        { id: 10 },
        { id: 12 },
      ]);
    });

    it('runs on the transaction em is in, so a rollback undoes it', async () => {
      await expect(
        transaction(orm.em.fork(), async (tx) => {
          await query(tx, sql`insert into ${probe} (id, note) values (${20}, ${'inside'})`);
          // The same transaction sees its own write before the commit.
          expect(await query(tx, sql`select note from ${probe} where id = ${20}`)).toEqual([{ note: 'inside' }]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await query(orm.em.fork(), sql`select note from ${probe} where id = ${20}`)).toEqual([]);
    });

    it("converts Postgres' errors to MikroORM's exceptions", async () => {
      const em = orm.em.fork();
      await query(em, sql`insert into ${probe} (id, note) values (${2}, ${'first'})`);
      await expect(query(em, sql`insert into ${probe} (id, note) values (${2}, ${'again'})`)).rejects.toBeInstanceOf(
        UniqueConstraintViolationException,
      );
    });

    it('queryEntities maps whole rows as MikroORM maps them', async () => {
      const em = orm.em.fork();
      const [row] = await queryEntities(
        em,
        Message,
        sql`select gen_random_uuid() as id, gen_random_uuid() as user_id, null::uuid as batch_id,
                   gen_random_uuid() as device_id, 'inbound' as direction, 'received' as status, 'hi' as body,
                   null as recipient, '+14155550100' as sender, null::int as sim_subscription_id, 1 as segments,
                   0 as position, 0 as priority, ${new Date(0)}::timestamptz as received_at,
                   ${new Date(1000)}::timestamptz as created_at, ${new Date(1000)}::timestamptz as updated_at`,
      );
      expect(row).toMatchObject({ direction: 'inbound', sender: '+14155550100', simSubscriptionId: null, segments: 1 });
      expect(row.receivedAt).toEqual(new Date(0));
      expect(row.createdAt).toEqual(new Date(1000));
    });
  });
});
