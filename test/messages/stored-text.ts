import type { TestApp } from '../support/app';

/**
 * Every text column (text, varchar, json, jsonb, arrays) of every table, and the rows in it that
 * contain `needle`: `table.column` of each hit. What the database holds, whatever wrote it; in a table
 * with a user_id, only the rows of `userId` (the test database is shared by every test file, whose
 * own sends may name the same number).
 */
export async function columnsHolding(app: TestApp, needle: string, userId: string): Promise<string[]> {
  const em = app.orm.em.fork();
  const columns: Array<{ table_name: string; column_name: string; scoped: boolean }> = await em.execute(
    `select c.table_name, c.column_name,
            exists (select 1 from information_schema.columns u
                     where u.table_schema = c.table_schema and u.table_name = c.table_name
                       and u.column_name = 'user_id') as scoped
       from information_schema.columns c
      where c.table_schema = current_schema()
        and c.data_type in ('text', 'character varying', 'json', 'jsonb', 'ARRAY')`,
  );
  const hits: string[] = [];
  for (const { table_name, column_name, scoped } of columns) {
    const [row] = await em.execute(
      `select count(*)::int as n from "${table_name}"
        where strpos("${column_name}"::text, ?) > 0 ${scoped ? 'and user_id = ?' : ''}`,
      scoped ? [needle, userId] : [needle],
    );
    if (row.n > 0) hits.push(`${table_name}.${column_name}`);
  }
  return hits;
}
