import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';

/** A 10,000-recipient insert is a long statement; its shape is in the first few kilobytes. */
const MAX_STATEMENT = 4096;

// MikroORM inlines every value into the statement before knex sees it (knex gets no bindings), so
// the statement is recorded only after every literal in it is replaced by `?`. The scanner knows
// the token kinds that could hide a quote: double-quoted identifiers (kept), comments (kept),
// single-quoted strings with '' (and backslash escapes in E'' strings only, as Postgres reads them
// with standard_conforming_strings: pg escapes a value with a backslash that way), dollar-quoted
// strings, and numbers.
const TOKENS =
  /("(?:[^"]|"")*")|(--[^\n]*|\/\*[\s\S]*?\*\/)|(\b[Ee]'(?:[^'\\]|''|\\[\s\S])*'?|(?:\b[XxBbNn])?'(?:[^']|'')*'?|\$(\w*)\$[\s\S]*?\$\4\$|(?<![\w$.])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)/g;

/** The statement with each literal (string, number) replaced by `?`: the shape, never the values. */
export function sanitizeSql(sql: string): string {
  return sql.replace(TOKENS, (_token, identifier?: string, comment?: string) => identifier ?? comment ?? '?');
}

const OPERATION = /^\s*(\w+)/;
const TABLE = /^\s*(?:insert\s+into|update|delete\s+from|select\b[\s\S]*?\bfrom)\s+"?(\w+)"?/i;
// Not `on conflict ... do update set` nor `select ... for [no key] update`: those write no table of their own.
const WRITE = /\b(?<!\b(?:do|for|key)\s+)(insert\s+into|update|delete\s+from)\s+"?(\w+)"?/gi;

/**
 * The span's name: `SELECT messages`, `UPDATE devices`, `BEGIN`, and for a statement with a common
 * table expression the writes it makes (`WITH INSERT batches, INSERT messages`).
 */
function describe(sql: string): { name: string; operation: string; table?: string } {
  const operation = (OPERATION.exec(sql)?.[1] ?? 'SQL').toUpperCase();
  if (operation === 'WITH') {
    const writes = [...sql.matchAll(WRITE)].map(([, verb, table]) => `${verb.split(/\s/)[0].toUpperCase()} ${table}`);
    return { name: ['WITH', [...new Set(writes)].slice(0, 4).join(', ')].join(' ').trim(), operation };
  }
  const table = TABLE.exec(sql)?.[1];
  return { name: table ? `${operation} ${table}` : operation, operation, table };
}

/**
 * A client span for one statement, child of whatever span is active (the request, the activity), or
 * none outside them all (a statement alone would be a one-span trace of its own) or without a tracer
 * (tracing off). The statement is recorded with `?` for every literal and its `$n` parameters as
 * they are; the values never are (phone numbers, message bodies, key hashes).
 */
export function statementSpan(tracer: Tracer | undefined, sql: string): Span | undefined {
  if (!tracer) return undefined;
  const parent = context.active();
  if (!trace.getSpan(parent)) return undefined;
  const statement = sanitizeSql(sql);
  const { name, operation, table } = describe(statement);
  return tracer.startSpan(
    name,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system': 'postgresql',
        'db.operation': operation,
        ...(table ? { 'db.sql.table': table } : {}),
        'db.statement': statement.length > MAX_STATEMENT ? `${statement.slice(0, MAX_STATEMENT)}…` : statement,
      },
    },
    parent,
  );
}

/** Ends a statement's span as failed: the error's code and class only (its message may quote values). */
export function failStatementSpan(span: Span, error: Error): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as { code?: string }).code ?? error.name });
  span.end();
}
