// The read compiler: the fast path of readRows (./read.ts). It writes the SQL of the filters lists use
// (properties equal to a value or null, `$in`, `$lt`/`$gt`/`$lte`/`$gte`/`$ne`, `$and`, `$or`) from the
// entity's metadata. Its slow path, which it must equal row for row, is MikroORM's query builder
// (viaQueryBuilder in ./read.ts): same rows, same order. Any filter it does not know it refuses
// (null), and readRows hands that one to the query builder.
//
// Why it exists: the query builder spent more CPU building such a statement than Postgres spent
// running it (`npm run bench:profile`, docs/performance.md). test/db/read-compiler.test.ts runs both
// on the same filters.
import type { EntityManager, EntityMetadata, EntityName, FilterQuery } from '@mikro-orm/postgresql';
import { sql, type Sql } from './sql';

/**
 * The whole statement of a read: `select *` of the entity's table where `where`, ordered by
 * `orderBy`, at most `limit` rows; null when the filter or the order is not one this compiler knows.
 */
export function compileRead(
  meta: EntityMetadata,
  where: Filter,
  options: { orderBy: Record<string, 'asc' | 'desc'>; limit?: number },
): Sql | null {
  const columns = columnsOf(meta);
  const condition = compile(where, columns);
  const order = Object.entries(options.orderBy).map(([prop, dir]) => {
    const column = columns.byProperty.get(prop);
    return column && (dir === 'asc' || dir === 'desc')
      ? sql`${sql.identifier(column)} ${dir === 'asc' ? sql`asc` : sql`desc`}`
      : null;
  });
  if (condition === null || order.includes(null)) return null;
  const limit = options.limit === undefined ? sql.empty : sql` limit ${options.limit}`;
  return sql`select * from ${sql.identifier(columns.table)} where ${condition} order by ${sql.join(order as Sql[])}${limit}`;
}

interface Columns {
  table: string;
  byProperty: Map<string, string>;
}

const cache = new WeakMap<EntityMetadata, Columns>();

/** The entity's table and its scalar properties' one-column names. */
function columnsOf(meta: EntityMetadata): Columns {
  let columns = cache.get(meta);
  if (!columns) {
    columns = { table: meta.tableName, byProperty: new Map() };
    for (const prop of meta.props) {
      if (prop.persist === false || prop.fieldNames?.length !== 1) continue;
      columns.byProperty.set(prop.name, prop.fieldNames[0]);
    }
    cache.set(meta, columns);
  }
  return columns;
}

export type Filter = Record<string, unknown>;
const OPERATORS: Record<string, Sql> = { $lt: sql`<`, $gt: sql`>`, $lte: sql`<=`, $gte: sql`>=`, $ne: sql`<>` };

const isPlain = (value: unknown): value is Filter =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** Whether `readRows` has the SQL of `where` written here (else the query builder writes it). */
export function compiles<T extends object>(em: EntityManager, entity: EntityName<T>, where: FilterQuery<T>): boolean {
  return compile(where as Filter, columnsOf(em.getMetadata().get(entity as never))) !== null;
}

/** `where` as SQL, or null when it is not one we know. */
function compile(where: Filter, columns: Columns): Sql | null {
  if (!isPlain(where) || Object.getOwnPropertySymbols(where).length > 0) return null;
  const parts: Sql[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) return null;
      const subs = value.map((sub) => compile(sub as Filter, columns));
      if (subs.includes(null)) return null;
      parts.push(sql`(${sql.join(subs as Sql[], key === '$and' ? sql` and ` : sql` or `)})`);
      continue;
    }
    const column = columns.byProperty.get(key);
    if (!column || value === undefined) return null;
    const ref = sql.identifier(column);
    if (value === null) {
      parts.push(sql`${ref} is null`);
    } else if (isPlain(value)) {
      const ops = Object.entries(value);
      if (ops.length === 0) return null;
      for (const [op, operand] of ops) {
        if (op === '$in' && Array.isArray(operand) && operand.length > 0 && !operand.some((v) => v == null)) {
          parts.push(sql`${ref} in (${sql.join(operand.map((v) => sql`${v}`))})`);
        } else if (OPERATORS[op] && operand !== null && operand !== undefined && !isPlain(operand)) {
          parts.push(sql`${ref} ${OPERATORS[op]} ${operand}`);
        } else return null;
      }
    } else if (
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      value instanceof Date
    ) {
      parts.push(sql`${ref} = ${value}`);
    } else return null;
  }
  return parts.length > 0 ? sql.join(parts, sql` and `) : sql`true`;
}
