import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { Knex } from '@mikro-orm/postgresql';

/** A 10,000-recipient insert is a long statement; its shape is in the first few kilobytes. */
const MAX_STATEMENT = 4096;

interface QueryData {
  __knexQueryUid?: string;
  sql?: string;
}

const OPERATION = /^\s*(\w+)/;
const TABLE = /^\s*(?:insert\s+into|update|delete\s+from|select\b[\s\S]*?\bfrom)\s+("?[\w.]+"?(?:\."?\w+"?)?)/i;

/** `SELECT messages`, `INSERT webhook_deliveries`, `BEGIN`: the operation and the first table named. */
function describe(sql: string): { operation: string; table?: string } {
  const operation = (OPERATION.exec(sql)?.[1] ?? 'SQL').toUpperCase();
  const table = TABLE.exec(sql)?.[1]?.replaceAll('"', '');
  return { operation, table };
}

/**
 * A client span per SQL statement that MikroORM runs through knex, from knex's `query` event to its
 * `query-response` or `query-error`, child of whatever span is active where the query was made (the
 * request, the activity). The statement is recorded as sent, with its placeholders; the values never
 * are (phone numbers, message bodies, key hashes). Transaction control (BEGIN, COMMIT) has no
 * response event in knex and is not traced.
 */
export function traceSql(knex: Knex, tracer: Tracer): void {
  const open = new Map<string, Span>();
  knex.on('query', (data: QueryData) => {
    const uid = data.__knexQueryUid;
    if (!uid || !data.sql) return;
    // Only statements made inside a traced operation (a request, an activity): one outside them (key
    // usage flushes, LISTEN) would be a trace of its own and drown the ones that matter.
    const parent = context.active();
    if (!trace.getSpan(parent)) return;
    const { operation, table } = describe(data.sql);
    const span = tracer.startSpan(
      table ? `${operation} ${table}` : operation,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system': 'postgresql',
          'db.operation': operation,
          ...(table ? { 'db.sql.table': table } : {}),
          'db.statement': data.sql.length > MAX_STATEMENT ? `${data.sql.slice(0, MAX_STATEMENT)}…` : data.sql,
        },
      },
      parent,
    );
    open.set(uid, span);
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
    // The message names the statement and its values (knex formats them in): the code and class only.
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as { code?: string }).code ?? error.name });
    span.end();
    open.delete(uid!);
  });
}
