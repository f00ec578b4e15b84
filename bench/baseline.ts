// The physical floor, measured on the same database in the same run: what one round trip and what a
// plain multi-row insert of the same message rows cost, with nothing of the service in between.
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { summarize, type Summary } from './stats';

export interface Baselines {
  /** `insert into bench_scratch values (...)`, one row, autocommit. */
  insertRoundTrip: Summary;
  /** `select 1`: the protocol round trip alone. */
  selectRoundTrip: Summary;
  /** One statement inserting n message rows into a copy of `messages` with all its indexes. */
  insertRows: Record<number, Summary>;
  /** Rows per second of sequential 1,000-row inserts. */
  rowsPerSecond: number;
  /** Rows per second of 4 connections each inserting 100 rows per statement (the shape of 4 senders of 100). */
  rowsPerSecond4x100: number;
}

export async function createScratchTables(db: Pool): Promise<void> {
  await db.query('create table if not exists bench_scratch (id uuid primary key, at timestamptz not null, note text)');
  // The same columns, defaults, checks and indexes as messages (no foreign keys).
  await db.query('create table if not exists bench_messages (like messages including all)');
}

const COLUMNS = [
  'id',
  'user_id',
  'batch_id',
  'device_id',
  'direction',
  'status',
  'body',
  'recipient',
  'segments',
  'position',
  'available_at',
  'stale_at',
  'created_at',
  'updated_at',
];

/** The rows an accept of `n` recipients writes, as one multi-row INSERT with parameters. */
function messageInsert(n: number, ids: { userId: string; deviceId: string }) {
  const batchId = randomUUID();
  const now = new Date();
  const stale = new Date(now.getTime() + 3_600_000);
  const params: unknown[] = [];
  const tuples: string[] = [];
  for (let i = 0; i < n; i++) {
    const base = params.length;
    params.push(
      randomUUID(),
      ids.userId,
      batchId,
      ids.deviceId,
      'outbound',
      'queued',
      'Benchmark text',
      `+1415${2000000 + Math.floor(Math.random() * 7_999_999)}`,
      1,
      i,
      now,
      stale,
      now,
      now,
    );
    tuples.push(`(${COLUMNS.map((_, c) => `$${base + c + 1}`).join(', ')})`);
  }
  return { text: `insert into bench_messages (${COLUMNS.join(', ')}) values ${tuples.join(', ')}`, values: params };
}

/** Builds the statement first (not timed), then times sending it and reading the answer. */
async function timed(make: () => () => Promise<unknown>): Promise<number> {
  const run = make();
  const started = performance.now();
  await run();
  return performance.now() - started;
}

export async function measureBaselines(
  db: Pool,
  ids: { userId: string; deviceId: string },
  rounds: number,
  samplesPerRound: number,
): Promise<Baselines> {
  const client: PoolClient = await db.connect();
  try {
    const insertOne = () => () =>
      client.query('insert into bench_scratch values ($1, $2, $3)', [randomUUID(), new Date(), 'bare insert']);
    const selectOne = () => () => client.query('select 1');
    const series = async (make: () => () => Promise<unknown>, samples: number) => {
      for (let i = 0; i < Math.max(5, samples / 5); i++) await make()(); // warm-up
      const out: number[][] = [];
      for (let r = 0; r < rounds; r++) {
        const round: number[] = [];
        for (let i = 0; i < samples; i++) round.push(await timed(make));
        out.push(round);
      }
      return summarize(out);
    };
    const insertRoundTrip = await series(insertOne, samplesPerRound);
    const selectRoundTrip = await series(selectOne, samplesPerRound);
    const insertRows: Record<number, Summary> = {};
    for (const n of [1, 100, 1000]) {
      insertRows[n] = await series(
        () => {
          const statement = messageInsert(n, ids);
          return () => client.query(statement);
        },
        Math.max(5, Math.round(samplesPerRound / Math.sqrt(n))),
      );
    }
    const sequential = insertRows[1000].rounds.map((p50) => 1000 / (p50 / 1000));
    const rowsPerSecond = sequential.reduce((a, b) => a + b, 0) / sequential.length;

    // 4 connections, 100 rows per statement, for a fixed number of statements each.
    const perClient = Math.max(10, samplesPerRound);
    const clients = await Promise.all(Array.from({ length: 4 }, () => db.connect()));
    let rowsPerSecond4x100 = 0;
    try {
      const statements = clients.map(() => Array.from({ length: perClient }, () => messageInsert(100, ids)));
      const started = performance.now();
      await Promise.all(
        clients.map(async (c, k) => {
          for (const statement of statements[k]) await c.query(statement);
        }),
      );
      rowsPerSecond4x100 = (4 * perClient * 100) / ((performance.now() - started) / 1000);
    } finally {
      for (const c of clients) c.release();
    }
    return { insertRoundTrip, selectRoundTrip, insertRows, rowsPerSecond, rowsPerSecond4x100 };
  } finally {
    client.release();
  }
}
