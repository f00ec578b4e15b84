import { createHash } from 'node:crypto';
import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import { runStatement } from './connection';

// The one way to write a hand-written statement: a tagged template.
//
//   sql`select id from messages where device_id = ${deviceId} and id = any(${ids}::uuid[])`
//
// Each value is a bind parameter ($1, $2 …) where it sits in the text, never text itself: a string
// cannot end the statement, and the text of a shape is the same at every call. A JavaScript array is
// one parameter, a Postgres array (say its type: `${ids}::uuid[]`); a date is sent as ISO 8601 (UTC);
// a plain object as JSON. A value whose type Postgres cannot infer from its context needs a cast
// (`${n}::int`). A `sql` fragment as a value is spliced in with its own values (optional filters,
// shared pieces); `sql.join` joins fragments; `sql.identifier` is the only way to put a name
// (a table, a column) into the text.
//
// `query` runs a statement and returns its rows with camelCase keys (`device_id` → `deviceId`), the
// values as the ORM's pg driver parses them (a timestamptz stays Postgres' text: `toDate` parses it);
// `queryEntities` maps whole rows of an entity's table to its properties and types, as MikroORM does.

/** A statement or a piece of one: text around values. Built by `sql`; `compile` numbers its values. */
export class Sql {
  /** `strings` has one more item than `values`: text, value, text, …, text. */
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

function template(strings: TemplateStringsArray | readonly string[], ...values: unknown[]): Sql {
  return new Sql([...strings], values);
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const EMPTY = new Sql([''], []);

/** The tag: `sql`...``; and its helpers. */
export const sql = Object.assign(template, {
  /** Fragments one after another, `separator` between them (a comma by default). */
  join(fragments: readonly Sql[], separator: Sql = new Sql([', '], [])): Sql {
    const values = fragments.flatMap((fragment, i) => (i === 0 ? [fragment] : [separator, fragment]));
    return new Sql(['', ...values.map(() => '')], values);
  },
  /** A table's or a column's name, double-quoted; only plain lower-case names, never a caller's input. */
  identifier(name: string): Sql {
    if (!IDENTIFIER.test(name)) throw new Error(`not an identifier: ${name}`);
    return new Sql([`"${name}"`], []);
  },
  /** Nothing: an optional piece left out. */
  empty: EMPTY,
});

/** A value as the pg driver should send it. */
function parameter(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return value;
  }
  if (typeof value === 'string' || typeof value === 'boolean' || Buffer.isBuffer(value)) return value;
  if (typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  // pg writes an array as a Postgres array literal, quoting each item; dates as ISO 8601 like above.
  if (Array.isArray(value)) return value.map(parameter);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return JSON.stringify(value);
  throw new Error(`no SQL parameter for a ${typeof value}`);
}

/** The statement's text with `$n` for each value, and the values in that order. */
export function compile(statement: Sql): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  let text = '';
  const walk = (piece: Sql) => {
    piece.strings.forEach((string, i) => {
      text += string;
      if (i === piece.values.length) return;
      const value = piece.values[i];
      if (value instanceof Sql) walk(value);
      else {
        values.push(parameter(value));
        text += `$${values.length}`;
      }
    });
  };
  walk(statement);
  return { text, values };
}

const camelKeys = new Map<string, string>();
/** `device_id` → `deviceId` (cached: the columns are few). */
function camel(key: string): string {
  let name = camelKeys.get(key);
  if (name === undefined) {
    name = key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    if (camelKeys.size < 10_000) camelKeys.set(key, name);
  }
  return name;
}

/** The rows' keys in camelCase. */
export function camelRows<T>(rows: Record<string, unknown>[]): T[] {
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const key in row) out[camel(key)] = row[key];
    return out as T;
  });
}

export interface QueryOptions {
  /**
   * A named statement: each connection parses it once instead of at every call, and plans it once
   * when a generic plan does as well, for a statement whose parsing and planning cost more than
   * running it (a send's, a phone's fetch and report). Only for a text that is the same at every
   * call (a list travels as arrays, not as a row of values per item: each connection keeps every text
   * it prepared) and that names its result's columns rather than `*` (Postgres refuses to run a
   * prepared statement whose result a migration changed).
   */
  prepared?: boolean;
}

/**
 * Runs `statement` on `em`'s connection (the transaction's when `em` is in one); resolves to its
 * rows, keys in camelCase. Errors are MikroORM's exception classes.
 */
export async function query<T = Record<string, unknown>>(
  em: EntityManager,
  statement: Sql,
  options: QueryOptions = {},
): Promise<T[]> {
  return camelRows<T>(await queryRaw(em, statement, options));
}

/** The rows as Postgres names their columns (for a mapper that reads column names). */
export async function queryRaw(
  em: EntityManager,
  statement: Sql,
  options: QueryOptions = {},
): Promise<Record<string, unknown>[]> {
  const { text, values } = compile(statement);
  return runStatement(em, text, values, options.prepared ? preparedName(text) : undefined);
}

/**
 * Rows of an entity's table (`select *`, `returning *` or `m.*`), mapped to its property names and
 * types by MikroORM's own compiled row mapper: plain objects, not managed entities.
 */
export async function queryEntities<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  statement: Sql,
  options: QueryOptions = {},
): Promise<T[]> {
  return mapEntities(em, entity, await queryRaw(em, statement, options));
}

/** Rows named as Postgres names them, mapped to `entity`'s properties. */
export function mapEntities<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  rows: Record<string, unknown>[],
): T[] {
  const map = em.getComparator().getResultMapper<T>(em.getMetadata().get(entity as never).className);
  return rows.map((row) => map(row as never) as T);
}

/** A timestamp column's value (Postgres' text, or a Date) as a Date; null stays null. */
export const toDate = (value: unknown): Date | null =>
  value == null ? null : value instanceof Date ? value : new Date(value as string);

const preparedNames = new Map<string, string>();
/** One name per text: a connection refuses a name it prepared with another text. */
function preparedName(text: string): string {
  let name = preparedNames.get(text);
  if (!name) {
    name = `p${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    // The texts are few (a statement per shape); a bound keeps a mistake from growing without end.
    if (preparedNames.size < 1000) preparedNames.set(text, name);
  }
  return name;
}
