// `npm run bench`: every figure of issue 10 in one run, through the public HTTP API only, each beside
// a physical baseline measured on the same database in the same run. Starts and stops its own stack.
// `npm run bench -- --help` lists the flags.
import { cpus, loadavg } from 'node:os';
import { createScratchTables, measureBaselines, type Baselines } from './baseline';
import { capturePlans, preloadAutoExplain, printPlans } from './explain';
import { httpClient, type Reply } from './http';
import { cpuBetween, idleCpuPerSecond, memorySampler, snapshot, type Component, type Snapshot } from './proc';
import { untilQuiet } from './temporal-metrics';
import { createAccount, fillHistory, keyAuth, type Account, type Phone } from './setup';
import { onCleanup, runMain, startBenchStack, logMessages, type Layout, type PostgresLog } from './stack';
import { openEvents } from '../tools/phone/events';
import { int, latencyLine, mib, ms, ratio, summarize, type Summary } from './stats';

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
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const setting = (name: string, env: string, full: number, quickValue: number) => {
  const value = Number(flag(name) ?? process.env[env] ?? (quick ? quickValue : full));
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} / ${env} must be a number`);
  return Math.floor(value);
};
const ROWS = setting('rows', 'BENCH_ROWS', 1_000_000, 20_000);
const QUEUE = setting('queue', 'BENCH_QUEUE', 100_000, 2_000);
const ROUNDS = Math.max(1, setting('rounds', 'BENCH_ROUNDS', 5, 2));
const DRAIN_SECONDS = setting('drain-seconds', 'BENCH_DRAIN_SECONDS', 5, 2);
const THROUGHPUT_SENDS = Math.max(1, setting('throughput-sends', 'BENCH_THROUGHPUT_SENDS', 25, 10));
const LAYOUT = (flag('stack') ?? process.env.BENCH_STACK ?? 'split') as Layout;
if (!['split', 'start', 'cluster'].includes(LAYOUT)) throw new Error('--stack must be split, start or cluster');
const KEYS = 40;
const LAYOUTS: Record<Layout, string> = {
  split: 'api and worker as two processes (--stack=start for the npm start layout)',
  start: 'api and worker in one process, as under npm start',
  cluster: 'the npm run cluster shape: two Temporal servers, two api and two worker processes of the compiled build',
};

const delay = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const section = (title: string) => console.log(`\n=== ${title}  [${elapsed()}]`);

// ---------------------------------------------------------------------------------------------
// Figures, for the ratio lines and the final table.

interface Figure {
  label: string;
  value: number;
  unit: 'ms' | '/s' | 'ms/recipient' | 'MiB' | 'text';
  text?: string;
  target?: { op: '<=' | '>='; value: number };
  /** The figure against its physical baseline, e.g. "6.2× bare insert". */
  vs?: string;
}
const figures = new Map<string, Figure>();
const record = (key: string, figure: Figure) =>
  figures.set(key, {
    ...figure,
    vs: figure.vs ?? (figure.unit === 'ms' ? `${ratio(figure.value, baselines.insertRoundTrip.p50)} bare insert` : ''),
  });

let baselines: Baselines;
let emptyBaselines: Baselines;
const vsInsert = (value: number) => `= ${ratio(value, baselines.insertRoundTrip.p50)} bare insert round trip`;

async function series(
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

const recipients = (n: number, from = Math.floor(Math.random() * 7_000_000)) =>
  Array.from({ length: n }, (_, i) => `+1415${2000000 + ((from + i) % 7_999_999)}`);

function memoryLine(snap: Snapshot, components: Component[], pss: boolean): string {
  const parts = components.map(
    (c) =>
      `${c.name} ${mib(snap[c.name].rssBytes)}${snap[c.name].processes > 1 ? ` (${snap[c.name].processes} procs)` : ''}`,
  );
  return `RSS ${mib(snap.total.rssBytes)}${pss ? ` (PSS ${mib(snap.total.pssBytes)})` : ''}: ${parts.join(', ')}`;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  console.log(
    `phone-gateway bench — ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `rows ${int(ROWS)}, queue ${int(QUEUE)}, rounds ${ROUNDS}, drain ${DRAIN_SECONDS} s/round, throughput ${THROUGHPUT_SENDS} sends of 100 per sender per round, stack: ${LAYOUT}${quick ? ' (quick)' : ''}`,
  );

  section('starting the stack');
  const pgLog: PostgresLog = { errors: [] };
  const { db, smtp, service, components, temporal } = await startBenchStack({
    layout: LAYOUT,
    pgLog,
    poolSize: 8,
    prepare: async (db) => {
      await createScratchTables(db);
      await preloadAutoExplain(db, 'bench');
    },
    // The phone side drains faster than the per-phone request limit (50/s, burst 200) allows.
    env: { DEVICE_RATE_PER_SECOND: '100000', DEVICE_RATE_BURST: '100000' },
  });
  const apiComponent = service.components[0];
  const http = httpClient(service.bases, 16);
  onCleanup('close the http agent', () => http.close());
  console.log(`stack up: ${service.base}, ${components.map((c) => `${c.name} pid ${c.root()}`).join(', ')}`);

  // Accounts through the API: register, the mailed code, keys, pairing.
  const codeFor = (email: string) => smtp.codeFor(email, 15_000);
  const bench = await createAccount(http, codeFor, {
    label: 'bench',
    keys: KEYS,
    phones: ['idle', 'bulk', 'load', 'queue', 'live'],
  });
  const history = await createAccount(http, codeFor, { label: 'history', keys: 4, phones: ['history'] });
  console.log(`accounts: bench (${KEYS} keys, phones idle/bulk/load/queue/live), history (1 phone)`);

  const send = async (account: Account, phone: Phone, n: number): Promise<Reply & { batchId: string }> => {
    const reply = await http.expect(202, 'POST', '/v1/messages', {
      headers: keyAuth(account),
      body: { body: 'Benchmark text', to: recipients(n), device_id: phone.id },
    });
    return Object.assign(reply, { batchId: reply.json<{ batch: { id: string } }>().batch.id });
  };
  const get = (account: Account, path: string) => http.expect(200, 'GET', path, { headers: keyAuth(account) });

  // ---------------------------------------------------------------------------------------------
  section('memory at rest (after start, 5 s idle)');
  await delay(5000);
  const restStart = snapshot(components, true);
  console.log(memoryLine(restStart, components, true));
  record('rss-rest', {
    label: 'stack RSS at rest (after start)',
    value: restStart.total.rssBytes / 2 ** 20,
    unit: 'MiB',
    target: { op: '<=', value: 350 },
  });
  record('pss-rest', {
    label: 'stack PSS at rest (after start)',
    value: restStart.total.pssBytes / 2 ** 20,
    unit: 'MiB',
  });

  // ---------------------------------------------------------------------------------------------
  section('physical baselines (same database, empty tables)');
  baselines = await measureBaselines(db, { userId: bench.userId, deviceId: bench.phones.idle.id }, ROUNDS, 100);
  const printBaselines = (b: Baselines) => {
    console.log(`${'bare one-row insert round trip (pg client)'.padEnd(62)} ${latencyLine(b.insertRoundTrip)}`);
    console.log(`${'select 1 round trip'.padEnd(62)} ${latencyLine(b.selectRoundTrip)}`);
    for (const [n, s] of Object.entries(b.insertRows))
      console.log(
        `${`plain insert of ${n} message row${n === '1' ? '' : 's'} (one statement)`.padEnd(62)} ${latencyLine(s)}`,
      );
    console.log(
      `${'plain multi-row insert, sequential 1,000-row statements'.padEnd(62)} ${int(b.rowsPerSecond)} rows/s`,
    );
    console.log(
      `${'plain multi-row insert, 4 connections × 100-row statements'.padEnd(62)} ${int(b.rowsPerSecond4x100)} rows/s`,
    );
  };
  printBaselines(baselines);
  emptyBaselines = baselines;

  // ---------------------------------------------------------------------------------------------
  section('idle stack, small tables');
  // The floor of every request: HTTP, Koa and the middleware, with no credential and no query.
  const livez = await series(
    'GET /livez (the HTTP floor: no credential, no query)',
    { warmup: 20, samples: 100 },
    async () => {
      const from = performance.now();
      await http.expect(200, 'GET', '/livez');
      return performance.now() - from;
    },
  );
  record('livez', { label: 'GET /livez p50 (the HTTP floor)', value: livez.p50, unit: 'ms' });
  const devicesIdle = await series(
    'GET /v1/devices',
    { warmup: 20, samples: 100 },
    async () => (await get(bench, '/v1/devices')).ms,
  );
  console.log(`  ${vsInsert(devicesIdle.p50)}; /livez ${ms(livez.p50)} of it is the HTTP floor`);
  record('devices', {
    label: 'GET /v1/devices p50 (idle)',
    value: devicesIdle.p50,
    unit: 'ms',
    target: { op: '<=', value: 2 },
    vs: `${ratio(devicesIdle.p50, baselines.insertRoundTrip.p50)} bare insert; /livez ${ms(livez.p50)}`,
  });
  const listIdle = await series(
    'GET /v1/messages?limit=50',
    { warmup: 20, samples: 100 },
    async () => (await get(bench, '/v1/messages?limit=50')).ms,
  );
  console.log(`  ${vsInsert(listIdle.p50)}`);
  record('list-idle', { label: 'GET /v1/messages?limit=50 p50 (idle, small table)', value: listIdle.p50, unit: 'ms' });

  const accept1 = await series(
    'POST /v1/messages, 1 recipient, sequential',
    { warmup: 10, samples: 30 },
    async () => (await send(bench, bench.phones.idle, 1)).ms,
  );
  console.log(`  ${vsInsert(accept1.p50)}`);
  record('accept-1', {
    label: 'accept 1 recipient p50',
    value: accept1.p50,
    unit: 'ms',
    target: { op: '<=', value: 6 },
  });
  // Back to back, each send also leaves its workflow's work (the Temporal server's and the worker's)
  // on the same two cores as the next send. Here each send waits until the server is quiet again:
  // what an accept costs when the stack is not still busy with the sends before it.
  const accept1Quiet = await series(
    'POST /v1/messages, 1 recipient, each after the stack is quiet',
    { warmup: 1, samples: 6 },
    async () => {
      await untilQuiet(temporal.metricsUrl);
      return (await send(bench, bench.phones.idle, 1)).ms;
    },
  );
  console.log(`  ${vsInsert(accept1Quiet.p50)}; back to back ${ms(accept1.p50)}`);
  record('accept-1-quiet', {
    label: 'accept 1 recipient p50, stack quiet before each',
    value: accept1Quiet.p50,
    unit: 'ms',
    target: { op: '<=', value: 6 },
    vs: `${ratio(accept1Quiet.p50, baselines.insertRoundTrip.p50)} bare insert; back to back ${ms(accept1.p50)}`,
  });
  const accept100 = await series(
    'POST /v1/messages, 100 recipients, sequential',
    { warmup: 5, samples: 15 },
    async () => (await send(bench, bench.phones.idle, 100)).ms,
  );
  console.log(
    `  = ${ratio(accept100.p50, baselines.insertRows[100].p50)} plain insert of 100 rows, ${vsInsert(accept100.p50)}`,
  );
  record('accept-100', {
    label: 'accept 100 recipients p50',
    value: accept100.p50,
    unit: 'ms',
    target: { op: '<=', value: 12 },
    vs: `${ratio(accept100.p50, baselines.insertRows[100].p50)} 100-row insert`,
  });
  const accept1000 = await series(
    'POST /v1/messages, 1,000 recipients, sequential',
    { warmup: 2, samples: 4 },
    async () => (await send(bench, bench.phones.bulk, 1000)).ms,
  );
  console.log(`  = ${ratio(accept1000.p50, baselines.insertRows[1000].p50)} plain insert of 1,000 rows`);
  record('accept-1000', {
    label: 'accept 1,000 recipients p50',
    value: accept1000.p50,
    unit: 'ms',
    target: { op: '<=', value: 60 },
    vs: `${ratio(accept1000.p50, baselines.insertRows[1000].p50)} 1,000-row insert`,
  });

  // Accept → workflow running: from the 202 until the workflow's describe shows it running (or done).
  const workflowLatency = await series(
    'accept → batch workflow running (describe)',
    { warmup: 2, samples: 10 },
    async () => {
      const reply = await send(bench, bench.phones.idle, 1);
      const from = performance.now();
      const handle = temporal.client.workflow.getHandle(`batch-${reply.batchId}`);
      for (;;) {
        try {
          const { status } = await handle.describe();
          if (status.name === 'RUNNING' || status.name === 'COMPLETED') return performance.now() - from;
          throw new Error(`batch workflow ${status.name}`);
        } catch (error) {
          if ((error as Error).name !== 'WorkflowNotFoundError') throw error;
          if (performance.now() - from > 60_000) throw new Error('no batch workflow within 60 s of the 202');
          await delay(5);
        }
      }
    },
  );
  // The floor of that figure: one describe of a workflow that already runs.
  const anyBatch = (await send(bench, bench.phones.idle, 1)).batchId;
  await delay(1000);
  const describe = await series(
    '  describe round trip (floor of the figure above)',
    { warmup: 3, samples: 10 },
    async () => {
      const from = performance.now();
      await temporal.client.workflow.getHandle(`batch-${anyBatch}`).describe();
      return performance.now() - from;
    },
  );
  record('workflow', {
    label: 'accept → workflow running p50',
    value: workflowLatency.p50,
    unit: 'ms',
    target: { op: '<=', value: 1000 },
    vs: `describe ${ms(describe.p50)}`,
  });

  // The live channel: from the send until the phone is told (SSE `outbox`), and until its outbox fetch
  // returns the message, as a phone without push credentials would do it.
  {
    const live = new AbortController();
    const stream = await openEvents(service.base, bench.phones.live.token, live.signal);
    const next = async (name: string) => {
      for (;;) {
        const { value, done } = await stream.next();
        if (done) throw new Error('the phone event stream ended');
        if (value.event === name) return;
      }
    };
    await next('ready');
    await http.expect(200, 'GET', '/v1/device/outbox?limit=100', { headers: bench.phones.live.auth });
    const told = await series(
      'send → phone told (SSE outbox event); its fetch then checked',
      { warmup: 3, samples: 20 },
      async () => {
        const from = performance.now();
        const reply = await send(bench, bench.phones.live, 1);
        await next('outbox');
        const elapsedMs = performance.now() - from;
        const rows = await http.expect(200, 'GET', '/v1/device/outbox?limit=100', { headers: bench.phones.live.auth });
        const messageId = reply.json<{ message_ids: string[] }>().message_ids[0];
        const fetched = rows.json<{ data: { id: string }[] }>().data;
        if (!fetched.some((row) => row.id === messageId)) {
          throw new Error('the message the phone was told of is not in its outbox');
        }
        // As a phone does: reported messages leave the outbox. Unreported ones would come again and,
        // past 100, push the next send's message out of this fetch.
        await http.expect(200, 'POST', '/v1/device/messages/status', {
          headers: bench.phones.live.auth,
          body: { reports: fetched.map((row) => ({ id: row.id, status: 'delivered' })) },
        });
        return elapsedMs;
      },
    );
    console.log(
      `  minus the send itself (${ms(accept1.p50)}): told ${ms(Math.max(0, told.p50 - accept1.p50))} after the 202`,
    );
    record('live-channel', {
      label: 'send → phone told p50 (SSE, incl. the send)',
      value: told.p50,
      unit: 'ms',
      target: { op: '<=', value: 100 },
      vs: `send alone ${ms(accept1.p50)}`,
    });
    live.abort();
  }

  // ---------------------------------------------------------------------------------------------
  section(`filling: ${int(ROWS)} history rows (SQL), ${int(QUEUE)} queued on the bench phone (API)`);
  const fill = await fillHistory(db, history, history.phones.history.id, ROWS).catch((error: Error) => {
    throw new Error(`the history fill (bench/setup.ts) no longer matches the schema? ${error.message}`);
  });
  console.log(
    `history: ${int(ROWS)} messages in one INSERT ... SELECT generate_series in ${(fill.ms / 1000).toFixed(1)} s (${int(ROWS / (fill.ms / 1000))} rows/s, ${fill.rebuilt ? `${fill.rebuilt} secondary indexes dropped and built again after it` : 'all indexes maintained'})`,
  );
  // The queue through the API, as an integrator builds it: sends of up to 1,000, two at a time.
  const queueStarted = performance.now();
  let queued = 0;
  const chunks: number[] = [];
  for (let left = QUEUE; left > 0; left -= 1000) chunks.push(Math.min(1000, left));
  const queueBatches: string[] = [];
  await Promise.all(
    [0, 1].map(async (lane) => {
      for (let i = lane; i < chunks.length; i += 2) {
        queueBatches.push((await send(bench, bench.phones.queue, chunks[i])).batchId);
        queued += chunks[i];
      }
    }),
  );
  await db.query('analyze messages');
  await db.query('analyze batches');
  const [{ count: tableRows }] = (await db.query('select count(*)::int as count from messages')).rows;
  console.log(
    `queue: ${int(queued)} recipients in ${chunks.length} sends of ≤1,000 to the queue phone in ${((performance.now() - queueStarted) / 1000).toFixed(1)} s; messages table now ${int(tableRows)} rows`,
  );

  // ---------------------------------------------------------------------------------------------
  section(`at scale: ${int(tableRows)} rows in messages, ${int(QUEUE)} queued on one phone`);
  baselines = await measureBaselines(db, { userId: bench.userId, deviceId: bench.phones.idle.id }, ROUNDS, 50);
  printBaselines(baselines);
  const devicesScale = await series(
    'GET /v1/devices',
    { warmup: 20, samples: 100 },
    async () => (await get(bench, '/v1/devices')).ms,
  );
  console.log(`  ${vsInsert(devicesScale.p50)}`);
  const listBench = await series(
    `GET /v1/messages?limit=50 (bench account, ${int(QUEUE)}+ rows)`,
    { warmup: 20, samples: 100 },
    async () => (await get(bench, '/v1/messages?limit=50')).ms,
  );
  console.log(`  ${vsInsert(listBench.p50)}`);
  record('list', {
    label: `GET /v1/messages?limit=50 p50 (${int(tableRows)} rows in table)`,
    value: listBench.p50,
    unit: 'ms',
    target: { op: '<=', value: 3 },
  });
  const listHistory = await series(
    `GET /v1/messages?limit=50 (history account, ${int(ROWS)} rows)`,
    { warmup: 20, samples: 100 },
    async () => (await get(history, '/v1/messages?limit=50')).ms,
  );
  console.log(`  ${vsInsert(listHistory.p50)}`);
  // Walking pages with next_cursor, 20 pages deep from the newest.
  const pages = await series(
    'GET /v1/messages pages 1-20 (history, next_cursor)',
    { warmup: 1, samples: 1 },
    async () => {
      let cursor: string | null = null;
      let total = 0;
      for (let page = 0; page < 20; page++) {
        const reply: Reply = await get(
          history,
          `/v1/messages?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        total += reply.ms;
        cursor = reply.json<{ next_cursor: string | null }>().next_cursor;
        if (!cursor) break;
      }
      return total / 20;
    },
  );
  console.log(`  (mean per page of a 20-page walk) ${vsInsert(pages.p50)}`);
  record('pages', { label: 'GET /v1/messages page of a 20-page walk p50', value: pages.p50, unit: 'ms' });
  const searches: Array<[string, string]> = [
    ['rare (one recipient)', '+14152000042'],
    ['medium (order 4242, ~0.01%)', 'order 4242'],
    ['common (every row)', 'about order'],
  ];
  for (const [what, q] of searches) {
    const s = await series(
      `GET /v1/messages?q= ${what}`,
      { warmup: 3, samples: 10 },
      async () => (await get(history, `/v1/messages?limit=50&q=${encodeURIComponent(q)}`)).ms,
    );
    console.log(`  ${vsInsert(s.p50)}`);
    record(`q-${what}`, { label: `q search ${what} p50`, value: s.p50, unit: 'ms' });
  }
  const acceptQueued = await series(
    `POST /v1/messages, 1 recipient, ${int(QUEUE)} queued on the phone`,
    { warmup: 5, samples: 30 },
    async () => (await send(bench, bench.phones.queue, 1)).ms,
  );
  console.log(`  ${vsInsert(acceptQueued.p50)}`);
  record('accept-queued', {
    label: `accept 1 recipient p50, ${int(QUEUE)} queued`,
    value: acceptQueued.p50,
    unit: 'ms',
    target: { op: '<=', value: 6 },
  });

  // ---------------------------------------------------------------------------------------------
  section('phone side: outbox fetch of 100, a status report each (queue phone)');
  const queuePhone = bench.phones.queue;
  const fetchOutbox = async () => {
    const reply = await http.expect(200, 'GET', '/v1/device/outbox?limit=100', { headers: queuePhone.auth });
    return { ms: reply.ms, ids: reply.json<{ data: Array<{ id: string }> }>().data.map((row) => row.id) };
  };
  const outcome = (i: number) =>
    i % 20 === 19
      ? { status: 'failed', error_code: 'RESULT_ERROR_GENERIC_FAILURE', error_message: 'bench' }
      : { status: 'delivered' };
  const fetchMs: number[][] = [];
  const reportMs: number[][] = [];
  const singleRates: number[] = [];
  let drained = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const fetches: number[] = [];
    const reports: number[] = [];
    let texts = 0;
    const from = performance.now();
    while (performance.now() - from < DRAIN_SECONDS * 1000) {
      const { ms: fetchTook, ids } = await fetchOutbox();
      fetches.push(fetchTook);
      if (ids.length === 0) break;
      for (const [i, id] of ids.entries()) {
        const reply = await http.expect(200, 'POST', `/v1/device/messages/${id}/status`, {
          headers: queuePhone.auth,
          body: outcome(i),
        });
        reports.push(reply.ms);
      }
      texts += ids.length;
    }
    fetchMs.push(fetches);
    reportMs.push(reports);
    // A round that found the queue empty measured nothing (the quick run's queue can run out).
    if (texts > 0) singleRates.push(texts / ((performance.now() - from) / 1000));
    drained += texts;
  }
  const fetchSummary = summarize(fetchMs);
  const reportSummary = summarize(reportMs);
  console.log(`${'GET /v1/device/outbox?limit=100'.padEnd(62)} ${latencyLine(fetchSummary)}`);
  console.log(`  ${vsInsert(fetchSummary.p50)}`);
  console.log(`${'POST /v1/device/messages/{id}/status'.padEnd(62)} ${latencyLine(reportSummary)}`);
  console.log(`  ${vsInsert(reportSummary.p50)}`);
  const singleRate = median(singleRates);
  console.log(
    `${'drain, fetch 100 + a report each'.padEnd(62)} ${int(singleRate)} texts/s  (rounds: ${singleRates.map(int).join(' ')}; ${int(drained)} texts)`,
  );
  record('outbox', {
    label: `outbox fetch of 100 p50 (${int(tableRows)} rows)`,
    value: fetchSummary.p50,
    unit: 'ms',
    target: { op: '<=', value: 5 },
  });
  record('report', {
    label: 'status report p50',
    value: reportSummary.p50,
    unit: 'ms',
    target: { op: '<=', value: 5 },
  });
  record('drain-single', { label: 'drain, single reports', value: singleRate, unit: '/s' });

  // The batched report, where the server has it.
  const probe = await http.request('POST', '/v1/device/messages/status', {
    headers: queuePhone.auth,
    body: { reports: [] },
  });
  const batched = probe.status !== 404 && probe.status !== 405;
  if (!batched) {
    console.log(
      `${'drain, fetch 100 + one batched report'.padEnd(62)} not available (POST /v1/device/messages/status answers ${probe.status})`,
    );
    record('drain-batched', {
      label: 'drain, batched reports',
      value: NaN,
      unit: 'text',
      text: 'not available',
      target: { op: '>=', value: 2000 },
    });
  } else {
    const batchMs: number[][] = [];
    const rates: number[] = [];
    let batchedTexts = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const round: number[] = [];
      let texts = 0;
      const from = performance.now();
      while (performance.now() - from < DRAIN_SECONDS * 1000) {
        const { ids } = await fetchOutbox();
        if (ids.length === 0) break;
        const reply = await http.expect(200, 'POST', '/v1/device/messages/status', {
          headers: queuePhone.auth,
          body: { reports: ids.map((id, i) => ({ id, ...outcome(i) })) },
        });
        const failed = reply.json<{ data: Array<{ id: string; error?: unknown }> }>().data.filter((item) => item.error);
        if (failed.length > 0) throw new Error(`batched report refused items: ${JSON.stringify(failed.slice(0, 3))}`);
        round.push(reply.ms);
        texts += ids.length;
      }
      batchMs.push(round);
      if (texts > 0) rates.push(texts / ((performance.now() - from) / 1000));
      batchedTexts += texts;
    }
    const s = summarize(batchMs);
    console.log(`${'POST /v1/device/messages/status (100 reports)'.padEnd(62)} ${latencyLine(s)}`);
    console.log(`  = ${ratio(s.p50, baselines.insertRows[100].p50)} plain insert of 100 rows`);
    const rate = median(rates);
    console.log(
      `${'drain, fetch 100 + one batched report'.padEnd(62)} ${int(rate)} texts/s  (rounds: ${rates.map(int).join(' ')}; ${int(batchedTexts)} texts)`,
    );
    if (batchedTexts < 100 * ROUNDS) console.log('  (the queue ran out: raise --queue for a steady figure)');
    record('drain-batched', {
      label: 'drain, batched reports',
      value: rate,
      unit: '/s',
      target: { op: '>=', value: 2000 },
    });
  }

  // ---------------------------------------------------------------------------------------------
  section('query plans of the requests above (auto_explain: EXPLAIN ANALYZE, BUFFERS)');
  const someBatch = queueBatches[queueBatches.length - 1];
  const planned: Array<[string, () => Promise<unknown>]> = [
    ['GET /v1/messages?limit=50 (history account)', () => get(history, '/v1/messages?limit=50')],
    [
      'GET /v1/messages?q=order 4242 (history account)',
      () => get(history, `/v1/messages?limit=50&q=${encodeURIComponent('order 4242')}`),
    ],
    ['GET /v1/messages?status=failed (history account)', () => get(history, '/v1/messages?limit=50&status=failed')],
    ['GET /v1/device/outbox?limit=100 (queue phone)', () => fetchOutbox()],
    [`GET /v1/batches/{id} (a 1,000-recipient batch)`, () => get(bench, `/v1/batches/${someBatch}`)],
    ['GET /v1/messages?batch_id= (same batch)', () => get(bench, `/v1/messages?limit=50&batch_id=${someBatch}`)],
    ['POST /v1/messages, 1 recipient (queue phone)', () => send(bench, queuePhone, 1)],
  ];
  for (const [label, action] of planned) printPlans(label, await capturePlans(db, pgLog, action), /^api/);

  // ---------------------------------------------------------------------------------------------
  section('throughput: 4 concurrent senders of 100 recipients (load phone), memory per round');
  const loadPhone = bench.phones.load;
  // A round is at least `sendsPerSender` sends of 100 per sender and lasts at least a few seconds,
  // so a fast server still gives the sampler and the CPU counters (10 ms ticks) enough to read.
  const minSeconds = quick ? 1 : 3;
  const idle = await idleCpuPerSecond(components, quick ? 5000 : 10_000);
  const throughputRound = async (sendsPerSender: number) => {
    const latencies: number[] = [];
    let accepted = 0;
    const sampler = memorySampler(components);
    const before = snapshot(components);
    const clientBefore = process.cpuUsage();
    const from = performance.now();
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        for (let i = 0; i < sendsPerSender || performance.now() - from < minSeconds * 1000; i++) {
          latencies.push((await send(bench, loadPhone, 100)).ms);
          accepted += 100;
        }
      }),
    );
    const seconds = (performance.now() - from) / 1000;
    const after = snapshot(components);
    const clientCpu = process.cpuUsage(clientBefore);
    const peak = sampler.stop();
    await delay(3000);
    const settled = snapshot(components, true);
    const spent = cpuBetween(before, after);
    const cpuPer = (name: string) => spent[name] / accepted;
    // What the sends left behind (their workflows' tasks) is theirs too: counted until the Temporal
    // server is quiet, less what the stack spends idle over that time.
    await untilQuiet(temporal.metricsUrl);
    const quietSeconds = (performance.now() - from) / 1000;
    const sustained = cpuBetween(before, snapshot(components));
    const stackUntilQuiet =
      components.reduce((sum, c) => sum + sustained[c.name] - idle[c.name] * quietSeconds, 0) / accepted;
    return {
      rate: accepted / seconds,
      sustainedRate: accepted / quietSeconds,
      stackUntilQuiet,
      latencies,
      cpuPerRecipient: Object.fromEntries(components.map((c) => [c.name, cpuPer(c.name)])),
      clientCpuPerRecipient: (clientCpu.user + clientCpu.system) / 1000 / accepted,
      clientCpuShare: (clientCpu.user + clientCpu.system) / 1e6 / seconds,
      accepted,
      peak,
      settled,
    };
  };
  await throughputRound(Math.max(2, Math.round(THROUGHPUT_SENDS / 5))); // warm-up
  const rounds: Array<Awaited<ReturnType<typeof throughputRound>>> = [];
  for (let r = 0; r < ROUNDS; r++) {
    const round = await throughputRound(THROUGHPUT_SENDS);
    rounds.push(round);
    const cpu = components.map((c) => `${c.name} ${round.cpuPerRecipient[c.name].toFixed(3)}`).join(', ');
    const peaks = components.map((c) => `${c.name} ${mib(round.peak.rss[c.name])}`).join(', ');
    console.log(
      `round ${r + 1}: ${int(round.rate)} recipients/s (${int(round.accepted)} accepted), send p50 ${ms(summarize([round.latencies]).p50)}\n` +
        `  CPU ms per recipient: ${cpu}; bench client ${round.clientCpuPerRecipient.toFixed(3)} (${Math.round(round.clientCpuShare * 100)}% of a core)\n` +
        `  until the Temporal server is quiet: ${int(round.sustainedRate)} recipients/s, whole stack ${round.stackUntilQuiet.toFixed(3)} ms CPU per recipient\n` +
        `  RSS peak ${mib(round.peak.rss.total)} (PSS ${mib(round.peak.pss)}): ${peaks}\n` +
        `  3 s after: ${memoryLine(round.settled, components, true)}`,
    );
  }
  const rate = median(rounds.map((r) => r.rate));
  const apiCpu = median(rounds.map((r) => r.cpuPerRecipient[apiComponent.name]));
  const stackCpu = median(rounds.map((r) => Object.values(r.cpuPerRecipient).reduce((a, b) => a + b, 0)));
  const sustainedRate = median(rounds.map((r) => r.sustainedRate));
  const sustainedCpu = median(rounds.map((r) => r.stackUntilQuiet));
  const peakRss = Math.max(...rounds.map((r) => r.peak.rss.total)) / 2 ** 20;
  const peakPss = Math.max(...rounds.map((r) => r.peak.pss)) / 2 ** 20;
  const settledSeries = rounds.map((r) => r.settled.total.rssBytes / 2 ** 20);
  const settledPss = rounds.map((r) => r.settled.total.pssBytes / 2 ** 20);
  const growth = settledSeries[settledSeries.length - 1] - settledSeries[0];
  const growthPss = settledPss[settledPss.length - 1] - settledPss[0];
  console.log(
    `recipients accepted per second (median of rounds): ${int(rate)} = ${ratio(rate, baselines.rowsPerSecond4x100)} of the plain 4 × 100-row insert (${int(baselines.rowsPerSecond4x100)} rows/s)`,
  );
  console.log(
    `CPU per accepted recipient (median): ${apiComponent.name} ${apiCpu.toFixed(3)} ms, whole stack ${stackCpu.toFixed(3)} ms`,
  );
  console.log(
    `stack RSS after each round: ${settledSeries.map((v) => `${Math.round(v)}`).join(', ')} MiB (growth first→last ${Math.round(growth)} MiB); PSS ${settledPss.map((v) => `${Math.round(v)}`).join(', ')} MiB (${Math.round(growthPss)} MiB)`,
  );
  record('throughput', {
    label: 'recipients/s, 4 senders of 100',
    value: rate,
    unit: '/s',
    target: { op: '>=', value: 16000 },
    vs: `${ratio(rate, baselines.rowsPerSecond4x100)} 4×100-row inserts`,
  });
  record('cpu', {
    label: `CPU per recipient (${apiComponent.name} process)`,
    value: apiCpu,
    unit: 'ms/recipient',
    target: { op: '<=', value: 0.1 },
  });
  record('cpu-stack', { label: 'CPU per recipient (whole stack)', value: stackCpu, unit: 'ms/recipient' });
  // The rounds above count only what the stack did while the senders sent; most of a send's
  // workflow work comes after. These two count it, until the Temporal server is quiet again.
  record('throughput-sustained', {
    label: 'recipients/s until the stack is quiet again',
    value: sustainedRate,
    unit: '/s',
    target: { op: '>=', value: 16000 },
  });
  record('cpu-stack-sustained', {
    label: 'CPU per recipient (whole stack, until quiet)',
    value: sustainedCpu,
    unit: 'ms/recipient',
  });
  record('rss-peak', {
    label: 'stack RSS peak under throughput load',
    value: peakRss,
    unit: 'MiB',
    target: { op: '<=', value: 600 },
  });
  record('pss-peak', { label: 'stack PSS peak under throughput load', value: peakPss, unit: 'MiB' });
  record('rss-growth', {
    label: 'stack RSS growth over the rounds',
    value: growth,
    unit: 'MiB',
    target: { op: '<=', value: 32 },
  });

  // ---------------------------------------------------------------------------------------------
  section('memory at rest after the load (5 s idle)');
  await delay(5000);
  const restEnd = snapshot(components, true);
  console.log(memoryLine(restEnd, components, true));
  record('rss-rest-end', {
    label: 'stack RSS at rest (after the load)',
    value: restEnd.total.rssBytes / 2 ** 20,
    unit: 'MiB',
    target: { op: '<=', value: 350 },
  });
  record('pss-rest-end', {
    label: 'stack PSS at rest (after the load)',
    value: restEnd.total.pssBytes / 2 ** 20,
    unit: 'MiB',
  });

  // ---------------------------------------------------------------------------------------------
  section('health of the run');
  console.log(
    `postgres ERROR/FATAL lines: ${pgLog.errors.length}${pgLog.errors.length ? `; first: ${pgLog.errors.slice(0, 3).join(' | ')}` : ''}`,
  );
  for (const { name } of components.slice(1)) {
    const messages = [...(logMessages.get(name) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
    const count = messages.reduce((sum, [, n]) => sum + n, 0);
    console.log(`${name}: ${count} output lines (LOG_LEVEL=warn)`);
    for (const [message, n] of messages.slice(0, 4)) console.log(`  ${String(n).padStart(6)} × ${message}`);
  }
  const client = process.cpuUsage();
  const wall = (Date.now() - started) / 1000;
  console.log(
    `bench client CPU: ${((client.user + client.system) / 1e6).toFixed(1)} s over ${wall.toFixed(0)} s (${(((client.user + client.system) / 1e6 / wall) * 100).toFixed(0)}% of one core)`,
  );
  if (!service.alive()) throw new Error('a service process died during the run');

  printTable();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
}

function printTable() {
  section(
    `issue 10 targets (bare insert round trip p50: ${ms(emptyBaselines.insertRoundTrip.p50)} on small tables, ${ms(baselines.insertRoundTrip.p50)} at scale; each figure is compared with the one of its phase)`,
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

runMain(main, 'bench');
