import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sql } from '../../src/db/sql';

// The schema the migrations build, read back from Postgres' catalogue as SQL: every table with its
// columns, constraints and indexes, then every function and trigger. The migrations say how the
// schema came to be; this says what it is, each trigger in its last definition.

const HEADER = `-- The database schema after every migration, generated from the migrated test database's
-- catalogue by test/db/schema-sql.test.ts (which fails when it is not current). Do not edit: change a
-- migration, then run \`npx vitest run test/db/schema-sql.test.ts -u\`.
`;

export async function dumpSchema(em: EntityManager): Promise<string> {
  const tables = await query<{ name: string }>(
    em,
    sql`select c.relname as name from pg_class c
         where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
           and c.relname <> 'mikro_orm_migrations'
         order by c.relname`,
  );
  const extensions = await query<{ name: string }>(
    em,
    sql`select extname as name from pg_extension where extname <> 'plpgsql' order by extname`,
  );
  const parts: string[] = [HEADER, ...extensions.map(({ name }) => `create extension ${name};\n`)];
  for (const { name } of tables) parts.push(await tableSql(em, name));
  const functions = await query<{ definition: string }>(
    em,
    sql`select pg_get_functiondef(p.oid) as definition from pg_proc p
         where p.pronamespace = current_schema()::regnamespace
           and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
         order by p.proname, pg_get_function_identity_arguments(p.oid)`,
  );
  for (const { definition } of functions) parts.push(`${definition.trim()};\n`);
  const triggers = await query<{ definition: string }>(
    em,
    sql`select pg_get_triggerdef(t.oid) as definition from pg_trigger t join pg_class c on c.oid = t.tgrelid
         where c.relnamespace = current_schema()::regnamespace and not t.tgisinternal
         order by c.relname, t.tgname`,
  );
  if (triggers.length > 0) parts.push(triggers.map(({ definition }) => `${definition};`).join('\n') + '\n');
  // Names of the schema itself (public, or the test run's own) are left out: the text is the same anywhere.
  const schema = (await query<{ schema: string }>(em, sql`select current_schema() as schema`))[0].schema;
  return parts.join('\n').replaceAll(`${schema}.`, '');
}

async function tableSql(em: EntityManager, table: string): Promise<string> {
  const columns = await query<{ name: string; type: string; notNull: boolean; fallback: string | null }>(
    em,
    sql`select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null,
               pg_get_expr(d.adbin, d.adrelid) as fallback
          from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
         where a.attrelid = ${table}::regclass and a.attnum > 0 and not a.attisdropped
         order by a.attnum`,
  );
  const lines = columns.map(
    (c) => `  ${c.name} ${c.type}${c.notNull ? ' not null' : ''}${c.fallback !== null ? ` default ${c.fallback}` : ''}`,
  );
  const constraints = await query<{ name: string; definition: string }>(
    em,
    sql`select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
         where conrelid = ${table}::regclass and contype <> 'n' order by contype <> 'p', conname`,
  );
  lines.push(...constraints.map((c) => `  constraint ${c.name} ${c.definition}`));
  const indexes = await query<{ definition: string }>(
    em,
    sql`select pg_get_indexdef(i.indexrelid) as definition from pg_index i
         where i.indrelid = ${table}::regclass
           and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
         order by i.indexrelid::regclass::text`,
  );
  return (
    [`create table ${table} (\n${lines.join(',\n')}\n);`, ...indexes.map(({ definition }) => `${definition};`)].join(
      '\n',
    ) + '\n'
  );
}
