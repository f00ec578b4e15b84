import { cpuBetween, idleCpuPerSecond, memorySampler, snapshot } from '../proc';
import { int, mib, ms, ratio, summarize } from '../stats';
import { untilQuiet } from '../temporal-metrics';
import { quick, ROUNDS, THROUGHPUT_SENDS, delay, section, record, state, memoryLine, median, type Run } from './common';

/** Concurrent senders. */
export async function throughput(run: Run): Promise<void> {
  const { components, temporal, apiComponent, bench, send } = run;
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
    `recipients accepted per second (median of rounds): ${int(rate)} = ${ratio(rate, state.baselines.rowsPerSecond4x100)} of the plain 4 × 100-row insert (${int(state.baselines.rowsPerSecond4x100)} rows/s)`,
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
    vs: `${ratio(rate, state.baselines.rowsPerSecond4x100)} 4×100-row inserts`,
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
}
