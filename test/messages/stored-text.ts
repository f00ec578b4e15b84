import type { TestApp } from '../support/app';

/**
 * Every text column (text, varchar, json, jsonb) of every table, and the rows in it that contain
 * `needle`: `table.column` of each hit. What the database holds, whatever wrote it.
 */
export async function columnsHolding(app: TestApp, needle: string): Promise<string[]> {
  const em = app.orm.em.fork();
  const columns: Array<{ table_name: string; column_name: string }> = await em.execute(
    `select table_name, column_name from information_schema.columns
      where table_schema = current_schema()
        and data_type in ('text', 'character varying', 'json', 'jsonb', 'ARRAY')`,
  );
  const hits: string[] = [];
  for (const { table_name, column_name } of columns) {
    const [row] = await em.execute(
      `select count(*)::int as n from "${table_name}" where strpos("${column_name}"::text, ?) > 0`,
      [needle],
    );
    if (row.n > 0) hits.push(`${table_name}.${column_name}`);
  }
  return hits;
}
