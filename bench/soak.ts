// `npm run soak`: mixed traffic for a while (10 minutes by default) against a stack it starts itself,
// as the bench does: sends of 1–50 recipients, integrator reads, three simulated phones fetching
// (live channel) and reporting in batches, and a webhook endpoint receiving every event. Prints a
// line per minute (throughput, p50/p99 per kind, 5xx, memory) and a summary. A bench, not a test.
// `npm run soak -- --help` lists the flags.
import { createServer } from 'node:https';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SimulatedPhone } from '../tools/phone/phone';
import { createTestTls } from '../test/support/tls';
import { httpClient, type Reply } from './http';
import { snapshot } from './proc';
import { createAccount, keyAuth } from './setup';
import { onCleanup, runMain, startBenchStack, stopping } from './stack';
import { int, mib, ms, percentile } from './stats';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(`npm run soak [-- flags]

  --minutes=N        how long the mixed traffic runs          SOAK_MINUTES (10)
  --sends=N          sends per second (1–50 recipients each)  SOAK_SENDS_PER_SECOND (5)
  --reads=N          integrator reads per second              SOAK_READS_PER_SECOND (20)`);
  process.exit(0);
}
const flag = (name: string, env: string, fallback: number) => {
  const value = Number(
    argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? process.env[env] ?? fallback,
  );
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} / ${env} must be a positive number`);
  return value;
};
const MINUTES = flag('minutes', 'SOAK_MINUTES', 10);
const SENDS_PER_SECOND = flag('sends', 'SOAK_SENDS_PER_SECOND', 5);
const READS_PER_SECOND = flag('reads', 'SOAK_READS_PER_SECOND', 20);

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

async function main() {
  console.log(
    `phone-gateway soak — ${new Date().toISOString()}: ${MINUTES} min, ${SENDS_PER_SECOND} sends/s, ${READS_PER_SECOND} reads/s`,
  );
  const tls = await createTestTls(mkdtempSync(path.join(tmpdir(), 'soak-tls-')));
  const { db, smtp, service, components } = await startBenchStack({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '' },
  });
  const http = httpClient(service.base, 32);
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
      server: service.base,
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
  console.log(`stack up at ${service.base}; 3 phones paired; webhook at https://127.0.0.1:${hookPort}/hook`);

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
        `RSS ${mib(snap.total.rssBytes)} PSS ${mib(snap.total.pssBytes)} (${components.map((c) => `${c.name} ${mib(snap[c.name].rssBytes)}`).join(', ')})`,
    );
    sends.minute = [];
    reads.minute = [];
    lastTexts = sent;
  }, 60_000);
  onCleanup('stop the reporter', () => clearInterval(reporter));

  const startedAt = Date.now();
  await Promise.all([paced(SENDS_PER_SECOND, sendOne), paced(READS_PER_SECOND, readOne)]);
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  const seconds = (Date.now() - startedAt) / 1000;
  clearInterval(reporter);

  // Drain: every message reaches a final state (the phones keep running), bounded to two minutes.
  const drainFrom = Date.now();
  let open = -1;
  while (Date.now() - drainFrom < 120_000) {
    const { rows } = await db.query<{ n: string }>(
      `select count(*) as n from messages where status in ('scheduled', 'queued', 'dispatched', 'sent')`,
    );
    open = Number(rows[0].n);
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
}

runMain(main, 'soak');
