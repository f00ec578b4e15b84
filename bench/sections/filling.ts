import { fillHistory } from '../setup';
import { int } from '../stats';
import { ROWS, QUEUE, section, type Run } from './common';

/** What the fill leaves for the sections after it. */
export interface Filled {
  queueBatches: string[];
  tableRows: number;
}

/** History rows and the queue. */
export async function fillTables(run: Run): Promise<Filled> {
  const { db, bench, history, send } = run;
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
  return { queueBatches, tableRows };
}
