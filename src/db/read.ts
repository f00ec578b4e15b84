import type { EntityManager, EntityMetadata, EntityName, FilterQuery } from '@mikro-orm/postgresql';
import { mapEntities, queryRaw, sql, type Sql } from './sql';

/**
 * Rows of `entity` matching `where`, as plain objects with the entity's property names, not managed
 * entities: for what a request only reads and renders. Hydrating entities into the identity map
 * costs more CPU than the query itself.
 *
 * The filters lists use (properties equal to a value or null, `$in`, `$lt`/`$gt`/`$lte`/`$gte`/`$ne`,
 * `$and`, `$or`) are turned into SQL here from the entity's metadata: MikroORM's query builder spent
 * more CPU building such a statement than Postgres spent running it (`npm run bench:profile`). Any
 * other filter (a raw SQL key, an operator not listed) goes through the query builder as before.
 */
export async function readRows<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  options: { orderBy: Record<string, 'asc' | 'desc'>; limit?: number },
): Promise<T[]> {
  const meta = em.getMetadata().get(entity as never);
  const columns = columnsOf(meta);
  const condition = compile(where as Filter, columns);
  const order = Object.entries(options.orderBy).map(([prop, dir]) => {
    const column = columns.byProperty.get(prop);
    return column && (dir === 'asc' || dir === 'desc')
      ? sql`${sql.identifier(column)} ${dir === 'asc' ? sql`asc` : sql`desc`}`
      : null;
  });
  if (condition === null || order.includes(null)) return viaQueryBuilder(em, entity, where, options);
  const limit = options.limit === undefined ? sql.empty : sql` limit ${options.limit}`;
  const rows = await queryRaw(
    em,
    sql`select * from ${sql.identifier(columns.table)} where ${condition} order by ${sql.join(order as Sql[])}${limit}`,
  );
  // MikroORM's own compiled row mapper: property names, and dates parsed as the query builder does.
  return mapEntities(em, entity, rows);
}

/** The query builder's way, for filters `compile` does not know. */
export function viaQueryBuilder<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  options: { orderBy: Record<string, 'asc' | 'desc'>; limit?: number },
): Promise<T[]> {
  const qb = em
    .createQueryBuilder(entity)
    .select('*')
    .where(where)
    .orderBy(options.orderBy as never);
  if (options.limit !== undefined) qb.limit(options.limit);
  return qb.execute('all', true);
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

type Filter = Record<string, unknown>;
const OPERATORS: Record<string, Sql> = { $lt: sql`<`, $gt: sql`>`, $lte: sql`<=`, $gte: sql`>=`, $ne: sql`<>` };

const isPlain = (value: unknown): value is Filter =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** Whether `readRows` writes the SQL of `where` itself (else the query builder does). */
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
