// The settings, figures and helpers every section of `npm run bench` (bench/run.ts) shares.
import type { Baselines } from '../baseline';
import { httpClient, type Reply } from '../http';
import type { Component, Snapshot } from '../proc';
import type { Account, Phone } from '../setup';
import type { Layout, PostgresLog } from '../stack';
import { int, latencyLine, mib, ms, ratio, summarize, type Summary } from '../stats';
import type { Pool } from 'pg';
import type { startBenchStack } from '../stack';

// ---------------------------------------------------------------------------------------------
// Settings: --flag=value, else BENCH_* environment, else the quick or full default.

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(`npm run bench [-- flags]

  --quick                 small tables and few rounds (~2 minutes), for development (BENCH_QUICK=1)
  --rows=N                history rows in messages            BENCH_ROWS    (1000000; quick 20000)
  --queue=N               messages queued on the bench phone  BENCH_QUEUE   (100000; quick 2000)
  --rounds=N              measured rounds of every figure     BENCH_ROUNDS  (5; quick 2)
  --drain-seconds=N       length of one phone-drain round     BENCH_DRAIN_SECONDS (5; quick 2)
  --throughput-sends=N    sends of 100 per sender per round   BENCH_THROUGHPUT_SENDS (25; quick 10)
  --stack=split|start|cluster   api and worker as two processes (src/main.ts, src/worker.ts;
                          default), one process as under npm start (src/dev/start.ts), or the
                          npm run cluster shape (two Temporal servers, two api and two workers of
                          the compiled build: npm run build first)    BENCH_STACK`);
  process.exit(0);
}
export const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const setting = (name: string, env: string, full: number, quickValue: number) => {
  const value = Number(flag(name) ?? process.env[env] ?? (quick ? quickValue : full));
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} / ${env} must be a number`);
  return Math.floor(value);
};
export const ROWS = setting('rows', 'BENCH_ROWS', 1_000_000, 20_000);
export const QUEUE = setting('queue', 'BENCH_QUEUE', 100_000, 2_000);
export const ROUNDS = Math.max(1, setting('rounds', 'BENCH_ROUNDS', 5, 2));
export const DRAIN_SECONDS = setting('drain-seconds', 'BENCH_DRAIN_SECONDS', 5, 2);
export const THROUGHPUT_SENDS = Math.max(1, setting('throughput-sends', 'BENCH_THROUGHPUT_SENDS', 25, 10));
export const LAYOUT = (flag('stack') ?? process.env.BENCH_STACK ?? 'split') as Layout;
if (!['split', 'start', 'cluster'].includes(LAYOUT)) throw new Error('--stack must be split, start or cluster');
export const KEYS = 40;
export const LAYOUTS: Record<Layout, string> = {
  split: 'api and worker as two processes (--stack=start for the npm start layout)',
  start: 'api and worker in one process, as under npm start',
  cluster: 'the npm run cluster shape: two Temporal servers, two api and two worker processes of the compiled build',
};

export const delay = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));
export const started = Date.now();
export const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
export const section = (title: string) => console.log(`\n=== ${title}  [${elapsed()}]`);

// ---------------------------------------------------------------------------------------------
// Figures, for the ratio lines and the final table.

export interface Figure {
  label: string;
  value: number;
  unit: 'ms' | '/s' | 'ms/recipient' | 'MiB' | 'text';
  text?: string;
  target?: { op: '<=' | '>='; value: number };
  /** The figure against its physical baseline, e.g. "6.2× bare insert". */
  vs?: string;
}
export const figures = new Map<string, Figure>();
export const record = (key: string, figure: Figure) =>
  figures.set(key, {
    ...figure,
    vs:
      figure.vs ??
      (figure.unit === 'ms' ? `${ratio(figure.value, state.baselines.insertRoundTrip.p50)} bare insert` : ''),
  });

/** The physical baselines: on empty tables (measured first), and the current phase's. */
export const state = {
  baselines: undefined as unknown as Baselines,
  emptyBaselines: undefined as unknown as Baselines,
};
export const vsInsert = (value: number) =>
  `= ${ratio(value, state.baselines.insertRoundTrip.p50)} bare insert round trip`;

export async function series(
  label: string,
  options: { warmup: number; samples: number; rounds?: number },
  once: () => Promise<number>,
): Promise<Summary> {
  // Quick mode takes half the samples of each round.
  const scale = (n: number) => Math.max(1, Math.round(n * (quick ? 0.5 : 1)));
  for (let i = 0; i < scale(options.warmup); i++) await once();
  const rounds: number[][] = [];
  for (let r = 0; r < (options.rounds ?? ROUNDS); r++) {
    const round: number[] = [];
    for (let i = 0; i < scale(options.samples); i++) round.push(await once());
    rounds.push(round);
  }
  const s = summarize(rounds);
  console.log(`${label.padEnd(62)} ${latencyLine(s)}`);
  return s;
}

export const recipients = (n: number, from = Math.floor(Math.random() * 7_000_000)) =>
  Array.from({ length: n }, (_, i) => `+1415${2000000 + ((from + i) % 7_999_999)}`);

export function memoryLine(snap: Snapshot, components: Component[], pss: boolean): string {
  const parts = components.map(
    (c) =>
      `${c.name} ${mib(snap[c.name].rssBytes)}${snap[c.name].processes > 1 ? ` (${snap[c.name].processes} procs)` : ''}`,
  );
  return `RSS ${mib(snap.total.rssBytes)}${pss ? ` (PSS ${mib(snap.total.pssBytes)})` : ''}: ${parts.join(', ')}`;
}
/** The baselines, one line each. */
export const printBaselines = (b: Baselines) => {
  console.log(`${'bare one-row insert round trip (pg client)'.padEnd(62)} ${latencyLine(b.insertRoundTrip)}`);
  console.log(`${'select 1 round trip'.padEnd(62)} ${latencyLine(b.selectRoundTrip)}`);
  for (const [n, s] of Object.entries(b.insertRows))
    console.log(
      `${`plain insert of ${n} message row${n === '1' ? '' : 's'} (one statement)`.padEnd(62)} ${latencyLine(s)}`,
    );
  console.log(`${'plain multi-row insert, sequential 1,000-row statements'.padEnd(62)} ${int(b.rowsPerSecond)} rows/s`);
  console.log(
    `${'plain multi-row insert, 4 connections × 100-row statements'.padEnd(62)} ${int(b.rowsPerSecond4x100)} rows/s`,
  );
};

/** The stack and the accounts every section works with (started by bench/run.ts). */
type BenchStack = Awaited<ReturnType<typeof startBenchStack>>;

export interface Run {
  pgLog: PostgresLog;
  db: Pool;
  smtp: BenchStack['smtp'];
  service: BenchStack['service'];
  components: Component[];
  temporal: BenchStack['temporal'];
  apiComponent: Component;
  http: ReturnType<typeof httpClient>;
  bench: Account;
  history: Account;
  send: (account: Account, phone: Phone, n: number) => Promise<Reply & { batchId: string }>;
  get: (account: Account, path: string) => Promise<Reply>;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
}

export function printTable() {
  section(
    `issue 10 targets (bare insert round trip p50: ${ms(state.emptyBaselines.insertRoundTrip.p50)} on small tables, ${ms(state.baselines.insertRoundTrip.p50)} at scale; each figure is compared with the one of its phase)`,
  );
  const rows: string[][] = [['figure', 'target', 'measured', 'vs baseline', 'met?']];
  const fmt = (f: Figure, value: number) =>
    f.unit === 'text'
      ? (f.text ?? '')
      : f.unit === 'ms'
        ? ms(value)
        : f.unit === '/s'
          ? `${int(value)}/s`
          : f.unit === 'MiB'
            ? `${Math.round(value)} MiB`
            : `${value.toFixed(3)} ms`;
  for (const f of figures.values()) {
    const target = f.target
      ? `${f.target.op === '<=' ? '≤' : '≥'} ${fmt({ ...f, unit: f.unit === 'text' ? '/s' : f.unit }, f.target.value)}`
      : '—';
    const met = !f.target
      ? ''
      : Number.isNaN(f.value)
        ? 'no'
        : (f.target.op === '<=' ? f.value <= f.target.value : f.value >= f.target.value)
          ? 'yes'
          : 'NO';
    rows.push([f.label, target, fmt(f, f.value), f.vs ?? '', met]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const [i, row] of rows.entries()) {
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  console.log(`\nthe run took ${elapsed()}; ${LAYOUTS[LAYOUT]}`);
}
