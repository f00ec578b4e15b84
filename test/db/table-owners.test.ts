import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../src/db/orm';
import { testConfig } from '../support/config';

// docs/architecture.md names, for every table, the code that writes and reads it. Checked against
// the migrated test database's catalogue: a new table without its row, a row left behind by a dropped
// table, or an owner that moved fails here.
const root = path.resolve(__dirname, '..', '..');

/** The "table | written and read by" table: each documented table and the src/ paths its row names. */
function documentedOwners(): Map<string, string[]> {
  const text = readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const start = text.indexOf('| table | written and read by |');
  expect(start).toBeGreaterThan(-1);
  const rows = text.slice(start).split('\n').slice(2);
  const owners = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    const [tables, written] = row.split('|').slice(1, 3);
    const paths = [...written.matchAll(/`(src\/[^`]+)`/g)].map((m) => m[1]);
    for (const [, table] of tables.matchAll(/`([a-z_]+)`/g)) owners.set(table, paths);
  }
  return owners;
}

/** Every file under a folder, or the file itself. */
function filesOf(target: string): string[] {
  const full = path.join(root, target);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .map((file) => path.join(full, file))
    .filter((file) => statSync(file).isFile());
}

describe('the table owners in docs/architecture.md', () => {
  let orm: MikroORM;
  let tables: string[];
  beforeAll(async () => {
    orm = await openOrm(testConfig().databaseUrl!);
    const rows = await orm.em
      .getConnection()
      .execute<Array<{ tablename: string }>>(
        `select tablename from pg_tables where schemaname = current_schema() and tablename <> 'mikro_orm_migrations'`,
      );
    tables = rows.map((row) => row.tablename).sort();
  });
  afterAll(() => orm?.close());

  it('lists every table of the migrated database, and no other', () => {
    expect(tables.length).toBeGreaterThan(20);
    expect([...documentedOwners().keys()].sort()).toEqual(tables);
  });

  it('names owners that exist, whose folder names the table', () => {
    const wrong: string[] = [];
    for (const [table, paths] of documentedOwners()) {
      if (paths.length === 0) wrong.push(`${table}: no src/ path named`);
      const missing = paths.filter((target) => !existsSync(path.join(root, target)));
      if (missing.length > 0) {
        wrong.push(`${table}: ${missing.join(', ')} do not exist`);
        continue;
      }
      // The folder of the first owner holds the table's SQL or its entity's tableName.
      const folder = path.dirname(paths[0].endsWith('/') ? `${paths[0]}x` : paths[0]);
      const named = filesOf(folder).some((file) => new RegExp(`\\b${table}\\b`).test(readFileSync(file, 'utf8')));
      if (!named) wrong.push(`${table}: not named in ${folder}`);
    }
    expect(wrong).toEqual([]);
  });
});
