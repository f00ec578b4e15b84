// `npm run bench:webhooks`: webhook delivery throughput alone. Starts the stack as the soak does
// (embedded Postgres, the Temporal dev server, the api and the worker as their own processes),
// points one webhook at a local HTTPS receiver, then emits events for its account at a given rate,
// in this process, through the events service (the same transaction, fan-out and starter as the
// api's). Prints every few seconds the events emitted and the deliveries received (distinct delivery
// ids), and at the end the rates, the CPU each process spent, latencies, and the history the
// webhook's queue workflow cost. A bench, not a test.
// `npm run bench:webhooks -- --help` lists the flags.
import { createServer } from 'node:https';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { createContainer } from '../src/container';
import { transaction } from '../src/db/transaction';
import { webhookQueueWorkflowId } from '../workflows/definitions';
import { createLogger } from '../src/lib/logger';
import { createTestTls } from '../test/support/tls';
import { httpClient } from './http';
import { cpuBetween, snapshot } from './proc';
import { createAccount, keyAuth } from './setup';
import { onCleanup, runMain, startBenchStack, stopping } from './stack';
import { int } from './stats';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(`npm run bench:webhooks [-- flags]

  --events=N      events emitted in all (one delivery each)        (3000)
  --rate=N        events per second, 0 for all at once             (300)
  --per-tx=N      events per transaction (a batch of reports)      (10)
  --wait=N        seconds to wait for the deliveries after the last emit (120)`);
  process.exit(0);
}
const flag = (name: string, fallback: number) => {
  const value = Number(argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a number`);
  return value;
};
const EVENTS = flag('events', 3000);
const RATE = flag('rate', 300);
const PER_TX = Math.max(1, flag('per-tx', 10));
const WAIT_SECONDS = flag('wait', 120);

const delay = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

async function main() {
  console.log(`webhook bench — ${new Date().toISOString()}: ${EVENTS} events at ${RATE || 'max'}/s, ${PER_TX} per tx`);
  const tls = await createTestTls(mkdtempSync(path.join(tmpdir(), 'bench-tls-')));
  const { postgres, db, temporal, smtp, service, components } = await startBenchStack({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '' },
  });
  const http = httpClient(service.base, 8);
  onCleanup('close the http agent', () => http.close());

  // The endpoint: 200 to everything; the first arrival of each delivery id counts.
  const firstSeen = new Map<string, number>();
  let requests = 0;
  let connections = 0;
  const receiver = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      const id = String(req.headers['x-service-delivery'] ?? '');
      if (!firstSeen.has(id)) firstSeen.set(id, performance.now());
      res.writeHead(200).end('ok');
    });
  });
  receiver.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  onCleanup('stop the webhook receiver', () => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const hookPort = (receiver.address() as { port: number }).port;

  const account = await createAccount(http, (email) => smtp.codeFor(email, 15_000), {
    label: 'hooks',
    keys: 1,
    phones: [],
  });
  const webhookId = (
    await http.expect(201, 'POST', '/v1/webhooks', {
      headers: keyAuth(account),
      body: { url: `https://127.0.0.1:${hookPort}/hook`, events: ['message.received'] },
    })
  ).json<{ webhook: { id: string } }>().webhook.id;

  // The emitting side: this process's own services, as an api process has them.
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: postgres.url,
    TEMPORAL_ADDRESS: temporal.address,
    METRICS_PORT: 'off',
    SMTP_URL: smtp.url,
  });
  const container = await createContainer(config, createLogger('warn'));
  onCleanup('close the emitting container', () => container.close());
  const { events, background } = container.services;

  const before = snapshot(components);
  // This process's own CPU (the snapshot of its pid would count its children, the whole stack).
  const ownBefore = process.cpuUsage();
  const startedAt = performance.now();
  let emitted = 0;
  let startsDoneAt: number | undefined;
  const progress = setInterval(() => {
    console.log(
      `${((performance.now() - startedAt) / 1000).toFixed(0).padStart(4)} s: emitted ${int(emitted)}, ` +
        `delivered ${int(firstSeen.size)} (${int(requests)} requests, ${connections} TLS connections)`,
    );
  }, 5000);
  onCleanup('stop the progress line', () => clearInterval(progress));

  const emitOne = () =>
    transaction(container.orm.em.fork(), (tx) =>
      events.emitMany(
        tx,
        Array.from({ length: PER_TX }, () => {
          const id = randomUUID();
          return {
            userId: account.userId,
            name: 'message.received' as const,
            data: { id, direction: 'inbound', status: 'received', sender: '+14155550100', body: 'bench' },
            messageId: null,
          };
        }),
      ),
    );
  const inFlight = new Set<Promise<unknown>>();
  const transactions = Math.ceil(EVENTS / PER_TX);
  const gap = RATE > 0 ? (1000 * PER_TX) / RATE : 0;
  let next = performance.now();
  for (let i = 0; i < transactions && !stopping(); i++) {
    const p = emitOne().then(() => (emitted += PER_TX));
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    // Open loop at the rate; with no rate, 16 transactions at a time.
    if (gap > 0) {
      next += gap;
      await delay(Math.max(0, next - performance.now()));
    } else if (inFlight.size >= 16) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const emitDoneAt = performance.now();
  void background.idle().then(() => (startsDoneAt = performance.now()));
  const total = transactions * PER_TX;
  const waitUntil = Date.now() + WAIT_SECONDS * 1000;
  while (firstSeen.size < total && Date.now() < waitUntil && !stopping()) await delay(200);
  await background.idle();
  startsDoneAt ??= performance.now();
  clearInterval(progress);
  const after = snapshot(components);
  const own = process.cpuUsage(ownBefore);

  const queue = temporal.client.workflow.getHandle(webhookQueueWorkflowId(webhookId));
  const arrivals = [...firstSeen.values()].sort((a, b) => a - b);
  const last = arrivals[arrivals.length - 1] ?? startedAt;
  const secs = (t: number) => ((t - startedAt) / 1000).toFixed(1);
  const elapsed = (last - startedAt) / 1000;
  console.log(
    `\n=== ${int(total)} events emitted in ${secs(emitDoneAt)} s (${int(total / ((emitDoneAt - startedAt) / 1000))}/s)`,
  );
  console.log(`starter    done (every workflow start or signal made) by ${secs(startsDoneAt)} s`);
  console.log(
    `delivered  ${int(firstSeen.size)} of ${int(total)} by ${elapsed.toFixed(1)} s: ${int(firstSeen.size / elapsed)}/s ` +
      `(${int(requests)} requests over ${connections} TLS connections)`,
  );
  // Steady state: the middle 80% of arrivals, free of the ramp-up and the tail.
  if (arrivals.length >= 10) {
    const a = arrivals[Math.floor(arrivals.length * 0.1)];
    const b = arrivals[Math.floor(arrivals.length * 0.9)];
    console.log(
      `steady     ${int((arrivals.length * 0.8) / ((b - a) / 1000))}/s between the 10th and 90th percentile arrivals`,
    );
  }
  const spent = cpuBetween(before, after);
  console.log(
    `CPU (s)    ${components.map((c) => `${c.name} ${(spent[c.name] / 1000).toFixed(1)}`).join(', ')}, ` +
      `bench (emit + starter) ${((own.user + own.system) / 1e6).toFixed(1)}`,
  );
  const statuses = await db.query<{ status: string; n: string }>(
    'select status, count(*) as n from webhook_deliveries group by status order by status',
  );
  // How long a delivery waited: committed → its first attempt began; and the attempt itself.
  const stages = await db.query<{ n: string; attempt_p50: number; attempt_p99: number; post_ms: number }>(
    `select count(*) as n,
            percentile_cont(0.5) within group (order by extract(epoch from a.started_at - d.created_at) * 1000) as attempt_p50,
            percentile_cont(0.99) within group (order by extract(epoch from a.started_at - d.created_at) * 1000) as attempt_p99,
            percentile_cont(0.5) within group (order by a.duration_ms) as post_ms
       from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.id and a.attempt_number = 1`,
  );
  const s = stages.rows[0];
  console.log(
    `latency    committed → first attempt p50 ${int(s.attempt_p50)} ms, ` +
      `p99 ${int(s.attempt_p99)} ms; POST p50 ${int(s.post_ms)} ms (${s.n} attempts)`,
  );
  // What the deliveries cost Temporal: the runs of the webhook's queue workflow (it continues as new)
  // and their history events.
  const described = await queue.describe().catch(() => undefined);
  let runs = 0;
  let historyEvents = 0;
  for (let runId = described?.runId; runId; runs++) {
    const history = await temporal.client.workflow.getHandle(queue.workflowId, runId).fetchHistory();
    historyEvents += history.events?.length ?? 0;
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  console.log(
    described
      ? `temporal   ${runs} run(s) of ${queue.workflowId}, ${int(historyEvents)} history events in all`
      : `temporal   ${queue.workflowId} not found: the webhook's queue never started`,
  );
  console.log(`rows       ${statuses.rows.map((r) => `${r.status} ${int(Number(r.n))}`).join(', ')}`);
}

runMain(main, 'bench:webhooks');
