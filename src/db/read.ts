import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';

/**
 * Rows of `entity` matching `where`, as plain objects with the entity's property names, not managed
 * entities: for what a request only reads and renders. Hydrating entities into the identity map
 * costs more CPU than the query itself.
 */
export function readRows<T extends object>(
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
