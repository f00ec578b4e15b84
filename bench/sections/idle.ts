import { openEvents } from '../../tools/phone/events';
import { ms, ratio } from '../stats';
import { untilQuiet } from '../temporal-metrics';
import { delay, section, record, state, vsInsert, series, type Run } from './common';

/** The idle stack on small tables. */
export async function idleStack(run: Run): Promise<void> {
  const { service, temporal, http, bench, send, get } = run;
  section('idle stack, small tables');
  // The floor of every request: HTTP, Koa and the middleware, with no credential and no query.
  const livez = await series(
    'GET /livez (the HTTP floor: no credential, no query)',
    { warmup: 20, samples: 100 },
    async () => {
      const from = performance.now();
      await http.expect(200, 'GET', '/livez');
      return performance.now() - from;
    },
  );
  record('livez', { label: 'GET /livez p50 (the HTTP floor)', value: livez.p50, unit: 'ms' });
  const devicesIdle = await series(
    'GET /v1/devices',
    { warmup: 20, samples: 100 },
    async () => (await get(bench, '/v1/devices')).ms,
  );
  console.log(`  ${vsInsert(devicesIdle.p50)}; /livez ${ms(livez.p50)} of it is the HTTP floor`);
  record('devices', {
    label: 'GET /v1/devices p50 (idle)',
    value: devicesIdle.p50,
    unit: 'ms',
    target: { op: '<=', value: 2 },
    vs: `${ratio(devicesIdle.p50, state.baselines.insertRoundTrip.p50)} bare insert; /livez ${ms(livez.p50)}`,
  });
  const listIdle = await series(
    'GET /v1/messages?limit=50',
    { warmup: 20, samples: 100 },
    async () => (await get(bench, '/v1/messages?limit=50')).ms,
  );
  console.log(`  ${vsInsert(listIdle.p50)}`);
  record('list-idle', { label: 'GET /v1/messages?limit=50 p50 (idle, small table)', value: listIdle.p50, unit: 'ms' });

  const accept1 = await series(
    'POST /v1/messages, 1 recipient, sequential',
    { warmup: 10, samples: 30 },
    async () => (await send(bench, bench.phones.idle, 1)).ms,
  );
  console.log(`  ${vsInsert(accept1.p50)}`);
  record('accept-1', {
    label: 'accept 1 recipient p50',
    value: accept1.p50,
    unit: 'ms',
    target: { op: '<=', value: 6 },
  });
  // Back to back, each send also leaves its workflow's work (the Temporal server's and the worker's)
  // on the same two cores as the next send. Here each send waits until the server is quiet again:
  // what an accept costs when the stack is not still busy with the sends before it.
  const accept1Quiet = await series(
    'POST /v1/messages, 1 recipient, each after the stack is quiet',
    { warmup: 1, samples: 6 },
    async () => {
      await untilQuiet(temporal.metricsUrl);
      return (await send(bench, bench.phones.idle, 1)).ms;
    },
  );
  console.log(`  ${vsInsert(accept1Quiet.p50)}; back to back ${ms(accept1.p50)}`);
  record('accept-1-quiet', {
    label: 'accept 1 recipient p50, stack quiet before each',
    value: accept1Quiet.p50,
    unit: 'ms',
    target: { op: '<=', value: 6 },
    vs: `${ratio(accept1Quiet.p50, state.baselines.insertRoundTrip.p50)} bare insert; back to back ${ms(accept1.p50)}`,
  });
  const accept100 = await series(
    'POST /v1/messages, 100 recipients, sequential',
    { warmup: 5, samples: 15 },
    async () => (await send(bench, bench.phones.idle, 100)).ms,
  );
  console.log(
    `  = ${ratio(accept100.p50, state.baselines.insertRows[100].p50)} plain insert of 100 rows, ${vsInsert(accept100.p50)}`,
  );
  record('accept-100', {
    label: 'accept 100 recipients p50',
    value: accept100.p50,
    unit: 'ms',
    target: { op: '<=', value: 12 },
    vs: `${ratio(accept100.p50, state.baselines.insertRows[100].p50)} 100-row insert`,
  });
  const accept1000 = await series(
    'POST /v1/messages, 1,000 recipients, sequential',
    { warmup: 2, samples: 4 },
    async () => (await send(bench, bench.phones.bulk, 1000)).ms,
  );
  console.log(`  = ${ratio(accept1000.p50, state.baselines.insertRows[1000].p50)} plain insert of 1,000 rows`);
  record('accept-1000', {
    label: 'accept 1,000 recipients p50',
    value: accept1000.p50,
    unit: 'ms',
    target: { op: '<=', value: 60 },
    vs: `${ratio(accept1000.p50, state.baselines.insertRows[1000].p50)} 1,000-row insert`,
  });

  // Accept → workflow running: from the 202 until the workflow's describe shows it running (or done).
  const workflowLatency = await series(
    'accept → batch workflow running (describe)',
    { warmup: 2, samples: 10 },
    async () => {
      const reply = await send(bench, bench.phones.idle, 1);
      const from = performance.now();
      const handle = temporal.client.workflow.getHandle(`batch-${reply.batchId}`);
      for (;;) {
        try {
          const { status } = await handle.describe();
          if (status.name === 'RUNNING' || status.name === 'COMPLETED') return performance.now() - from;
          throw new Error(`batch workflow ${status.name}`);
        } catch (error) {
          if ((error as Error).name !== 'WorkflowNotFoundError') throw error;
          if (performance.now() - from > 60_000) throw new Error('no batch workflow within 60 s of the 202');
          await delay(5);
        }
      }
    },
  );
  // The floor of that figure: one describe of a workflow that already runs.
  const anyBatch = (await send(bench, bench.phones.idle, 1)).batchId;
  await delay(1000);
  const describe = await series(
    '  describe round trip (floor of the figure above)',
    { warmup: 3, samples: 10 },
    async () => {
      const from = performance.now();
      await temporal.client.workflow.getHandle(`batch-${anyBatch}`).describe();
      return performance.now() - from;
    },
  );
  record('workflow', {
    label: 'accept → workflow running p50',
    value: workflowLatency.p50,
    unit: 'ms',
    target: { op: '<=', value: 1000 },
    vs: `describe ${ms(describe.p50)}`,
  });

  // The live channel: from the send until the phone is told (SSE `outbox`), and until its outbox fetch
  // returns the message, as a phone without push credentials would do it.
  {
    const live = new AbortController();
    const stream = await openEvents(service.base, bench.phones.live.token, live.signal);
    const next = async (name: string) => {
      for (;;) {
        const { value, done } = await stream.next();
        if (done) throw new Error('the phone event stream ended');
        if (value.event === name) return;
      }
    };
    await next('ready');
    await http.expect(200, 'GET', '/v1/device/outbox?limit=100', { headers: bench.phones.live.auth });
    const told = await series(
      'send → phone told (SSE outbox event); its fetch then checked',
      { warmup: 3, samples: 20 },
      async () => {
        const from = performance.now();
        const reply = await send(bench, bench.phones.live, 1);
        await next('outbox');
        const elapsedMs = performance.now() - from;
        const rows = await http.expect(200, 'GET', '/v1/device/outbox?limit=100', { headers: bench.phones.live.auth });
        const messageId = reply.json<{ message_ids: string[] }>().message_ids[0];
        const fetched = rows.json<{ data: { id: string }[] }>().data;
        if (!fetched.some((row) => row.id === messageId)) {
          throw new Error('the message the phone was told of is not in its outbox');
        }
        // As a phone does: reported messages leave the outbox. Unreported ones would come again and,
        // past 100, push the next send's message out of this fetch.
        await http.expect(200, 'POST', '/v1/device/messages/status', {
          headers: bench.phones.live.auth,
          body: { reports: fetched.map((row) => ({ id: row.id, status: 'delivered' })) },
        });
        return elapsedMs;
      },
    );
    console.log(
      `  minus the send itself (${ms(accept1.p50)}): told ${ms(Math.max(0, told.p50 - accept1.p50))} after the 202`,
    );
    record('live-channel', {
      label: 'send → phone told p50 (SSE, incl. the send)',
      value: told.p50,
      unit: 'ms',
      target: { op: '<=', value: 100 },
      vs: `send alone ${ms(accept1.p50)}`,
    });
    live.abort();
  }
}
