import { int, latencyLine, ratio, summarize } from '../stats';
import { ROUNDS, DRAIN_SECONDS, section, record, state, vsInsert, median, type Run } from './common';
import type { Filled } from './filling';

/** One outbox fetch of 100 by the queue phone: its time and the ids handed out. */
export async function fetchOutbox({ http, bench }: Run) {
  const reply = await http.expect(200, 'GET', '/v1/device/outbox?limit=100', { headers: bench.phones.queue.auth });
  return { ms: reply.ms, ids: reply.json<{ data: Array<{ id: string }> }>().data.map((row) => row.id) };
}

/** The phone side: outbox fetches and reports. */
export async function phoneSide(run: Run, fill: Filled): Promise<void> {
  const { http, bench } = run;
  section('phone side: outbox fetch of 100, a status report each (queue phone)');
  const queuePhone = bench.phones.queue;
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
      const { ms: fetchTook, ids } = await fetchOutbox(run);
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
    label: `outbox fetch of 100 p50 (${int(fill.tableRows)} rows)`,
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
        const { ids } = await fetchOutbox(run);
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
    console.log(`  = ${ratio(s.p50, state.baselines.insertRows[100].p50)} plain insert of 100 rows`);
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
}
