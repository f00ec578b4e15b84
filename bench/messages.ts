// Messaging benchmark: accept latency (1 and 1,000 recipients), accepted messages per second, outbox
// fetch latency with a million messages in the table, and the query plans of every message query.
// Run: npm run bench:messages   (embedded Postgres and the Temporal dev server, nothing else)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { migrate, openOrm } from '../src/db/orm';
import { createLogger } from '../src/lib/logger';
import { systemClock } from '../src/lib/clock';
import { buildServices } from '../src/services';
import { bundleWorkflows } from '../temporal/bundle';
import { temporalCliPath } from '../temporal/paths';
import { serve } from '../test/support/http';
import { freePort } from '../test/support/net';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5).toFixed(1), p95: at(0.95).toFixed(1), max: sorted[sorted.length - 1].toFixed(1) };
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-bench-'));
  const pg = await startEmbeddedPostgres({ dir, port: await freePort(), database: 'bench', persistent: false });
  const cli = temporalCliPath();
  if (!cli) throw new Error('run `bash temporal/install.sh cli` first');
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, ip: '127.0.0.1' },
  });
  const config = loadConfig({}, { DATABASE_URL: pg.url, LOG_LEVEL: 'silent', TEMPORAL_TASK_QUEUE: 'bench' });
  const orm = await openOrm(pg.url);
  await migrate(orm);
  const logger = createLogger('silent');
  const services = buildServices({ config, logger, orm, temporal: env.client, clock: systemClock });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'bench',
    workflowBundle: await bundleWorkflows(),
    activities: createActivities(services, orm),
  });
  const running = worker.run();
  const api = await serve(createApp({ config, logger, orm, temporal: env.client, services }));
  const em = orm.em.fork();
  try {
    // An account on a plan with room, its key and one phone.
    await em.execute(
      `insert into plans values ('bench', 'Bench', false, 99, 10000, 100000000, 100000000, 10, 10, 0, 0)`,
    );
    const reg = await api.fetch('/v1/auth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.test', password: 'benchmark password' }),
    });
    const cookie = reg.headers.getSetCookie()[0].split(';')[0];
    const { user } = (await reg.json()) as { user: { id: string } };
    await em.execute(`update users set plan_id = 'bench', email_verified_at = now() where id = ?`, [user.id]);
    const { key } = (await (
      await api.fetch('/v1/api-keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: '{"name":"bench"}',
      })
    ).json()) as { key: string };
    const auth = { 'content-type': 'application/json', 'x-api-key': key };
    const { code } = (await (
      await api.fetch('/v1/devices/pairing-codes', { method: 'POST', headers: auth })
    ).json()) as { code: string };
    const pair = (await (
      await api.fetch('/v1/device/pair', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, hardware_key: 'bench-phone' }),
      })
    ).json()) as { device: { id: string }; device_token: string };

    // A million messages of history on this phone (final states: they never enter the outbox).
    const started = performance.now();
    await em.execute(
      `insert into batches (id, user_id, device_id, body, status, recipient_count, recipient_preview, segments, encoding, created_at, updated_at, workflow_started_at)
       values ('00000000-0000-4000-8000-000000000001', ?, ?, 'history', 'completed', ?, '', 1, 'gsm7', now(), now(), now())`,
      [user.id, pair.device.id, ROWS],
    );
    await em.execute(
      `insert into messages (id, user_id, batch_id, device_id, direction, status, body, recipient, position, created_at, updated_at, sent_at)
       select gen_random_uuid(), ?, '00000000-0000-4000-8000-000000000001', ?, 'outbound',
              (array['sent','delivered','failed','unknown'])[1 + i % 4], 'Message number ' || i || ' about order ' || (i::bigint * 7919 % 100000),
              '+1415' || lpad((i % 10000000)::text, 7, '0'), i, now() - make_interval(secs => ? - i), now(), now()
         from generate_series(1, ?) as i`,
      [user.id, pair.device.id, ROWS, ROWS],
    );
    await em.execute('analyze messages');
    console.log(
      `history: ${ROWS.toLocaleString()} messages inserted in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const send = async (n: number) => {
      const to = Array.from({ length: n }, () => `+1415${2000000 + Math.floor(Math.random() * 7_999_999)}`);
      const t = performance.now();
      const res = await api.fetch('/v1/messages', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ body: 'Benchmark', to }),
      });
      if (res.status !== 202) throw new Error(`send failed: ${res.status} ${await res.text()}`);
      return performance.now() - t;
    };
    const one: number[] = [];
    for (let i = 0; i < 50; i++) one.push(await send(1));
    const thousand: number[] = [];
    for (let i = 0; i < 10; i++) thousand.push(await send(1000));
    console.log('accept latency, 1 recipient (ms):', stats(one));
    console.log('accept latency, 1,000 recipients (ms):', stats(thousand));
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 5; i++) await send(1000);
      }),
    );
    console.log(
      `accepted messages per second (4 concurrent senders of 1,000): ${Math.round(20_000 / ((performance.now() - t0) / 1000))}`,
    );

    const fetches: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      const res = await api.fetch('/v1/device/outbox?limit=100', {
        headers: { authorization: `Bearer ${pair.device_token}` },
      });
      await res.json();
      fetches.push(performance.now() - t);
    }
    console.log(`outbox fetch of 100 with ${ROWS.toLocaleString()} messages in the table (ms):`, stats(fetches));

    const plans: Array<[string, string, unknown[]]> = [
      [
        'list newest first',
        `select * from messages m where m.user_id = ? order by m.created_at desc, m.id desc limit 51`,
        [user.id],
      ],
      [
        'list with q',
        `select * from messages m where m.user_id = ? and (m.body || ' ' || coalesce(m.recipient, '') || ' ' || coalesce(m.sender, '')) ilike ? order by m.created_at desc, m.id desc limit 51`,
        [user.id, '%order 4242%'],
      ],
      [
        'list by status',
        `select * from messages m where m.user_id = ? and m.status = 'failed' order by m.created_at desc, m.id desc limit 51`,
        [user.id],
      ],
      [
        'outbox',
        `select id from messages m where m.device_id = ? and m.direction = 'outbound' and m.status in ('queued', 'dispatched') and m.available_at <= now() order by m.available_at, m.created_at, m.position limit 100`,
        [pair.device.id],
      ],
      [
        'batch messages',
        `select * from messages where batch_id = ? order by position limit 100`,
        ['00000000-0000-4000-8000-000000000001'],
      ],
    ];
    for (const [name, sql, params] of plans) {
      const rows = await em.execute<{ 'QUERY PLAN': string }[]>(`explain ${sql}`, params);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      const seq = /Seq Scan on messages/.test(plan);
      console.log(`plan [${name}]: ${seq ? 'SEQUENTIAL SCAN' : 'index'} — ${rows[0]['QUERY PLAN'].trim()}`);
      if (seq) console.log(plan);
    }
  } finally {
    await api.close();
    worker.shutdown();
    await running;
    await orm.close();
    await env.teardown();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
