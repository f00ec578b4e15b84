// `npm run soak`: mixed traffic for a while (10 minutes by default) against `npm start` itself
// (package.json's start script on a fresh DATA_DIR: bench/stack.ts startNpmStart), or with --stack
// the bench's stacks: sends of 1–50 recipients, integrator reads, three simulated phones fetching
// (live channel) and reporting in batches, and a webhook endpoint receiving every event. Prints a
// line per minute (throughput, p50/p99 per kind, 5xx, memory), a summary, and whether each process's
// memory grows: PSS sampled every 30 s, its slope after a warm-up. A bench, not a test.
// `npm run soak -- --help` lists the flags.
import { createServer } from 'node:https';
import type { Pool } from 'pg';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SimulatedPhone } from '../tools/phone/phone';
import { createTestTls } from '../test/support/tls';
import { freePort } from '../test/support/net';
import { httpClient, type Reply } from './http';
import {
  listeningPorts,
  postgresProcessKind,
  pssByMapping,
  pssByProcess,
  snapshot,
  threadCount,
  type Component,
} from './proc';
import { createAccount, keyAuth } from './setup';
import { onCleanup, runMain, startBenchStack, startNpmStart, stopping, type Layout } from './stack';
import { int, leastSquares, mib, ms, percentile } from './stats';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(`npm run soak [-- flags]

  --minutes=N        how long the mixed traffic runs          SOAK_MINUTES (10)
  --sends=N          sends per second (1–50 recipients each)  SOAK_SENDS_PER_SECOND (5)
  --reads=N          integrator reads per second              SOAK_READS_PER_SECOND (20)
  --rest=N           minutes of sampling memory after it      SOAK_REST_MINUTES (2)
  --env=NAME=value   the service's environment, for an experiment (repeatable),
                     e.g. --env=TEMPORAL_MAX_CACHED_WORKFLOWS=50
  --stack=S          npm-start: \`npm start\` itself; split, start, cluster: the bench's stacks
                                                              SOAK_STACK (npm-start)`);
  process.exit(0);
}
const option = (name: string, env: string) =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? process.env[env];
const flag = (name: string, env: string, fallback: number, min = Number.MIN_VALUE) => {
  const value = Number(option(name, env) ?? fallback);
  if (!Number.isFinite(value) || value < min) throw new Error(`--${name} / ${env} must be a number ≥ ${min}`);
  return value;
};
const MINUTES = flag('minutes', 'SOAK_MINUTES', 10);
const SENDS_PER_SECOND = flag('sends', 'SOAK_SENDS_PER_SECOND', 5);
const READS_PER_SECOND = flag('reads', 'SOAK_READS_PER_SECOND', 20);
const REST_MINUTES = flag('rest', 'SOAK_REST_MINUTES', 2, 0);
const STACK = option('stack', 'SOAK_STACK') ?? 'npm-start';
const EXTRA_ENV = Object.fromEntries(
  argv
    .filter((a) => a.startsWith('--env='))
    .map((a) => {
      const [name, ...value] = a.slice('--env='.length).split('=');
      if (!/^[A-Z_][A-Z0-9_]*$/.test(name) || value.length === 0) throw new Error(`--env wants NAME=value: ${a}`);
      return [name, value.join('=')];
    }),
);
if (!['npm-start', 'split', 'start', 'cluster'].includes(STACK))
  throw new Error('--stack / SOAK_STACK must be npm-start, split, start or cluster');

// Memory growth: PSS sampled every 30 s from the load's start. The first minutes are warm-up (caches,
// pools, Postgres' shared buffers and the JIT filling); after them the verdict reads the least-squares
// slope of the memory a process holds (its PSS less its file pages, see MemoryLog.sample) over the
// load's last half with its standard error (se): "grows" when even slope - 2 se is above
// GROWTH_TOLERANCE, "no growth" when even slope + 2 se is at most it, and "unclear (noise)" between,
// where the samples cannot tell (0.43 ± 0.55 MiB/min is unclear, not growth; a longer --minutes
// narrows se). 0.25 MiB/min is about the slope the GC's sawtooth alone gives over 15 minutes of 30-s
// samples: a 30-minute soak cannot tell less from noise, and a leak below it adds at most 15 MiB an hour.
const SAMPLE_MS = 30_000;
const WARMUP_MINUTES = Math.min(5, MINUTES / 3);
const GROWTH_TOLERANCE = 0.25;

/** The verdict on a memory series from its slope over the load's last half (see GROWTH_TOLERANCE). */
function growthVerdict(fit: { slope: number; stderr: number }, backlog: boolean): string {
  if (Number.isNaN(fit.slope)) return 'too short';
  if (fit.slope + 2 * fit.stderr <= GROWTH_TOLERANCE) return 'no growth';
  if (fit.slope - 2 * fit.stderr > GROWTH_TOLERANCE) return backlog ? 'grows, with the open work' : 'grows';
  return 'unclear (noise)';
}

const delay = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

/** Latencies and failures of one kind of request, per minute and in all. */
class Tally {
  minute: number[] = [];
  all: number[] = [];
  count = 0;
  errors5xx = 0;
  other = 0;
  add(reply: Reply | undefined, expected: number) {
    if (!reply) return void this.other++;
    this.count++;
    this.minute.push(reply.ms);
    this.all.push(reply.ms);
    if (reply.status >= 500) this.errors5xx++;
    else if (reply.status !== expected) this.other++;
  }
  line(samples: number[]) {
    if (samples.length === 0) return '—';
    return `p50 ${ms(percentile(samples, 0.5))} p99 ${ms(percentile(samples, 0.99))}`;
  }
}

const MiB = 1024 * 1024;
const OPEN_WORK = 'open messages (count)';

/** Messages not final yet: the work the stack still holds. */
async function openMessages(db: Pool): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `select count(*) as n from messages where status in ('scheduled', 'queued', 'dispatched', 'sent')`,
  );
  return Number(rows[0].n);
}

/** What the processes of `npm start` say of their own memory: the V8 heap and the Go heap. */
class Inside {
  /** The dev server's live heap after its last GC, MiB. */
  goLive = NaN;
  /** `npm start`'s metrics port (its Node process metrics) and the Temporal SDK's (WORKER_METRICS_ADDRESS). */
  constructor(readonly ports?: { metrics: number; worker: number }) {}

  /** The dev server's Prometheus metrics, where the bench started it (the `npm start` one listens on a random port). */
  temporalMetricsUrl?: string;

  /** GODEBUG=gctrace=1 lines: "gc 12 @3.4s 1%: …, 9->10->5 MB, 11 MB goal, …" (heap at start, end, live). */
  goTrace(line: string) {
    for (const match of line.matchAll(/(\d+)->(\d+)->(\d+) MB, (\d+) MB goal/g)) this.goLive = Number(match[3]);
  }

  /**
   * The api+worker process's V8 heap and external memory (prom-client's default metrics), MiB, and
   * how many workflows its worker keeps cached (the SDK's sticky cache, TEMPORAL_MAX_CACHED_WORKFLOWS).
   */
  async node(): Promise<Record<string, number>> {
    if (!this.ports) return {};
    const scrape = (port: number) =>
      fetch(`http://127.0.0.1:${port}/metrics`)
        .then((res) => res.text())
        .catch(() => '');
    const [own, sdk] = await Promise.all([scrape(this.ports.metrics), scrape(this.ports.worker)]);
    const value = (text: string, name: string) =>
      Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
    return {
      'V8 heap used': value(own, 'nodejs_heap_size_used_bytes') / MiB,
      'V8 heap total': value(own, 'nodejs_heap_size_total_bytes') / MiB,
      external: value(own, 'nodejs_external_memory_bytes') / MiB,
      'workflows cached (count)': value(sdk, 'temporal_sticky_cache_size'),
    };
  }
}

/**
 * The dev server's own figures: entries in its history service's mutable-state cache (a count), its
 * goroutines, and Go's memory statistics (runtime.MemStats, MiB): the heap in use (live and not yet
 * collected), objects allocated, spans idle and not yet returned to the system, goroutine stacks.
 */
async function temporalFigures(url: string | undefined): Promise<Record<string, number>> {
  if (!url) return {};
  const text = await fetch(url)
    .then((res) => res.text())
    .catch(() => '');
  // Every service of the dev server reports the same process's figures: the history service's are read.
  const value = (name: string) =>
    Number(new RegExp(`^${name}\\{service_name="history"\\} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  return {
    'history cache entries (count)': Number(
      /^cache_usage\{cache_type="mutablestate"[^}]*\} (\S+)/m.exec(text)?.[1] ?? NaN,
    ),
    'goroutines (count)': value('num_goroutines'),
    'Go heap in use': value('memory_heapinuse') / MiB,
    'Go heap allocated': value('memory_heap') / MiB,
    'Go heap idle, kept': (value('memory_heapidle') - value('memory_heapreleased')) / MiB,
    'Go stacks': value('memory_stack') / MiB,
  };
}

/** The dev server's Prometheus endpoint under `npm start`, which gives it a random port: the one of its ports that answers /metrics. */
async function metricsUrlOf(pid: number | undefined): Promise<string | undefined> {
  for (const port of pid ? listeningPorts(pid) : []) {
    const url = `http://127.0.0.1:${port}/metrics`;
    const text = await fetch(url, { signal: AbortSignal.timeout(2_000) })
      .then((res) => (res.ok ? res.text() : ''))
      .catch(() => '');
    if (text.includes('memory_heapinuse')) return url;
  }
  return undefined;
}

/** Memory over time, MiB per named series: each component's PSS and its parts, the heaps inside. */
class MemoryLog {
  series = new Map<string, Array<[number, number]>>();
  /** The series the verdict is about: PSS of each component and of all. */
  pss = new Set<string>();
  constructor(
    private components: Component[],
    private inside: Inside,
    /** The open work: messages not final yet. */
    private openWork: () => Promise<number>,
  ) {}

  private add(name: string, minute: number, mib: number) {
    if (!Number.isFinite(mib)) return;
    const points = this.series.get(name) ?? [];
    points.push([minute, mib]);
    this.series.set(name, points);
  }

  async sample(minute: number) {
    const snap = snapshot(this.components, true);
    // The verdict is on the memory a process holds: its PSS without its file-backed pages. Those are
    // the clean pages of its executable and libraries, resident or not as the kernel decides: a
    // kernel that drops cold pages (this machine runs DAMON's pageout) moves them by tens of MiB
    // either way while the process holds the same memory.
    for (const name of [...this.components.map((c) => c.name), 'total']) {
      this.pss.add(`${name}: held`);
      this.add(`${name}: held`, minute, (snap[name].pssAnonBytes + snap[name].pssShmemBytes) / MiB);
    }
    for (const name of [...this.components.map((c) => c.name), 'total'])
      this.add(name, minute, snap[name].pssBytes / MiB);
    const temporal = this.components.find((c) => c.name === 'temporal')?.root();
    if (temporal) {
      for (const [kind, bytes] of Object.entries(pssByMapping(temporal)))
        this.add(`temporal: ${kind}`, minute, bytes / MiB);
      // Each OS thread has a stack of its own outside Go's heap: Go starts one when every thread it has
      // is blocked in a system call (SQLite's file I/O) and keeps it for later.
      this.add('temporal: threads (count)', minute, threadCount(temporal));
    }
    const postgres = this.components.find((c) => c.name === 'postgres')?.root();
    if (postgres) {
      const kinds = pssByProcess(postgres, postgresProcessKind);
      // Every sample has every kind: a kind with no process now is 0 MiB, not a gap in its series.
      for (const kind of ['server and background processes', 'connections', 'autovacuum workers'])
        this.add(`postgres: ${kind}`, minute, (kinds[kind] ?? 0) / MiB);
    }
    for (const c of this.components) {
      this.add(`${c.name}: anonymous`, minute, snap[c.name].pssAnonBytes / MiB);
      if (snap[c.name].pssShmemBytes > 0)
        this.add(`${c.name}: shared memory`, minute, snap[c.name].pssShmemBytes / MiB);
      this.add(`${c.name}: processes`, minute, snap[c.name].processes);
    }
    for (const [name, mib] of Object.entries(await this.inside.node())) this.add(`api+worker: ${name}`, minute, mib);
    this.add('temporal: Go live heap', minute, this.inside.goLive);
    this.add(OPEN_WORK, minute, await this.openWork().catch(() => NaN));
    for (const [name, value] of Object.entries(await temporalFigures(this.inside.temporalMetricsUrl)))
      this.add(`temporal: ${name}`, minute, value);
  }

  /** The last value of a series. */
  latest(name: string): number {
    return this.series.get(name)?.at(-1)?.[1] ?? NaN;
  }

  /** The growth table (markdown): levels at four moments, slopes after the warm-up, the verdict. */
  print(loadMinutes: number) {
    const near = (points: Array<[number, number]>, minute: number) =>
      points.reduce((best, p) => (Math.abs(p[0] - minute) < Math.abs(best[0] - minute) ? p : best))[1];
    const slope = (points: Array<[number, number]>) => {
      const fit = leastSquares(points);
      return Number.isNaN(fit.slope) ? '—' : `${fit.slope.toFixed(2)} ± ${fit.stderr.toFixed(2)}`;
    };
    const halfFrom = Math.max(WARMUP_MINUTES, loadMinutes / 2);
    // Memory that grows with a growing queue (the stack not keeping up) is backlog, not a leak: the
    // verdict says so when the open work grew over the same minutes.
    const open = (this.series.get(OPEN_WORK) ?? []).filter(([m]) => m >= halfFrom - 0.01 && m <= loadMinutes + 0.01);
    const openFit = leastSquares(open);
    const openMean = open.reduce((sum, [, n]) => sum + n, 0) / Math.max(1, open.length);
    const backlog =
      openFit.slope > 2 * openFit.stderr && openFit.slope * (loadMinutes - halfFrom) > Math.max(100, 0.05 * openMean);
    console.log(
      `\n=== memory growth: PSS in MiB, sampled every ${SAMPLE_MS / 1000} s from the load's start; warm-up ` +
        `${+WARMUP_MINUTES.toFixed(1)} min; "held": PSS less file-backed pages; slopes in MiB/min (least squares ± ` +
        `standard error se); verdict on the held memory's slope ` +
        `over the load's last half (from min ${halfFrom.toFixed(1)}): "grows" when slope - 2 se > ${GROWTH_TOLERANCE}, ` +
        `"no growth" when slope + 2 se ≤ ${GROWTH_TOLERANCE}, else "unclear (noise)"`,
    );
    console.log(
      '| series | start | after warm-up | end of load | after rest | slope after warm-up | slope, last half | verdict |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    const names = [...this.pss, ...[...this.series.keys()].filter((name) => !this.pss.has(name))];
    for (const name of names) {
      const points = this.series.get(name);
      if (!points?.length) continue;
      const load = points.filter(([m]) => m <= loadMinutes + 0.01);
      const afterWarmup = load.filter(([m]) => m >= WARMUP_MINUTES - 0.01);
      const lastHalf = load.filter(([m]) => m >= halfFrom - 0.01);
      const verdict = this.pss.has(name) ? growthVerdict(leastSquares(lastHalf), backlog) : '';
      const level = (minute: number) => near(points, minute).toFixed(0);
      console.log(
        `| ${name} | ${level(0)} | ${level(WARMUP_MINUTES)} | ${level(loadMinutes)} | ${points[points.length - 1][1].toFixed(0)} | ` +
          `${slope(afterWarmup)} | ${slope(lastHalf)} | ${verdict} |`,
      );
    }
  }
}

async function main() {
  console.log(
    `phone-gateway soak — ${new Date().toISOString()}: ${MINUTES} min, ${SENDS_PER_SECOND} sends/s, ${READS_PER_SECOND} reads/s`,
  );
  const tls = await createTestTls(mkdtempSync(path.join(tmpdir(), 'soak-tls-')));
  const env = {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '',
    ...EXTRA_ENV,
  };
  const inside = new Inside(
    STACK === 'npm-start' ? { metrics: await freePort(), worker: await freePort() } : undefined,
  );
  const { db, smtp, base, components } =
    STACK === 'npm-start'
      ? await startNpmStart({
          label: 'soak',
          // Inside the processes: the Node heap from its own metrics, the dev server's Go heap from
          // its GC trace (it writes to stderr, which npm start logs as a warning).
          env: {
            ...env,
            METRICS_PORT: String(inside.ports!.metrics),
            WORKER_METRICS_ADDRESS: `127.0.0.1:${inside.ports!.worker}`,
            GODEBUG: 'gctrace=1',
          },
          onLine: (line) => inside.goTrace(line),
        })
      : await startBenchStack({ layout: STACK as Layout, env }).then((stack) => {
          inside.temporalMetricsUrl = stack.temporal.metricsUrl;
          return { ...stack, base: stack.service.base };
        });
  console.log(`stack: ${STACK} (${components.map((c) => c.name).join(', ')})`);
  inside.temporalMetricsUrl ??= await metricsUrlOf(components.find((c) => c.name === 'temporal')?.root());
  const http = httpClient(base, 32);
  onCleanup('close the http agent', () => http.close());

  // The webhook endpoint: answers 200 to everything, counts deliveries by event.
  const received = new Map<string, number>();
  const receiver = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const event = (JSON.parse(Buffer.concat(chunks).toString()) as { event?: string }).event ?? 'unknown';
        received.set(event, (received.get(event) ?? 0) + 1);
      } catch {
        received.set('unparsable', (received.get('unparsable') ?? 0) + 1);
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  onCleanup('stop the webhook receiver', () => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const hookPort = (receiver.address() as { port: number }).port;

  const account = await createAccount(http, (email) => smtp.codeFor(email, 15_000), {
    label: 'soak',
    keys: 8,
    phones: [],
  });
  await http.expect(201, 'POST', '/v1/webhooks', {
    headers: keyAuth(account),
    body: {
      url: `https://127.0.0.1:${hookPort}/hook`,
      events: ['message.sent', 'message.delivered', 'message.failed', 'message.unknown'],
    },
  });
  const phones: SimulatedPhone[] = [];
  for (let i = 0; i < 3; i++) {
    const { code } = (await http.expect(201, 'POST', '/v1/devices/pairing-codes', { headers: keyAuth(account) })).json<{
      code: string;
    }>();
    const phone = new SimulatedPhone({
      server: base,
      code,
      label: `phone ${i + 1}`,
      sentAfterMs: 5,
      deliveredAfterMs: 500,
      failureRatio: 0.02,
      log: () => undefined,
    });
    await phone.start();
    phones.push(phone);
    onCleanup(`stop phone ${i + 1}`, () => phone.stop());
  }
  console.log(`stack up at ${base}; 3 phones paired; webhook at https://127.0.0.1:${hookPort}/hook`);

  const sends = new Tally();
  const reads = new Tally();
  const batchIds: string[] = [];
  let recipientsAccepted = 0;
  let sendSeq = 0;
  const endAt = Date.now() + MINUTES * 60_000;
  const inFlight = new Set<Promise<unknown>>();
  const track = (promise: Promise<unknown>) => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise));
  };

  const sendOne = async () => {
    const n = 1 + Math.floor(Math.random() * 50);
    const from = (sendSeq++ * 50) % 7_000_000;
    const to = Array.from({ length: n }, (_, i) => `+1415${2000000 + from + i}`);
    const phone = phones[sendSeq % phones.length];
    const reply = await http
      .request('POST', '/v1/messages', {
        headers: keyAuth(account),
        body: { body: 'Soak text', to, device_id: phone.deviceId },
      })
      .catch(() => undefined);
    sends.add(reply, 202);
    if (reply?.status === 202) {
      recipientsAccepted += n;
      batchIds.push(reply.json<{ batch: { id: string } }>().batch.id);
    }
  };
  const readOne = async () => {
    const pick = Math.random();
    const batch = batchIds[Math.floor(Math.random() * batchIds.length)];
    const pathOf =
      pick < 0.4 || !batch
        ? '/v1/messages?limit=50'
        : pick < 0.7
          ? `/v1/batches/${batch}`
          : pick < 0.85
            ? '/v1/devices'
            : '/v1/batches?limit=20';
    reads.add(await http.request('GET', pathOf, { headers: keyAuth(account) }).catch(() => undefined), 200);
  };

  /** Fires `once` at `perSecond`, open loop (a slow answer does not slow the arrivals). */
  const paced = async (perSecond: number, once: () => Promise<void>) => {
    const gap = 1000 / perSecond;
    let next = performance.now();
    while (Date.now() < endAt && !stopping()) {
      track(once());
      next += gap;
      await delay(Math.max(0, next - performance.now()));
    }
  };

  let minute = 0;
  let lastTexts = 0;
  const texts = () => phones.reduce((sum, phone) => sum + phone.sendCounts.size, 0);
  const reporter = setInterval(() => {
    minute++;
    const snap = snapshot(components, true);
    const sent = texts();
    console.log(
      `min ${String(minute).padStart(2)}: sends ${int(sends.minute.length / 60)}/s ${sends.line(sends.minute)}, ` +
        `reads ${int(reads.minute.length / 60)}/s ${reads.line(reads.minute)}, texts ${int((sent - lastTexts) / 60)}/s, ` +
        `webhooks ${int([...received.values()].reduce((a, b) => a + b, 0))}, 5xx ${sends.errors5xx + reads.errors5xx}, ` +
        `open ${int(memory.latest(OPEN_WORK))}, ` +
        `RSS ${mib(snap.total.rssBytes)} PSS ${mib(snap.total.pssBytes)} (${components.map((c) => `${c.name} ${mib(snap[c.name].pssBytes)}`).join(', ')})` +
        (Number.isNaN(inside.goLive) ? '' : `, Go live heap ${inside.goLive} MiB`),
    );
    sends.minute = [];
    reads.minute = [];
    lastTexts = sent;
  }, 60_000);
  onCleanup('stop the reporter', () => clearInterval(reporter));

  const memory = new MemoryLog(components, inside, () => openMessages(db));
  const startedAt = Date.now();
  const sampleNow = () => memory.sample((Date.now() - startedAt) / 60_000);
  await sampleNow();
  const sampler = setInterval(() => void sampleNow(), SAMPLE_MS);
  onCleanup('stop the memory sampler', () => clearInterval(sampler));
  await Promise.all([paced(SENDS_PER_SECOND, sendOne), paced(READS_PER_SECOND, readOne)]);
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  const seconds = (Date.now() - startedAt) / 1000;
  clearInterval(reporter);

  // Drain: every message reaches a final state (the phones keep running), bounded to two minutes.
  const drainFrom = Date.now();
  let open = -1;
  while (Date.now() - drainFrom < 120_000) {
    open = await openMessages(db);
    if (open === 0) break;
    await delay(1000);
  }
  const final = await db.query<{ status: string; n: string }>(
    'select status, count(*) as n from messages group by status order by status',
  );
  const duplicateTexts = phones.reduce(
    (sum, phone) => sum + [...phone.sendCounts.values()].filter((count) => count > 1).length,
    0,
  );

  console.log(`\n=== summary over ${int(seconds)} s`);
  console.log(`sends      ${int(sends.count)} (${int(sends.count / seconds)}/s), ${sends.line(sends.all)}`);
  console.log(`recipients ${int(recipientsAccepted)} accepted (${int(recipientsAccepted / seconds)}/s)`);
  console.log(`reads      ${int(reads.count)} (${int(reads.count / seconds)}/s), ${reads.line(reads.all)}`);
  console.log(`texts      ${int(texts())} sent by the phones, ${duplicateTexts} sent twice`);
  console.log(
    `messages   ${final.rows.map((row) => `${row.status} ${int(Number(row.n))}`).join(', ')}; not final after drain: ${int(open)} (drain ${int((Date.now() - drainFrom) / 1000)} s)`,
  );
  console.log(`webhooks   ${[...received.entries()].map(([event, n]) => `${event} ${int(n)}`).join(', ') || 'none'}`);
  console.log(
    `errors     5xx ${sends.errors5xx + reads.errors5xx}, other unexpected statuses ${sends.other + reads.other}`,
  );
  // PSS counts Postgres' shared buffers once, not once per backend as the sum of RSS does.
  const snap = snapshot(components, true);
  console.log(
    `memory     RSS ${mib(snap.total.rssBytes)} (PSS ${mib(snap.total.pssBytes)}): ${components.map((c) => `${c.name} ${mib(snap[c.name].rssBytes)}`).join(', ')}`,
  );

  // At rest after the load: does anything keep growing?
  const restUntil = Date.now() + REST_MINUTES * 60_000;
  if (REST_MINUTES > 0) console.log(`\nresting ${REST_MINUTES} min, sampling memory…`);
  while (Date.now() < restUntil && !stopping()) await delay(1000);
  clearInterval(sampler);
  await sampleNow();
  memory.print(seconds / 60);
}

runMain(main, 'soak');
