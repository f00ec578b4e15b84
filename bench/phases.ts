// `npm run bench:phases`: where bench:peer's "send → the next fetch sees it → reported" goes, phase by
// phase, on our side alone. One phone gets the history bench:peer's phone 2 has by then (200 sends
// of 1 and 200 of 100, all fetched and reported), then rounds of a send of 1, the fetch that sees it
// and its report, timed apart: with the Temporal server stopped (SIGSTOP), running, and stopped
// again. Run it at two commits, one after the other, to tell the code's change from the machine's.
import { httpClient } from './http';
import { createAccount, keyAuth } from './setup';
import { cleanup, onCleanup, runMain, startBenchStack } from './stack';
import { latencyLine, summarize } from './stats';

const argv = process.argv.slice(2);
const ROUNDS = Number(argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 20);
const delay = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));

async function main() {
  const { smtp, service, components } = await startBenchStack({
    pgLog: { errors: [] },
    layout: 'start',
    env: { DEVICE_RATE_PER_SECOND: '100000', DEVICE_RATE_BURST: '100000' },
  });
  const http = httpClient(service.base, 4);
  onCleanup('close the http agent', () => http.close());
  const account = await createAccount(http, (email) => smtp.codeFor(email, 15_000), {
    label: 'phases',
    keys: 20,
    phones: ['phone'],
  });
  const phone = account.phones.phone;
  let n = 0;
  const send = (count: number) =>
    http.expect(202, 'POST', '/v1/messages', {
      headers: keyAuth(account),
      body: {
        body: 'Benchmark text',
        to: Array.from({ length: count }, () => `+1415${2000000 + n++}`),
        device_id: phone.id,
      },
    });
  const fetch = () => http.expect(200, 'GET', '/v1/device/outbox?limit=100', { headers: phone.auth });
  const idsOf = (reply: Awaited<ReturnType<typeof fetch>>) =>
    reply.json<{ data: Array<{ id: string }> }>().data.map((m) => m.id);
  const report = (ids: string[]) =>
    http.expect(200, 'POST', '/v1/device/messages/status', {
      headers: phone.auth,
      body: { reports: ids.map((id) => ({ id, status: 'sent' })) },
    });

  for (let i = 0; i < 200; i++) await send(1);
  for (let i = 0; i < 200; i++) await send(100);
  for (let ids = idsOf(await fetch()); ids.length > 0; ids = idsOf(await fetch())) await report(ids);
  // The settling those reports started, before the first round.
  await delay(15_000);

  const temporal = components
    .filter((c) => c.name.startsWith('temporal') && c.name !== 'temporal-postgres')
    .map((c) => c.root())
    .filter((pid): pid is number => pid !== undefined);
  const signal = (name: NodeJS.Signals) => temporal.forEach((pid) => process.kill(pid, name));
  onCleanup('let the Temporal server continue', () => signal('SIGCONT'));
  for (const stopped of [true, false, true]) {
    if (stopped) signal('SIGSTOP');
    const ms = { send: [] as number[], fetch: [] as number[], report: [] as number[], all: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      ms.send.push((await send(1)).ms);
      const fetched = await fetch();
      ms.fetch.push(fetched.ms);
      ms.report.push((await report(idsOf(fetched))).ms);
      ms.all.push(performance.now() - started);
    }
    if (stopped) signal('SIGCONT');
    console.log(`the Temporal server ${stopped ? 'stopped' : 'running'}:`);
    for (const [phase, samples] of Object.entries(ms))
      console.log(`  ${phase.padEnd(6)} ${latencyLine(summarize([samples]))}`);
    // What the stop held back reaches the server before the next rounds.
    await delay(6_000);
  }
  await cleanup();
}

runMain(main);
