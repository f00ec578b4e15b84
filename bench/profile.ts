// `npm run bench:profile`: where one request's time goes. Starts the bench stack with the api under
// `node --cpu-prof`, then for each request kind prints every SQL statement the api ran for one request
// (Postgres' own durations, log_min_duration_statement = 0 around that request only), then times a few
// hundred more and leaves the api's CPU profile (open it in Chrome DevTools) in --out.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';
import { capturePlans, preloadAutoExplain, printPlans } from './explain';
import { httpClient, type Reply } from './http';
import { createAccount, keyAuth } from './setup';
import { cpuBetween, idleCpuPerSecond, snapshot, type Snapshot } from './proc';
import { cleanup, onCleanup, runMain, startBenchStack, type Layout, type PostgresLog } from './stack';
import { latencyLine, summarize } from './stats';
import { perRequest, readTemporalCounts, untilQuiet } from './temporal-metrics';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const OUT = path.resolve(flag('out') ?? 'bench-profile');
const SAMPLES = Number(flag('samples') ?? 300);
/** Only the request kinds whose label contains this (the profile then shows little else). */
const ONLY = flag('only');
/** Also print EXPLAIN (ANALYZE, BUFFERS) of every statement of one request of each kind. */
const EXPLAIN = argv.includes('--explain');
/** Without the CPU profiler, whose sampling slows the api: for latencies and CPU per request. */
const PROFILE = !argv.includes('--no-cpu-prof');
/** Milliseconds between the starts of two timed requests (0: back to back), so work they leave does not queue up. */
const PACE = Number(flag('pace') ?? 0);
/** Postgres' own account of the timed requests and what they left behind: pg_stat_statements, per request. */
const PG_STATS = argv.includes('--pg-stats');
/** The service's processes: api and worker apart (split), or in one process as `npm start` runs them (start). */
const LAYOUT = (flag('stack') ?? 'split') as Layout;
if (!['split', 'start'].includes(LAYOUT)) throw new Error('--stack must be split or start');
const delay = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

async function statementLog(db: Pool, on: boolean): Promise<void> {
  await db.query(
    on ? 'alter system set log_min_duration_statement = 0' : 'alter system reset log_min_duration_statement',
  );
  await db.query('select pg_reload_conf()');
  // Sessions apply a reload before their next statement; give the signal time to arrive.
  await delay(300);
}

/** The statements the api's sessions ran during `action`, with Postgres' durations. */
async function statementsOf(db: Pool, log: PostgresLog, action: () => Promise<unknown>): Promise<string[]> {
  let captured = '';
  await statementLog(db, true);
  log.tap = (chunk) => (captured += chunk + '\n');
  try {
    await action();
    await delay(300);
  } finally {
    log.tap = undefined;
    await statementLog(db, false);
  }
  return captured
    .split('\n')
    .filter((line) => / api[^:]*: LOG:\s+duration:/.test(line))
    .map((line) => line.replace(/^.* LOG:\s+duration: /, '').slice(0, 200));
}

/**
 * Each component's CPU between two snapshots, per request (the bench client's own is not counted),
 * less what it spends idle (`idle`: ms per second, measured before) over the same time.
 */
interface Timed {
  snap: Snapshot;
  at: number;
}

function cpuPerRequest(before: Timed, after: Timed, requests: number, idle: Record<string, number>): string {
  const seconds = (after.at - before.at) / 1000;
  return Object.entries(cpuBetween(before.snap, after.snap))
    .filter(([name]) => name !== 'total')
    .map(([name, ms]) => `${name} ${((ms - (idle[name] ?? 0) * seconds) / requests).toFixed(3)}`)
    .join(', ');
}

const timedSnapshot = (components: Parameters<typeof snapshot>[0]): Timed => ({
  snap: snapshot(components),
  at: performance.now(),
});

/** The statements that took Postgres the most time since the reset, per request, whoever ran them. */
async function printStatementStats(db: Pool, requests: number): Promise<void> {
  const { rows } = await db.query<{ calls: string; total: number; rows: string; blks: string; query: string }>(
    `select calls, total_exec_time + total_plan_time as total, rows, shared_blks_hit + shared_blks_read as blks,
            regexp_replace(query, '\\s+', ' ', 'g') as query
       from pg_stat_statements where query not like '%pg_stat_statements%'
      order by total_exec_time + total_plan_time desc limit 15`,
  );
  const all = rows.reduce((sum, row) => sum + row.total, 0);
  console.log(`  Postgres per request (pg_stat_statements, top 15: ${(all / requests).toFixed(2)} ms in all):`);
  for (const row of rows) {
    const per = (n: number | string) => (Number(n) / requests).toFixed(2).padStart(7);
    console.log(`    ${per(row.total)} ms ${per(row.calls)} calls ${per(row.blks)} blocks  ${row.query.slice(0, 150)}`);
  }
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const pgLog: PostgresLog = { errors: [] };
  const { db, smtp, service, components, temporal } = await startBenchStack({
    pgLog,
    pgSettings: PG_STATS ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'] : [],
    prepare: (db) => preloadAutoExplain(db, 'bench'),
    env: { DEVICE_RATE_PER_SECOND: '100000', DEVICE_RATE_BURST: '100000' },
    nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${OUT}`] : [],
    layout: LAYOUT,
  });
  const http = httpClient(service.base, 4);
  onCleanup('close the http agent', () => http.close());
  const account = await createAccount(http, (email) => smtp.codeFor(email, 15_000), {
    label: 'profile',
    keys: 20,
    phones: ['phone'],
  });
  const phone = account.phones.phone;
  const idle = await idleCpuPerSecond(components);
  const idleLine = Object.entries(idle)
    .filter(([name]) => name !== 'total')
    .map(([name, ms]) => `${name} ${ms.toFixed(1)}`);
  console.log(`Idle CPU, ms per second (subtracted below): ${idleLine.join(', ')}`);
  let n = 0;
  /** Queues `count` more messages on the phone (sends of 1,000, the api's largest). */
  const fillQueue = async (count: number) => {
    for (let left = count; left > 0; left -= 1000) {
      const to = Array.from({ length: Math.min(1000, left) }, () => `+1415${2000000 + (n++ % 7_000_000)}`);
      await http.expect(202, 'POST', '/v1/messages', {
        headers: keyAuth(account),
        body: { body: 'Profile text', to, device_id: phone.id },
      });
    }
  };
  const outbox = async (limit: number) =>
    (await http.expect(200, 'GET', `/v1/device/outbox?limit=${limit}`, { headers: phone.auth }))
      .json<{ data: Array<{ id: string }> }>()
      .data.map((row) => row.id);
  const kinds: Array<[string, () => Promise<Reply>, prepare?: (samples: number) => Promise<void>]> = [
    // The floor: the middleware stack with no credentials and no query.
    ['GET /livez', () => http.expect(200, 'GET', '/livez')],
    [
      'POST /v1/messages (1 recipient)',
      () =>
        http.expect(202, 'POST', '/v1/messages', {
          headers: keyAuth(account),
          body: { body: 'Profile text', to: [`+1415${2000000 + (n++ % 7_000_000)}`], device_id: phone.id },
        }),
    ],
    ['GET /v1/devices', () => http.expect(200, 'GET', '/v1/devices', { headers: keyAuth(account) })],
    [
      'GET /v1/messages?limit=50',
      () => http.expect(200, 'GET', '/v1/messages?limit=50', { headers: keyAuth(account) }),
    ],
    [
      'GET /v1/device/messages?limit=100 (outbox)',
      () => http.expect(200, 'GET', '/v1/device/messages?limit=100', { headers: phone.auth }),
    ],
    // Throughput: four integrators sending 100 recipients each at once (a "request" is all four).
    [
      'POST /v1/messages (4 concurrent sends of 100 recipients)',
      async () => {
        const started = performance.now();
        const sends = Array.from({ length: 4 }, () =>
          http.expect(202, 'POST', '/v1/messages', {
            headers: keyAuth(account),
            body: {
              body: 'Profile text',
              to: Array.from({ length: 100 }, () => `+1415${2000000 + (n++ % 7_000_000)}`),
              device_id: phone.id,
            },
          }),
        );
        const [first] = await Promise.all(sends);
        return { ...first, ms: performance.now() - started };
      },
    ],
    // The phone's side of a send: its outbox of 100, then one report per text.
    [
      'GET /v1/device/outbox?limit=100',
      () => http.expect(200, 'GET', '/v1/device/outbox?limit=100', { headers: phone.auth }),
      (samples) => fillQueue(samples * 100),
    ],
    [
      'POST /v1/device/messages/{id}/status (after an outbox fetch of 1)',
      async () => {
        const [id] = await outbox(1);
        return http.expect(200, 'POST', `/v1/device/messages/${id}/status`, {
          headers: phone.auth,
          body: { status: 'delivered' },
        });
      },
      (samples) => fillQueue(samples),
    ],
    // The report of a send of one recipient: the common send, whose report settles its batch.
    [
      'POST /v1/device/messages/status (1 report settling its batch, after an outbox fetch of 1)',
      async () => {
        const [id] = await outbox(1);
        return http.expect(200, 'POST', '/v1/device/messages/status', {
          headers: phone.auth,
          body: { reports: [{ id, status: 'delivered' }] },
        });
      },
      async (samples) => {
        // What the kinds before left in the outbox would be handed out first, settling no batch.
        for (let ids = await outbox(100); ids.length > 0; ids = await outbox(100))
          await http.expect(200, 'POST', '/v1/device/messages/status', {
            headers: phone.auth,
            body: { reports: ids.map((id) => ({ id, status: 'delivered' })) },
          });
        for (let i = 0; i < samples; i++)
          await http.expect(202, 'POST', '/v1/messages', {
            headers: keyAuth(account),
            body: { body: 'Profile text', to: [`+1415${2000000 + (n++ % 7_000_000)}`], device_id: phone.id },
          });
      },
    ],
    [
      'POST /v1/device/messages/status (100 reports, after an outbox fetch of 100)',
      async () => {
        const ids = await outbox(100);
        return http.expect(200, 'POST', '/v1/device/messages/status', {
          headers: phone.auth,
          body: { reports: ids.map((id) => ({ id, status: 'delivered' })) },
        });
      },
      (samples) => fillQueue(samples * 100),
    ],
  ];
  for (const [label, once, prepare] of kinds.filter(([label]) => !ONLY || label.includes(ONLY))) {
    // Enough for the warm-up, the logged request and the samples.
    await prepare?.(SAMPLES + 60);
    for (let i = 0; i < 50; i++) await once();
    const statements = await statementsOf(db, pgLog, once);
    console.log(`\n=== ${label}: ${statements.length} statement log lines (parse/bind/execute)`);
    for (const line of statements) console.log(`  ${line}`);
    if (EXPLAIN) printPlans(label, await capturePlans(db, pgLog, once, /./), /^api/);
    const samples: number[] = [];
    if (PG_STATS)
      await db.query('create extension if not exists pg_stat_statements; select pg_stat_statements_reset()');
    const before = timedSnapshot(components);
    const temporalBefore = await readTemporalCounts(temporal.metricsUrl);
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now();
      samples.push((await once()).ms);
      if (PACE > 0) await delay(PACE - (performance.now() - started));
    }
    console.log(`  ${SAMPLES} sequential: ${latencyLine(summarize([samples]))}`);
    // What the requests left behind (workflows still to start, their first tasks) is their cost too.
    const settling = performance.now();
    const temporalAfter = await untilQuiet(temporal.metricsUrl);
    const settledAfter = ((performance.now() - settling) / 1000).toFixed(1);
    console.log(
      `  CPU ms per request, with what it left behind (quiet ${settledAfter} s after): ${cpuPerRequest(before, timedSnapshot(components), SAMPLES, idle)}`,
    );
    if (PG_STATS) await printStatementStats(db, SAMPLES);
    const operations = perRequest(temporalBefore, temporalAfter, SAMPLES);
    if (operations.length > 0) {
      console.log('  Temporal per request (service requests and persistence operations by service):');
      for (const [key, n] of operations.slice(0, 40)) console.log(`    ${n.toFixed(2).padStart(6)}  ${key}`);
    }
  }
  await cleanup();
  if (PROFILE) console.log(`\nCPU profiles of the api and the worker: ${OUT}/*.cpuprofile`);
}

runMain(main);
