import { createHash } from 'node:crypto';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import type { QueryResult } from 'pg';
import { failStatementSpan, statementSpan } from '../traces/sql';

// `execute(em, sql, params)` runs a hand-written statement as `em.execute(sql, params)` does (the
// same `?` placeholders, the same connection: the transaction's when `em` is in one, else one from
// the pool; rows parsed the same way; errors converted to MikroORM's exception classes), but sends
// the values as bind parameters on the pg connection itself. `em.execute` formats every value into
// the statement text (escaping each string) and then passes it through knex's query runner: for the
// statements of a send, the outbox and a report that cost more api CPU than Postgres spent running
// them (`npm run bench:profile`).
//
// What stays in the text: numbers, booleans and null, as literals of their own type (as em.execute
// writes them: `queue_depth + ?`, `case when ? then`), so they never depend on Postgres inferring
// a parameter's type. Strings, dates (ISO 8601, UTC), buffers and JSON (plain objects) are
// parameters, typed by their context as the quoted literal was. An array is a comma-separated list
// of its values, as em.execute writes it (`in (?)`).

/** A piece of a statement with the values of its `?` placeholders, in order. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

interface PgConnection {
  query(query: string | { name: string; text: string; values: unknown[] }, values?: unknown[]): Promise<QueryResult>;
}
interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

/** `sql` with each `?` numbered for pg, and the values those numbers stand for. */
export function bindParameters(
  sql: string,
  params: readonly unknown[],
  everyValue = false,
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  let next = 0;
  const place = (value: unknown): string => {
    if (everyValue && !Array.isArray(value)) {
      if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
      values.push(value instanceof Date ? value.toISOString() : value === undefined ? null : value);
      return `$${values.length}`;
    }
    if (value === null || value === undefined) return 'null';
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
      return String(value);
    }
    if (typeof value === 'bigint') return String(value);
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    if (Array.isArray(value)) return value.map(place).join(', ');
    if (value instanceof Date) values.push(value.toISOString());
    else if (typeof value === 'string' || Buffer.isBuffer(value)) values.push(value);
    else if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
      values.push(JSON.stringify(value));
    else throw new Error(`no SQL parameter for a ${typeof value}`);
    return `$${values.length}`;
  };
  let text = '';
  let from = 0;
  for (let at = sql.indexOf('?'); at !== -1; at = sql.indexOf('?', from)) {
    if (sql[at + 1] === '?') throw new Error('`??` (an identifier parameter) is not supported');
    if (sql[at - 1] === '\\') {
      text += sql.slice(from, at - 1) + '?';
    } else {
      if (next >= params.length) throw new Error('more `?` placeholders than values');
      text += sql.slice(from, at) + place(params[next++]);
    }
    from = at + 1;
  }
  if (next !== params.length) throw new Error('more values than `?` placeholders');
  return { text: text + sql.slice(from), values };
}

/**
 * Runs one statement with `?` placeholders on `em`'s connection; resolves to its rows. `prepared`:
 * every value is a parameter, so the text is the same each time, and each connection parses and
 * plans it once (a named statement) instead of at every call: for a statement whose planning costs
 * more than running it (the one statement of a send). Its `?` need a type from their context then.
 */
export async function execute<T = Record<string, unknown>[]>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  options: { prepared?: boolean } = {},
): Promise<T> {
  const { text, values } = bindParameters(sql, params, options.prepared);
  const root = em.getConnection().getKnex();
  const transaction = em.getContext(false).getTransactionContext<Knex.Transaction>();
  // A transaction's client hands out its own connection and releases nothing.
  const client = (transaction ?? root).client as unknown as KnexClient;
  const connection = await client.acquireConnection();
  const span = statementSpan(root, text);
  try {
    const result = await (options.prepared
      ? connection.query({ name: preparedName(text), text, values })
      : connection.query(text, values));
    span?.end();
    return result.rows as T;
  } catch (error) {
    if (span) failStatementSpan(span, error as Error);
    throw em.getDriver().convertException(error as Error);
  } finally {
    await client.releaseConnection(connection);
  }
}

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
