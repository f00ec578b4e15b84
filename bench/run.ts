// `npm run bench`: every figure of issue 10 in one run, through the public HTTP API only, each beside
// a physical baseline measured on the same database in the same run. Starts and stops its own stack.
// `npm run bench -- --help` lists the flags. The sections are in bench/sections/, in the order below.
import { cpus, loadavg } from 'node:os';
import { createScratchTables } from './baseline';
import { preloadAutoExplain } from './explain';
import { httpClient, type Reply } from './http';
import { createAccount, keyAuth, type Account, type Phone } from './setup';
import { onCleanup, runMain, startBenchStack, type PostgresLog } from './stack';
import { int } from './stats';
import {
  DRAIN_SECONDS,
  KEYS,
  LAYOUT,
  QUEUE,
  quick,
  recipients,
  ROUNDS,
  ROWS,
  section,
  THROUGHPUT_SENDS,
  printTable,
  type Run,
} from './sections/common';
import { memoryAtRest } from './sections/memory';
import { physicalBaselines } from './sections/baselines';
import { idleStack } from './sections/idle';
import { fillTables } from './sections/filling';
import { atScale } from './sections/at-scale';
import { phoneSide } from './sections/phone';
import { queryPlans } from './sections/plans';
import { throughput } from './sections/throughput';
import { health } from './sections/health';

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

  const run: Run = { pgLog, db, smtp, service, components, temporal, apiComponent, http, bench, history, send, get };
  await memoryAtRest(run, 'start');
  await physicalBaselines(run);
  await idleStack(run);
  const fill = await fillTables(run);
  await atScale(run, fill);
  await phoneSide(run, fill);
  await queryPlans(run, fill);
  await throughput(run);
  await memoryAtRest(run, 'load');
  await health(run);
  printTable();
}

runMain(main, 'bench');
