import { measureBaselines } from '../baseline';
import type { Reply } from '../http';
import { int } from '../stats';
import { ROWS, QUEUE, ROUNDS, section, record, state, vsInsert, series, printBaselines, type Run } from './common';
import type { Filled } from './filling';

/** The same requests at scale. */
export async function atScale(run: Run, fill: Filled): Promise<void> {
  const { db, bench, history, send, get } = run;
  section(`at scale: ${int(fill.tableRows)} rows in messages, ${int(QUEUE)} queued on one phone`);
  state.baselines = await measureBaselines(db, { userId: bench.userId, deviceId: bench.phones.idle.id }, ROUNDS, 50);
  printBaselines(state.baselines);
  const devicesScale = await series(
    'GET /v1/devices',
    { warmup: 20, samples: 100 },
    async () => (await get(bench, '/v1/devices')).ms,
  );
  console.log(`  ${vsInsert(devicesScale.p50)}`);
  const listBench = await series(
    `GET /v1/messages?limit=50 (bench account, ${int(QUEUE)}+ rows)`,
    { warmup: 20, samples: 100 },
    async () => (await get(bench, '/v1/messages?limit=50')).ms,
  );
  console.log(`  ${vsInsert(listBench.p50)}`);
  record('list', {
    label: `GET /v1/messages?limit=50 p50 (${int(fill.tableRows)} rows in table)`,
    value: listBench.p50,
    unit: 'ms',
    target: { op: '<=', value: 3 },
  });
  const listHistory = await series(
    `GET /v1/messages?limit=50 (history account, ${int(ROWS)} rows)`,
    { warmup: 20, samples: 100 },
    async () => (await get(history, '/v1/messages?limit=50')).ms,
  );
  console.log(`  ${vsInsert(listHistory.p50)}`);
  // Walking pages with next_cursor, 20 pages deep from the newest.
  const pages = await series(
    'GET /v1/messages pages 1-20 (history, next_cursor)',
    { warmup: 1, samples: 1 },
    async () => {
      let cursor: string | null = null;
      let total = 0;
      for (let page = 0; page < 20; page++) {
        const reply: Reply = await get(
          history,
          `/v1/messages?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        total += reply.ms;
        cursor = reply.json<{ next_cursor: string | null }>().next_cursor;
        if (!cursor) break;
      }
      return total / 20;
    },
  );
  console.log(`  (mean per page of a 20-page walk) ${vsInsert(pages.p50)}`);
  record('pages', { label: 'GET /v1/messages page of a 20-page walk p50', value: pages.p50, unit: 'ms' });
  const searches: Array<[string, string]> = [
    ['rare (one recipient)', '+14152000042'],
    ['medium (order 4242, ~0.01%)', 'order 4242'],
    ['common (every row)', 'about order'],
  ];
  for (const [what, q] of searches) {
    const s = await series(
      `GET /v1/messages?q= ${what}`,
      { warmup: 3, samples: 10 },
      async () => (await get(history, `/v1/messages?limit=50&q=${encodeURIComponent(q)}`)).ms,
    );
    console.log(`  ${vsInsert(s.p50)}`);
    record(`q-${what}`, { label: `q search ${what} p50`, value: s.p50, unit: 'ms' });
  }
  const acceptQueued = await series(
    `POST /v1/messages, 1 recipient, ${int(QUEUE)} queued on the phone`,
    { warmup: 5, samples: 30 },
    async () => (await send(bench, bench.phones.queue, 1)).ms,
  );
  console.log(`  ${vsInsert(acceptQueued.p50)}`);
  record('accept-queued', {
    label: `accept 1 recipient p50, ${int(QUEUE)} queued`,
    value: acceptQueued.p50,
    unit: 'ms',
    target: { op: '<=', value: 6 },
  });
}
