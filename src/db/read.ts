import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';
import { compileRead, type Filter } from './read-compiler';
import { mapEntities, queryRaw } from './sql';

/**
 * Rows of `entity` matching `where`, as plain objects with the entity's property names, not managed
 * entities: for what a request only reads and renders. Hydrating entities into the identity map
 * costs more CPU than the query itself.
 *
 * The filters lists use are turned into SQL by the read compiler (./read-compiler.ts), from the
 * entity's metadata; any other filter goes through the query builder (viaQueryBuilder), which is
 * what the compiler must equal.
 */
export async function readRows<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  options: { orderBy: Record<string, 'asc' | 'desc'>; limit?: number },
): Promise<T[]> {
  const statement = compileRead(em.getMetadata().get(entity as never), where as Filter, options);
  if (!statement) return viaQueryBuilder(em, entity, where, options);
  const rows = await queryRaw(em, statement);
  // MikroORM's own compiled row mapper: property names, and dates parsed as the query builder does.
  return mapEntities(em, entity, rows);
}

/** The query builder's way: for filters the read compiler does not know, and what it must equal. */
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
