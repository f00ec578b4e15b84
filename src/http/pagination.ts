import * as yup from '../lib/yup';
import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';
import { readRows } from '../db/read';
import { UUID } from '../lib/fields';

// The one pagination of the API: keyset over (created_at, id), so a page never shifts when rows
// are inserted meanwhile, and its cost is one index range scan whatever the account's history.
// The cursor is opaque to clients (base64url); it carries the last row's created_at and id.
//
// Rows must be written with millisecond timestamps (the services' clock): the cursor keeps
// milliseconds, as JavaScript dates do.
//
// Every list is a MikroORM FilterQuery handed to `findPage`: filters are object properties, never
// SQL text put together by hand (readRows turns the usual ones into SQL from the entity's metadata).

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export type Order = 'asc' | 'desc';

export interface Cursor {
  createdAt: Date;
  id: string;
}

export interface Page<T> {
  items: T[];
  /** Absent on the last page. */
  nextCursor?: string;
}

export function encodeCursor(row: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString('base64url');
}

/** The cursor a client passed back, or null when it is not one of ours. */
export function decodeCursor(text: string): Cursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [at, id] = value;
    if (typeof at !== 'string' || typeof id !== 'string' || !UUID.test(id)) return null;
    const createdAt = new Date(at);
    return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id };
  } catch {
    return null;
  }
}

/** `limit`: 1..200, default 50. */
export const limitField = () =>
  yup
    .number()
    .typeError('${path} must be a whole number')
    .integer('${path} must be a whole number')
    .min(1, '${path} must be at least 1')
    .max(MAX_LIMIT, `\${path} must be at most ${MAX_LIMIT}`)
    .default(DEFAULT_LIMIT);

/** `cursor`: a `next_cursor` this API returned. */
export const cursorField = () =>
  yup
    .string()
    .max(512, '${path} is not a cursor this API returned')
    .test('cursor', '${path} is not a cursor this API returned', (value) => !value || !!decodeCursor(value));

/** Spread into a list endpoint's query schema: `yup.object({ ...pageFields(), status: ... })`. */
export const pageFields = () => ({ cursor: cursorField(), limit: limitField() });

/** The rows after `cursor` in `order`, as a MikroORM filter. */
export function afterCursor(cursor: Cursor, order: Order): FilterQuery<{ createdAt: Date; id: string }> {
  const op = order === 'desc' ? '$lt' : '$gt';
  return {
    $or: [{ createdAt: { [op]: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { [op]: cursor.id } }],
  } as FilterQuery<{ createdAt: Date; id: string }>;
}

/** The `from` (inclusive) .. `to` (exclusive) filter every list offers on created_at; empty when neither is given. */
export function createdWithin(from?: Date, to?: Date): { createdAt?: { $gte?: Date; $lt?: Date } } {
  if (!from && !to) return {};
  return { createdAt: { ...(from ? { $gte: from } : {}), ...(to ? { $lt: to } : {}) } };
}

/** Cuts `limit + 1` fetched rows into a page: the extra row only says that another page exists. */
export function toPage<T extends { createdAt: Date; id: string }>(rows: T[], limit: number): Page<T> {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(items[items.length - 1]) };
}

/** One page of `entity` matching `where`, ordered by (created_at, id), as plain (unmanaged) rows. */
export function findPage<T extends { createdAt: Date; id: string }>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  options: { cursor?: string | null; limit: number; order?: Order },
): Promise<Page<T>> {
  return findPageOfAny(em, entity, [where], options);
}

/**
 * One page of the rows matching any of `wheres`, as findPage gives it for their union: each filter
 * read on its own (so each is served by its own index), the pages merged in order.
 */
export async function findPageOfAny<T extends { createdAt: Date; id: string }>(
  em: EntityManager,
  entity: EntityName<T>,
  wheres: Array<FilterQuery<T>>,
  options: { cursor?: string | null; limit: number; order?: Order },
): Promise<Page<T>> {
  const order = options.order ?? 'desc';
  const cursor = options.cursor ? decodeCursor(options.cursor) : null;
  const seen = new Set<string>();
  const rows: T[] = [];
  for (const where of wheres) {
    const filter = cursor ? ({ $and: [where, afterCursor(cursor, order)] } as FilterQuery<T>) : where;
    const found = await readRows(em, entity, filter, {
      orderBy: { createdAt: order, id: order },
      limit: options.limit + 1,
    });
    for (const row of found) if (!seen.has(row.id) && seen.add(row.id)) rows.push(row);
  }
  const sign = order === 'desc' ? -1 : 1;
  rows.sort(
    (a, b) => sign * (a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  );
  return toPage(rows.slice(0, options.limit + 1), options.limit);
}

/** The interface's list body: `{data, next_cursor}`, next_cursor absent on the last page. */
export function pageBody<T, V>(page: Page<T>, view: (item: T) => V): { data: V[]; next_cursor?: string } {
  return { data: page.items.map(view), ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}) };
}
