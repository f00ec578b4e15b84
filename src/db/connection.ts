import type { EntityManager, Knex, MikroORM } from '@mikro-orm/postgresql';
import type { Tracer } from '@opentelemetry/api';
import type { QueryResult } from 'pg';
import type { PoolStats } from '../metrics/metrics';
import { failStatementSpan, statementSpan } from '../traces/sql';

// The one module that knows MikroORM runs on knex and knex on a tarn pool of node-postgres clients:
// the statements of src/db/sql.ts, the notifier's listening connection, the pool's counts, the
// migration lock and the SQL spans all reach those internals here, and only here.

/** The part of a node-postgres client used here and by a listener. */
export interface PgConnection {
  query(query: string | { name?: string; text: string; values: unknown[] }, values?: unknown[]): Promise<QueryResult>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  pool?: TarnPool;
}

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  max: number;
}

const knexOf = (em: EntityManager): Knex => em.getConnection().getKnex();
const clientOf = (knex: Knex) => knex.client as unknown as KnexClient;

/** Which tracer records the statements run on a knex instance's connections (set by `traceStatements`). */
const tracers = new WeakMap<Knex, Tracer>();

/**
 * Runs `text` with its `$n` values on `em`'s connection: the transaction's when `em` is in one, else
 * one from the pool. `name`: a named statement, parsed and planned once per connection. Errors are
 * MikroORM's exception classes, as em.execute throws them.
 */
export async function runStatement(
  em: EntityManager,
  text: string,
  values: unknown[],
  name?: string,
): Promise<Record<string, unknown>[]> {
  const root = knexOf(em);
  const transaction = em.getContext(false).getTransactionContext<Knex.Transaction>();
  // A transaction's client hands out its own connection and releases nothing.
  const client = clientOf(transaction ?? root);
  const connection = await client.acquireConnection();
  const span = statementSpan(tracers.get(root), text);
  try {
    const result = await connection.query(name ? { name, text, values } : { text, values });
    span?.end();
    return result.rows as Record<string, unknown>[];
  } catch (error) {
    if (span) failStatementSpan(span, error as Error);
    throw em.getDriver().convertException(error as Error);
  } finally {
    await client.releaseConnection(connection);
  }
}

/** A connection of the ORM's pool held until `releaseConnection` (a listener's). */
export const acquireConnection = (orm: MikroORM): Promise<PgConnection> => clientOf(knexOf(orm.em)).acquireConnection();

/** Gives a connection back; the pool replaces one that broke. */
export const releaseConnection = (orm: MikroORM, connection: PgConnection): Promise<unknown> =>
  clientOf(knexOf(orm.em)).releaseConnection(connection);

/** The connection pool's counts, for the metrics; undefined before it exists. */
export function poolStats(orm: MikroORM): PoolStats | undefined {
  const pool = clientOf(knexOf(orm.em)).pool;
  if (!pool) return undefined;
  return {
    used: pool.numUsed(),
    free: pool.numFree(),
    pendingAcquires: pool.numPendingAcquires(),
    pendingCreates: pool.numPendingCreates(),
    max: pool.max,
  };
}

/** Runs `work` in a transaction holding the advisory lock `key` (work that must run once at a time). */
export function underAdvisoryLock<T>(orm: MikroORM, key: number, work: () => Promise<T>): Promise<T> {
  return knexOf(orm.em).transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [key]);
    return work();
  });
}

interface QueryData {
  __knexQueryUid?: string;
  sql?: string;
}

/**
 * A client span per SQL statement: those MikroORM runs through knex, from knex's `query` event to
 * its `query-response` or `query-error`, and those `runStatement` runs. Transaction control (BEGIN,
 * COMMIT) has no response event in knex and is not traced.
 */
export function traceStatements(orm: MikroORM, tracer: Tracer): void {
  const knex = knexOf(orm.em);
  tracers.set(knex, tracer);
  const open = new Map<string, ReturnType<typeof statementSpan>>();
  knex.on('query', (data: QueryData) => {
    const uid = data.__knexQueryUid;
    if (!uid || !data.sql) return;
    const span = statementSpan(tracer, data.sql);
    if (span) open.set(uid, span);
  });
  knex.on('query-response', (_response: unknown, data: QueryData) => {
    const uid = data.__knexQueryUid;
    if (!uid) return;
    open.get(uid)?.end();
    open.delete(uid);
  });
  knex.on('query-error', (error: Error, data: QueryData) => {
    const uid = data.__knexQueryUid;
    const span = uid ? open.get(uid) : undefined;
    if (!span) return;
    failStatementSpan(span, error);
    open.delete(uid!);
  });
}
