import { capturePlans, printPlans } from '../explain';
import { section, type Run } from './common';
import type { Filled } from './filling';
import { fetchOutbox } from './phone';

/** Query plans of the requests above. */
export async function queryPlans(run: Run, fill: Filled): Promise<void> {
  const { pgLog, db, bench, history, send, get } = run;
  section('query plans of the requests above (auto_explain: EXPLAIN ANALYZE, BUFFERS)');
  const someBatch = fill.queueBatches[fill.queueBatches.length - 1];
  const planned: Array<[string, () => Promise<unknown>]> = [
    ['GET /v1/messages?limit=50 (history account)', () => get(history, '/v1/messages?limit=50')],
    [
      'GET /v1/messages?q=order 4242 (history account)',
      () => get(history, `/v1/messages?limit=50&q=${encodeURIComponent('order 4242')}`),
    ],
    ['GET /v1/messages?status=failed (history account)', () => get(history, '/v1/messages?limit=50&status=failed')],
    ['GET /v1/device/outbox?limit=100 (queue phone)', () => fetchOutbox(run)],
    [`GET /v1/batches/{id} (a 1,000-recipient batch)`, () => get(bench, `/v1/batches/${someBatch}`)],
    ['GET /v1/messages?batch_id= (same batch)', () => get(bench, `/v1/messages?limit=50&batch_id=${someBatch}`)],
    ['POST /v1/messages, 1 recipient (queue phone)', () => send(bench, bench.phones.queue, 1)],
  ];
  for (const [label, action] of planned) printPlans(label, await capturePlans(db, pgLog, action), /^api/);
}
