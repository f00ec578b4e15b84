// EXPLAIN (ANALYZE, BUFFERS) of the queries the service itself runs: auto_explain is preloaded in
// every session of the bench database and switched on (log_min_duration = 0, analyze, buffers) only
// around one API request at a time; the plans are read back from the Postgres log. This shows the
// plans of whatever the code does today, before or after a rewrite, with no SQL copied here.
import type { Pool } from 'pg';
import type { PostgresLog } from './stack';

const delay = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

/** Before the api and worker connect: their sessions load auto_explain (idle until switched on). */
export async function preloadAutoExplain(db: Pool, database: string): Promise<void> {
  await db.query(`alter database "${database}" set session_preload_libraries = 'auto_explain'`);
  // %a: the application name (PGAPPNAME of the api and worker processes) on every log line.
  await db.query(`alter system set log_line_prefix = '%m [%p] %a: '`);
  await db.query('select pg_reload_conf()');
}

async function configure(db: Pool, on: boolean): Promise<void> {
  const client = await db.connect();
  try {
    await client.query(`load 'auto_explain'`);
    const settings: Array<[string, string]> = [
      ['auto_explain.log_min_duration', '0'],
      ['auto_explain.log_analyze', 'on'],
      ['auto_explain.log_buffers', 'on'],
      ['auto_explain.log_timing', 'on'],
    ];
    for (const [name, value] of settings) {
      await client.query(on ? `alter system set ${name} = ${value}` : `alter system reset ${name}`);
    }
    await client.query('select pg_reload_conf()');
  } finally {
    client.release();
  }
  // Sessions apply a reload before their next statement; give the signal time to arrive.
  await delay(300);
}

export interface CapturedPlan {
  /** application_name of the session: api, worker, api+worker. */
  app: string;
  durationMs: number;
  query: string;
  plan: string[];
}

function parse(text: string): CapturedPlan[] {
  const out: CapturedPlan[] = [];
  const parts = text.split(/^.*\] ([^:\s]*): LOG:\s+duration: /m);
  // split() with a capture group: [before, app, entry, app, entry, ...]
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const app = parts[i];
    const lines = parts[i + 1].split('\n');
    const durationMs = Number(/^([\d.]+) ms/.exec(lines[0])?.[1] ?? NaN);
    const queryStart = lines.findIndex((l) => /Query Text:/.test(l));
    if (queryStart < 0) continue;
    // The query text runs until the first plan node line (indented, with "(cost=" or "(actual").
    let planStart = lines.findIndex((l, i) => i > queryStart && /\((cost|actual)[= ]/.test(l));
    if (planStart < 0) planStart = lines.length;
    const query = lines
      .slice(queryStart, planStart)
      .join(' ')
      .replace(/^.*Query Text:\s*/, '')
      .replace(/\s+/g, ' ')
      .trim();
    const plan = lines.slice(planStart).filter((l) => l.trim() && !/^\d{4}-\d\d-\d\d /.test(l));
    out.push({ app, durationMs, query, plan });
  }
  return out;
}

/** Runs `action` with auto_explain on; returns the plans of statements touching `tables` (messages or batches). */
export async function capturePlans(
  db: Pool,
  log: PostgresLog,
  action: () => Promise<unknown>,
  tables = /\b(messages|batches)\b/,
): Promise<CapturedPlan[]> {
  let captured = '';
  await configure(db, true);
  log.tap = (chunk) => (captured += chunk + '\n');
  try {
    await action();
    await delay(300); // the log arrives through a pipe
  } finally {
    log.tap = undefined;
    await configure(db, false);
  }
  return parse(captured).filter((p) => tables.test(p.query) && !/bench_messages/.test(p.query));
}

/** The plans of the process that served the request; statements other sessions ran meanwhile are counted. */
export function printPlans(label: string, plans: CapturedPlan[], server: RegExp): void {
  const served = plans.filter((p) => server.test(p.app));
  const others = new Map<string, number>();
  for (const p of plans) if (!server.test(p.app)) others.set(p.app || '?', (others.get(p.app || '?') ?? 0) + 1);
  const meanwhile = [...others].map(([app, n]) => `${n} by ${app}`).join(', ');
  console.log(
    `\n--- ${label}: ${served.length} statement${served.length === 1 ? '' : 's'} on messages/batches${meanwhile ? ` (meanwhile ${meanwhile}, not shown)` : ''}`,
  );
  if (served.length === 0) console.log('    (none logged: auto_explain did not capture this request)');
  for (const p of served) {
    const query = p.query.length > 240 ? `${p.query.slice(0, 240)}…` : p.query;
    console.log(`  [${p.durationMs.toFixed(3)} ms] ${query}`);
    for (const line of p.plan) console.log(`    ${line.replace(/^\t/, '')}`);
  }
}
