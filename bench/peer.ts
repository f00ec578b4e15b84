// `npm run bench:peer`: the service side by side with SMSGate's server (the peer, bench/peer/smsgate.ts)
// on the same machine, in the same run, rounds interleaved (ours first in even rounds, the peer first
// in odd ones). Absolute figures swing with the machine's load; the ratio of one run is what holds.
//
// Ours is what `npm start` runs (its prestart, then its start script without npm's own launcher
// process: dist/src/dev/start.js, api and worker in one Node process, embedded Postgres, the dev server)
// on a fresh DATA_DIR (bench/stack.ts startNpmStart), the bench plan (the Business plan with raised
// limits) and the per-key and per-phone request limits raised (the peer has none). The peer: private mode, its
// own MariaDB, a fresh database. Each system gets one account, two phones and the same requests
// through the same keep-alive client (bench/http.ts).
//
// Phases, then one table of the targets (ours, the peer, ours / peer, the goal, met or not):
//   memory at rest      PSS of every process after both settled
//   accept              200 sequential sends of 1 recipient, then of 100, in 4 rounds of 50
//   send → fetch        a send to the idle phone 2, then its fetches until one sees it (4 × 10)
//   without the server  ours only: the accept and send → fetch rounds again (2 each) with the
//                       Temporal server stopped, against the peer's figures: our part of those gaps
//   throughput          4 senders of 100 recipients for 10 s, 3 rounds; CPU until the stack is quiet
//   sends of 1          8 senders of 1 recipient to phone 2 for 10 s, then phone 2 drains them (fetch +
//                       batched report) so each batch settles and its workflow ends; 3 rounds
//   drain               phone 1 fetches 100 and reports them in one batched report, 15 s, 3 rounds
//   memory after load   PSS once the load is over
// CPU is user + system time of every process of each side (/proc), its idle rate subtracted.
//
//   PEER_DIR=~/.cache/phone-gateway/smsgate-server-v1.44.7 npm run bench:peer [-- --stack=cluster]
// --stack=cluster: ours is the production shape of `npm run cluster` instead (two Temporal servers on
// the bench's Postgres, two api and two worker processes of the compiled build: `npm run build` first).
// PEER_DIR: the folder holding the built `sms-gateway` (bench/peer/build.sh); PEER_PORT and
// PEER_DB_PORT: its ports (3300 and 3307). About 13 minutes.
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { httpClient, type HttpClient } from './http';
import { START_DEADLINE_MS } from '../temporal/starter';
import { startPeer } from './peer/smsgate';
import { cpuBetween, memorySampler, snapshot, type Component, type Snapshot } from './proc';
import { createAccount, keyAuth } from './setup';
import { onCleanup, runMain, startBenchStack, startNpmStart } from './stack';
import { mib, percentile } from './stats';

type Side = 'ours' | 'peer';
const SIDES: Side[] = ['ours', 'peer'];
const order = (round: number): Side[] => (round % 2 ? ['peer', 'ours'] : ['ours', 'peer']);
const delay = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));
const median = (values: number[]) => percentile(values, 0.5);

let nextNumber = Math.floor(Math.random() * 5_000_000);
/** Distinct valid US numbers, never repeated within a run. */
const recipients = (n: number) => Array.from({ length: n }, () => `+1415${2000000 + (nextNumber++ % 7_999_999)}`);

/** What the bench asks of either system. */
interface System {
  components: Component[];
  /** Accepts a send of `n` recipients to phone 1 or 2; its ids. */
  send(n: number, phone?: 1 | 2): Promise<{ ms: number; ids: string[] }>;
  /** One outbox fetch of the phone: the messages (ids) and how many texts they hold. */
  fetch(phone?: 1 | 2): Promise<{ ms: number; ids: string[]; texts: number; raw: unknown[] }>;
  /** Reports what a fetch returned as sent, in the batched form each system has. */
  report(raw: unknown[], phone?: 1 | 2): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Ours: `npm start` on a fresh data folder.

async function startOurs(stack: 'start' | 'cluster'): Promise<{ system: System; db: Pool }> {
  // The per-key and per-phone request limits raised: the peer has none.
  const env = {
    API_KEY_RATE_PER_SECOND: '100000',
    API_KEY_RATE_BURST: '100000',
    DEVICE_RATE_PER_SECOND: '100000',
    DEVICE_RATE_BURST: '100000',
  };
  const { base, db, smtp, components } =
    stack === 'cluster'
      ? await startBenchStack({ layout: 'cluster', env }).then((s) => ({ ...s, base: s.service.base }))
      : await startNpmStart({ label: 'peer-ours', env });

  const http = httpClient(base, 16);
  onCleanup('close the http agent (ours)', () => http.close());
  const account = await createAccount(http, (email) => smtp.codeFor(email, 15_000), {
    label: 'peer-bench',
    keys: 8,
    phones: ['one', 'two'],
  });
  const phone = (n: 1 | 2) => account.phones[n === 1 ? 'one' : 'two'];
  return {
    db,
    system: {
      components,
      async send(n, which = 1) {
        const reply = await http.expect(202, 'POST', '/v1/messages', {
          headers: keyAuth(account),
          body: { body: 'Benchmark text', to: recipients(n), device_id: phone(which).id },
        });
        return { ms: reply.ms, ids: reply.json<{ message_ids: string[] }>().message_ids };
      },
      async fetch(which = 1) {
        const reply = await http.expect(200, 'GET', '/v1/device/outbox?limit=100', { headers: phone(which).auth });
        const data = reply.json<{ data: Array<{ id: string }> }>().data;
        return { ms: reply.ms, ids: data.map((m) => m.id), texts: data.length, raw: data };
      },
      async report(raw, which = 1) {
        const items = raw as Array<{ id: string }>;
        if (items.length === 0) return;
        await http.expect(200, 'POST', '/v1/device/messages/status', {
          headers: phone(which).auth,
          body: { reports: items.map((m) => ({ id: m.id, status: 'sent' })) },
        });
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The peer: its 3rd-party API (Basic auth of the phone's login) and mobile API (the phone's token).

async function startPeerSystem(peerDir: string): Promise<System> {
  const peer = await startPeer({
    peerDir,
    port: Number(process.env.PEER_PORT ?? 3300),
    dbPort: Number(process.env.PEER_DB_PORT ?? 3307),
  });
  const http: HttpClient = httpClient(peer.base, 16);
  onCleanup('close the http agent (peer)', () => http.close());
  const registered = (
    await http.expect(201, 'POST', '/api/mobile/v1/device', {
      headers: { authorization: `Bearer ${peer.privateToken}` },
      body: { name: 'bench phone 1' },
    })
  ).json<{ id: string; token: string; login: string; password: string }>();
  const user = {
    authorization: `Basic ${Buffer.from(`${registered.login}:${registered.password}`).toString('base64')}`,
  };
  const second = (
    await http.expect(201, 'POST', '/api/mobile/v1/device', { headers: user, body: { name: 'bench phone 2' } })
  ).json<{ id: string; token: string }>();
  const phones = { 1: registered, 2: second };
  type PeerMessage = { id: string; phoneNumbers: string[] };
  return {
    components: peer.components,
    async send(n, which = 1) {
      const reply = await http.expect(202, 'POST', '/api/3rdparty/v1/messages', {
        headers: user,
        body: { textMessage: { text: 'Benchmark text' }, phoneNumbers: recipients(n), deviceId: phones[which].id },
      });
      return { ms: reply.ms, ids: [reply.json<{ id: string }>().id] };
    },
    async fetch(which = 1) {
      const reply = await http.expect(200, 'GET', '/api/mobile/v1/message', {
        headers: { authorization: `Bearer ${phones[which].token}` },
      });
      const data = reply.json<PeerMessage[]>();
      return {
        ms: reply.ms,
        ids: data.map((m) => m.id),
        texts: data.reduce((sum, m) => sum + m.phoneNumbers.length, 0),
        raw: data,
      };
    },
    async report(raw, which = 1) {
      const items = raw as PeerMessage[];
      if (items.length === 0) return;
      const at = new Date().toISOString();
      await http.expect(204, 'PATCH', '/api/mobile/v1/message', {
        headers: { authorization: `Bearer ${phones[which].token}` },
        body: items.map((m) => ({
          id: m.id,
          state: 'Sent',
          recipients: m.phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: 'Sent' })),
          states: { Processed: at, Sent: at },
        })),
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CPU: per process of each side, its idle rate subtracted.

type Cpu = Record<string, number>;

function cpuSince(components: Component[], before: Snapshot, idle: Cpu, seconds: number): Cpu {
  const spent = cpuBetween(before, snapshot(components));
  return Object.fromEntries(
    Object.entries(spent).map(([name, ms]) => [name, Math.max(0, ms - (idle[name] ?? 0) * seconds)]),
  );
}

async function idleRate(components: Component[], ms = 5000): Promise<Cpu> {
  const before = snapshot(components);
  await delay(ms);
  const spent = cpuBetween(before, snapshot(components));
  return Object.fromEntries(Object.entries(spent).map(([name, cpu]) => [name, cpu / (ms / 1000)]));
}

/** Until a second passes in which the side spends at most its idle CPU and 30 ms (60 s at most). */
async function quiet(components: Component[], idle: Cpu): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const before = snapshot(components);
    await delay(1000);
    if (cpuBetween(before, snapshot(components)).total <= idle.total + 30) return;
  }
}

/**
 * PSS per component, and a line saying what each is made of: anonymous memory (heaps, stacks),
 * file-backed pages (the code and read-only data of its binaries: clean, the kernel can drop them and
 * read them back) and shared memory (the databases' buffers).
 */
const pssParts = (components: Component[]) => {
  const snap = snapshot(components, true);
  const bytes = Object.fromEntries(Object.entries(snap).map(([name, usage]) => [name, usage.pssBytes]));
  const line = Object.entries(snap)
    .map(
      ([name, u]) =>
        `${name} ${mib(u.pssBytes)} (anonymous ${mib(u.pssAnonBytes)}, ` +
        `files ${mib(u.pssBytes - u.pssAnonBytes - u.pssShmemBytes)}, shared ${mib(u.pssShmemBytes)})`,
    )
    .join(', ');
  return { bytes, line };
};

const perUnit = (cpu: Cpu, units: number) =>
  Object.entries(cpu)
    .map(([name, ms]) => `${name} ${((ms / units) * 1000).toFixed(0)} µs`)
    .join(', ');

// ---------------------------------------------------------------------------------------------

interface Row {
  target: string;
  ours: number;
  /** NaN where the peer has nothing to compare (the goal is then on ours alone). */
  peer: number;
  unit: 'ms' | '/s' | 'MiB' | 'µs';
  /** ours / peer (or, with `absolute`, ours itself in `unit`) must be at least (≥) or at most (≤) this. */
  goal: ['≥' | '≤', number] | null;
  absolute?: boolean;
  detail?: string;
}

const show = (value: number, unit: Row['unit']) =>
  unit === 'ms'
    ? `${value.toFixed(value < 10 ? 2 : 1)} ms`
    : unit === '/s'
      ? `${Math.round(value).toLocaleString('en-US')}/s`
      : unit === 'MiB'
        ? `${Math.round(value)} MiB`
        : `${Math.round(value)} µs`;

runMain(async () => {
  const peerDir = process.env.PEER_DIR ?? path.join(os.homedir(), '.cache/phone-gateway/smsgate-server-v1.44.7');
  if (!existsSync(path.join(peerDir, 'sms-gateway')))
    throw new Error(`no built peer in ${peerDir}: build it with bench/peer/build.sh (docs/performance.md)`);
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  console.log(`bench:peer at ${commit}, ${os.cpus().length} cores, load ${load()}`);

  const stack = process.argv.includes('--stack=cluster') ? 'cluster' : 'start';
  if (stack === 'cluster') console.log('ours: the cluster of `npm run cluster` (two Temporal servers on Postgres)');
  const { system: ours } = await startOurs(stack);
  const peer = await startPeerSystem(peerDir);
  const sys: Record<Side, System> = { ours, peer };
  console.log('both up; settling 20 s');
  await delay(20_000);
  const rows: Row[] = [];

  // Memory at rest.
  const restPss = { ours: pssParts(ours.components), peer: pssParts(peer.components) };
  for (const side of SIDES) console.log(`PSS at rest, ${side}: ${restPss[side].line}`);
  const idle = { ours: await idleRate(ours.components), peer: await idleRate(peer.components) };
  const quietBoth = () => Promise.all(SIDES.map((side) => quiet(sys[side].components, idle[side])));
  const idleParts = (cpu: Cpu) =>
    Object.entries(cpu)
      .filter(([name]) => name !== 'total')
      .map(([name, ms]) => `${name} ${ms.toFixed(0)}`)
      .join(', ');
  // Each part's idle rate is what its CPU in a round is less: a part busy while this was measured
  // (still starting) would read 0 in every round, so the rates are shown.
  console.log(
    `idle CPU: ours ${idle.ours.total.toFixed(0)} ms/s (${idleParts(idle.ours)}), peer ${idle.peer.total.toFixed(0)} ms/s (${idleParts(idle.peer)})`,
  );

  // Accept latency: sends of 1, then of 100, to phone 2 in rounds of 50.
  const acceptLatency = async (sides: Side[], roundCount: number) => {
    const accept: Record<number, Record<Side, number[]>> = {};
    for (const n of [1, 100]) {
      accept[n] = { ours: [], peer: [] };
      for (let round = 0; round < roundCount; round++)
        for (const side of order(round).filter((one) => sides.includes(one)))
          for (let i = 0; i < 50; i++) accept[n][side].push((await sys[side].send(n, 2)).ms);
    }
    return accept;
  };
  // Phone 2's queue emptied again, so the next phase finds each new message at once.
  const emptyPhone2 = async (sides: Side[]) => {
    for (const side of sides)
      for (;;) {
        const f = await sys[side].fetch(2);
        if (f.ids.length === 0) break;
        await sys[side].report(f.raw, 2);
      }
    await quietBoth();
  };
  // Send → the phone's next fetch sees it → reported, in rounds of 10.
  const seenLatency = async (sides: Side[], roundCount: number) => {
    const seen: Record<Side, number[]> = { ours: [], peer: [] };
    for (let round = 0; round < roundCount; round++)
      for (const side of order(round).filter((one) => sides.includes(one)))
        for (let i = 0; i < 10; i++) {
          const started = performance.now();
          const { ids } = await sys[side].send(1, 2);
          for (;;) {
            const f = await sys[side].fetch(2);
            if (f.raw.length) await sys[side].report(f.raw, 2);
            if (f.ids.some((id) => ids.includes(id))) break;
            if (performance.now() - started > 30_000)
              throw new Error(`${side}: a send never reached the phone's fetch`);
          }
          seen[side].push(performance.now() - started);
        }
    return seen;
  };
  const accept = await acceptLatency(SIDES, 4);
  await emptyPhone2(SIDES);
  const seen = await seenLatency(SIDES, 4);

  // Our latencies again with the Temporal server stopped (SIGSTOP; every process of ours named
  // temporal but its Postgres backends), right after the rounds above so that phone 2 is as they
  // left it, and once both sides are quiet (the peer's database writing out its rounds would share
  // the cores too). The starts and settling signals of the stopped rounds wait in our process; each
  // stop ends within their deadline, so they reach the server when it continues rather than the
  // reconciler later. What is left of each latency gap without the server's work for the previous
  // sends beside the next request, against the peer's figures above.
  const temporalPids = ours.components
    .filter((c) => c.name.startsWith('temporal') && c.name !== 'temporal-postgres')
    .map((c) => c.root())
    .filter((pid): pid is number => pid !== undefined);
  if (temporalPids.length === 0) throw new Error('no Temporal server process of ours to stop');
  const signal = (name: NodeJS.Signals) => {
    for (const pid of temporalPids)
      try {
        process.kill(pid, name);
      } catch {
        // exited meanwhile: nothing to stop or continue
      }
  };
  onCleanup('let the Temporal server continue', () => signal('SIGCONT'));
  const whileStopped = async <T>(work: () => Promise<T>): Promise<T> => {
    await quietBoth();
    const started = performance.now();
    signal('SIGSTOP');
    let result: T;
    try {
      result = await work();
    } finally {
      signal('SIGCONT');
    }
    // A margin under the starts' deadline: a start queued late in the stop must still reach the server.
    const ms = performance.now() - started;
    if (ms > START_DEADLINE_MS - 1000)
      throw new Error(`the Temporal server was stopped ${Math.round(ms)} ms, past the starts' deadline`);
    return result;
  };
  const stopped = {
    accept: await whileStopped(() => acceptLatency(['ours'], 2)),
    seen: await emptyPhone2(['ours']).then(() => whileStopped(() => seenLatency(['ours'], 2))),
  };
  await quietBoth();
  console.log(
    `with the Temporal server stopped (${temporalPids.length} process(es)): accept 1 p50 ${median(stopped.accept[1].ours).toFixed(2)} ms, ` +
      `accept 100 ${median(stopped.accept[100].ours).toFixed(2)} ms, send → fetch → reported ${stopped.seen.ours.map((ms) => ms.toFixed(0)).join(' ')} ms`,
  );

  // Loads of 3 interleaved rounds: units done per second and CPU per unit, by process, counted from
  // the round's start until the side is quiet again (the work a request leaves behind counts).
  const peaks: Record<Side, number> = { ours: 0, peer: 0 };
  const rounds = async (label: string, unit: string, work: (s: System) => Promise<number>) => {
    const rate: Record<Side, number[]> = { ours: [], peer: [] };
    const cpuPer: Record<Side, Cpu[]> = { ours: [], peer: [] };
    for (let round = 0; round < 3; round++)
      for (const side of order(round)) {
        const s = sys[side];
        const before = snapshot(s.components);
        const memory = memorySampler(s.components, 500);
        const started = performance.now();
        const units = await work(s);
        const seconds = (performance.now() - started) / 1000;
        await quiet(s.components, idle[side]);
        peaks[side] = Math.max(peaks[side], memory.stop().pss);
        const cpu = cpuSince(s.components, before, idle[side], (performance.now() - started) / 1000);
        rate[side].push(units / seconds);
        cpuPer[side].push(Object.fromEntries(Object.entries(cpu).map(([n, ms]) => [n, ms / units])));
        console.log(`${label} ${side}: ${Math.round(units / seconds)} ${unit}/s; CPU per one ${perUnit(cpu, units)}`);
      }
    return { rate, cpuPer };
  };

  // Throughput: 4 senders of 100 for 10 s.
  const throughput = await rounds('throughput', 'recipients', async (s) => {
    const started = performance.now();
    let accepted = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (performance.now() - started < 10_000) {
          await s.send(100);
          accepted += 100;
        }
      }),
    );
    return accepted;
  });

  // Sends of 1 recipient, 8 senders for 10 s, to phone 2: the commonest send (a code, a notice). Then
  // their lives to the end: phone 2 drains them (fetches, batched reports), each batch settles and, on
  // our side, its workflow ends. CPU of each part per send, counted until the side is quiet.
  const single = { rate: { ours: [], peer: [] }, send: { ours: [], peer: [] }, settle: { ours: [], peer: [] } } as {
    rate: Record<Side, number[]>;
    send: Record<Side, Cpu[]>;
    settle: Record<Side, Cpu[]>;
  };
  for (let round = 0; round < 3; round++)
    for (const side of order(round)) {
      const s = sys[side];
      const before = snapshot(s.components);
      const started = performance.now();
      let sent = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (performance.now() - started < 10_000) {
            await s.send(1, 2);
            sent += 1;
          }
        }),
      );
      single.rate[side].push(sent / ((performance.now() - started) / 1000));
      await quiet(s.components, idle[side]);
      const perSend = (cpu: Cpu) => Object.fromEntries(Object.entries(cpu).map(([n, ms]) => [n, ms / sent]));
      single.send[side].push(perSend(cpuSince(s.components, before, idle[side], (performance.now() - started) / 1000)));
      const drained = snapshot(s.components);
      const drainStarted = performance.now();
      for (;;) {
        const f = await s.fetch(2);
        if (f.raw.length === 0) break;
        await s.report(f.raw, 2);
      }
      await quiet(s.components, idle[side]);
      single.settle[side].push(
        perSend(cpuSince(s.components, drained, idle[side], (performance.now() - drainStarted) / 1000)),
      );
      console.log(
        `sends of 1 ${side}: ${Math.round(single.rate[side].at(-1)!)} sends/s; CPU per send ${perUnit(single.send[side].at(-1)!, 1)}; ` +
          `settling it ${perUnit(single.settle[side].at(-1)!, 1)}`,
      );
    }

  // Drain: phone 1 fetches and reports what the throughput phase queued, for 15 s.
  const drain = await rounds('drain', 'texts', async (s) => {
    const started = performance.now();
    let texts = 0;
    while (performance.now() - started < 15_000) {
      const f = await s.fetch(1);
      if (f.raw.length === 0) break;
      await s.report(f.raw, 1);
      texts += f.texts;
    }
    return texts;
  });

  const afterPss = { ours: pssParts(ours.components), peer: pssParts(peer.components) };
  for (const side of SIDES)
    console.log(`PSS after the load, ${side}: ${afterPss[side].line}; peak during it ${mib(peaks[side])}`);

  // The targets.
  const p = (values: number[], q = 0.5) => percentile(values, q);
  const medianCpu = (list: Cpu[]) => median(list.map((c) => c.total)) * 1000;
  const split = (list: Cpu[]) =>
    Object.keys(list[0] ?? {})
      .filter((n) => n !== 'total')
      .map((n) => `${n} ${Math.round(median(list.map((c) => c[n])) * 1000)}`)
      .join(', ');
  const latency = (label: string, samples: Record<Side, number[]>, p50: number, p95: number) => {
    rows.push({ target: `${label}, p50`, ours: p(samples.ours), peer: p(samples.peer), unit: 'ms', goal: ['≤', p50] });
    rows.push({
      target: `${label}, p95`,
      ours: p(samples.ours, 0.95),
      peer: p(samples.peer, 0.95),
      unit: 'ms',
      goal: ['≤', p95],
    });
  };
  latency('accept 1 recipient', accept[1], 1.5, 3);
  latency('accept 100 recipients', accept[100], 1.5, 3);
  latency('send → the next fetch sees it → reported', seen, 2, 2);
  // Ours with the Temporal server stopped, against the peer's rounds above (its p50s only).
  const withoutServer = (label: string, stoppedOurs: number[], peer: number[], goal: number) =>
    rows.push({
      target: `${label}, p50, the Temporal server stopped`,
      ours: p(stoppedOurs),
      peer: p(peer),
      unit: 'ms',
      goal: ['≤', goal],
    });
  withoutServer('accept 1 recipient', stopped.accept[1].ours, accept[1].peer, 1.5);
  withoutServer('accept 100 recipients', stopped.accept[100].ours, accept[100].peer, 1.5);
  withoutServer('send → the next fetch sees it → reported', stopped.seen.ours, seen.peer, 2);
  // The CPU of the named parts of a side (the sum of the components whose names start so).
  const part = (cpu: Cpu, ...prefixes: string[]) =>
    Object.entries(cpu)
      .filter(([n]) => n !== 'total' && prefixes.some((prefix) => n.startsWith(prefix)))
      .reduce((sum, [, ms]) => sum + ms, 0);
  const medianOf = (list: Cpu[], ...prefixes: string[]) =>
    median(list.map((c) => (prefixes.length ? part(c, ...prefixes) : c.total))) * 1000;
  const loadRows = (
    rateTarget: string,
    cpuTarget: string,
    result: Awaited<ReturnType<typeof rounds>>,
    goals: { rate: number; cpu: number },
  ) => {
    rows.push({
      target: rateTarget,
      ours: median(result.rate.ours),
      peer: median(result.rate.peer),
      unit: '/s',
      goal: ['≥', goals.rate],
    });
    rows.push({
      target: cpuTarget,
      ours: medianCpu(result.cpuPer.ours),
      peer: medianCpu(result.cpuPer.peer),
      unit: 'µs',
      goal: ['≤', goals.cpu],
      detail: `ours: ${split(result.cpuPer.ours)}; peer: ${split(result.cpuPer.peer)}`,
    });
  };
  loadRows('recipients/s, 4 senders of 100 (median of 3)', 'CPU per accepted recipient', throughput, {
    rate: 1,
    cpu: 3,
  });
  // What the targets would read without the Temporal server's processes (its own cost per workflow:
  // docs/performance.md, "What a workflow costs the Temporal server"); ours only, the peer has none.
  const lessTemporal = (list: Cpu[]) => median(list.map((c) => c.total - part(c, 'temporal'))) * 1000;
  rows.push({
    target: "CPU per accepted recipient, less the Temporal server's",
    ours: lessTemporal(throughput.cpuPer.ours),
    peer: medianCpu(throughput.cpuPer.peer),
    unit: 'µs',
    goal: ['≤', 3],
  });
  rows.push({
    target: 'CPU per accepted recipient: the request (api / smsgate)',
    ours: medianOf(throughput.cpuPer.ours, 'api'),
    peer: medianOf(throughput.cpuPer.peer, 'smsgate'),
    unit: 'µs',
    goal: ['≤', 1.5],
  });
  rows.push({
    target: 'CPU per accepted recipient: the database (Postgres / MariaDB)',
    ours: medianOf(throughput.cpuPer.ours, 'postgres'),
    peer: medianOf(throughput.cpuPer.peer, 'mariadb'),
    unit: 'µs',
    goal: ['≤', 2],
  });
  rows.push({
    target: 'sends of 1 recipient/s, 8 senders (median of 3)',
    ours: median(single.rate.ours),
    peer: median(single.rate.peer),
    unit: '/s',
    goal: ['≥', 0.5],
  });
  const life = (side: Side, ...prefixes: string[]) =>
    median(
      single.send[side].map((c, i) =>
        prefixes.length
          ? part(c, ...prefixes) + part(single.settle[side][i], ...prefixes)
          : c.total + single.settle[side][i].total,
      ),
    ) * 1000;
  rows.push({
    target: 'CPU per send of 1, accepted, sent and settled (its whole life)',
    ours: life('ours'),
    peer: life('peer'),
    unit: 'µs',
    goal: null,
    detail: `ours: the send ${split(single.send.ours)}, its settling ${split(single.settle.ours)}; peer: the send ${split(single.send.peer)}, its settling ${split(single.settle.peer)}`,
  });
  rows.push({
    target: "a batch workflow's whole life: Temporal server CPU per send of 1",
    ours: life('ours', 'temporal') / 1000,
    peer: NaN,
    unit: 'ms',
    goal: ['≤', 5],
    absolute: true,
  });
  loadRows('drain, fetch + batched report, texts/s (median of 3)', 'CPU per drained text', drain, {
    rate: 1,
    cpu: 1.5,
  });
  rows.push({
    target: "CPU per drained text, less the Temporal server's",
    ours: lessTemporal(drain.cpuPer.ours),
    peer: medianCpu(drain.cpuPer.peer),
    unit: 'µs',
    goal: ['≤', 1.5],
  });
  const total = (m: Record<string, number>) => m.total / 1024 / 1024;
  const totalLessTemporal = (m: Record<string, number>) =>
    (m.total - Object.entries(m).reduce((sum, [n, b]) => (n.startsWith('temporal') ? sum + b : sum), 0)) / 1024 / 1024;
  rows.push({
    target: 'memory at rest (PSS, every process)',
    ours: total(restPss.ours.bytes),
    peer: total(restPss.peer.bytes),
    unit: 'MiB',
    goal: ['≤', 1.5],
  });
  rows.push({
    target: "memory at rest, less the Temporal server's",
    ours: totalLessTemporal(restPss.ours.bytes),
    peer: total(restPss.peer.bytes),
    unit: 'MiB',
    goal: ['≤', 1.5],
  });
  rows.push({
    target: 'memory after the load (PSS)',
    ours: total(afterPss.ours.bytes),
    peer: total(afterPss.peer.bytes),
    unit: 'MiB',
    goal: ['≤', 1],
  });

  console.log(`\nload after the run: ${load()}\n`);
  console.log('| target | ours | peer | ours / peer | goal | met |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    const r = row.ours / row.peer;
    const measured = row.absolute ? row.ours : r;
    const met = !row.goal
      ? ''
      : (row.goal[0] === '≥' ? measured >= row.goal[1] : measured <= row.goal[1])
        ? 'yes'
        : 'no';
    const goal = !row.goal ? '' : `${row.goal[0]} ${row.goal[1]}${row.absolute ? ` ${row.unit}` : ''}`;
    const peer = Number.isNaN(row.peer) ? 'none' : show(row.peer, row.unit);
    console.log(
      `| ${row.target} | ${show(row.ours, row.unit)} | ${peer} | ${Number.isNaN(r) ? '' : r.toFixed(2)} | ${goal} | ${met} |`,
    );
  }
  for (const row of rows) if (row.detail) console.log(`${row.target}, µs by process: ${row.detail}`);
});
