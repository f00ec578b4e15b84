import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import { bindParameters, execute } from '../../src/db/sql';
import { transaction } from '../../src/db/transaction';
import { openOrm } from '../../src/db/orm';
import { testConfig } from '../support/config';

// execute() sends values as bind parameters where em.execute formats them into the text; for the
// statements it runs, it must answer exactly as em.execute does.
describe('execute()', () => {
  let orm: MikroORM;
  // A table of this run's own (any pooled connection may run a statement).
  const probe = `sql_probe_${process.pid}`;
  beforeAll(async () => {
    orm = await openOrm(testConfig().databaseUrl!);
    await orm.em.fork().execute(`create table ${probe} (id int primary key, note text)`);
  });
  afterAll(async () => {
    await orm?.em.fork().execute(`drop table if exists ${probe}`);
    await orm?.close();
  });

  it('numbers the placeholders; numbers, booleans and null stay literals, an array is a list', () => {
    const at = new Date('2026-11-24T06:00:00.000Z');
    expect(bindParameters('a = ? and b = ? and c in (?) and d = ? and e = ? and f = \\?', ['x', 2, ['p', 3], true, at])).toEqual({
      text: 'a = $1 and b = 2 and c in ($2, 3) and d = true and e = $3 and f = ?',
      values: ['x', 'p', '2026-11-24T06:00:00.000Z'],
    });
    expect(bindParameters('a = ? and b = ?', [null, { k: "it's" }])).toEqual({
      text: 'a = null and b = $1',
      values: ['{"k":"it\'s"}'],
    });
    expect(() => bindParameters('a = ?', [])).toThrow('more `?` placeholders than values');
    expect(() => bindParameters('a = ?', [1, 2])).toThrow('more values than `?` placeholders');
    expect(() => bindParameters('a = ?', [Number.NaN])).toThrow('not a finite number');
  });

  it('returns the rows em.execute returns, with the same types', async () => {
    const em = orm.em.fork();
    const statement = `select ?::uuid as id, ? as n, ?::timestamptz as at, ? as flag, ?::jsonb as doc, ? as nothing,
        (? = any(string_to_array(?, ','))) as found, coalesce(?, 'none') as maybe,
        x from (values (1), (2)) v(x) where x in (?) order by x`;
    const params = [
      '7a870900-d2e9-4dd5-879e-8cde9295e167',
      41.5,
      new Date('2026-11-24T06:15:12.523Z'),
      false,
      { text: "O'Brien \\ \"quoted\" ?", n: [1, 2] },
      null,
      '+14155550100',
      '+14155550199,+14155550100',
      "it's",
      [1, 2],
    ];
    const ours = await execute(em, statement, params);
    expect(ours).toEqual(await em.execute(statement, params));
    expect(ours).toHaveLength(2);
    expect(ours[0]).toMatchObject({ doc: { text: "O'Brien \\ \"quoted\" ?" }, found: true, maybe: "it's" });
  });

  it('prepared: every value is a parameter, the same text each time, the same rows', async () => {
    expect(bindParameters('a = ? and b = ? and c in (?) and d = ?', [2, null, ['p', 3], true], true)).toEqual({
      text: 'a = $1 and b = $2 and c in ($3, $4) and d = $5',
      values: [2, null, 'p', 3, true],
    });
    const em = orm.em.fork();
    // Types come from the context: a cast, a column, a comparison.
    const statement = `insert into ${probe} (id, note) select ?, ?::text || ? where ? and ?::int is not distinct from ?
                       returning id, note`;
    for (const [id, flag] of [
      [10, true],
      [11, false],
      [12, true],
    ] as const) {
      const rows = await execute(em, statement, [id, 'n', id, flag, null, null], { prepared: true });
      expect(rows).toEqual(flag ? [{ id, note: `n${id}` }] : []);
    }
    expect(await execute(em, `select id from ${probe} where id >= ? order by id`, [10], { prepared: true })).toEqual([
      { id: 10 },
      { id: 12 },
    ]);
  });

  it('runs on the transaction em is in, so a rollback undoes it', async () => {
    await expect(
      transaction(orm.em.fork(), async (tx) => {
        await execute(tx, `insert into ${probe} (id, note) values (?, ?)`, [1, 'inside']);
        // The same transaction sees its own write before the commit.
        expect(await execute(tx, `select note from ${probe} where id = ?`, [1])).toEqual([{ note: 'inside' }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await execute(orm.em.fork(), `select note from ${probe} where id = ?`, [1])).toEqual([]);
  });

  it("converts Postgres' errors to MikroORM's exceptions, as em.execute does", async () => {
    const em = orm.em.fork();
    await execute(em, `insert into ${probe} (id, note) values (?, ?)`, [2, 'first']);
    await expect(execute(em, `insert into ${probe} (id, note) values (?, ?)`, [2, 'again'])).rejects.toBeInstanceOf(
      UniqueConstraintViolationException,
    );
  });
});
