// `npm run bench:send-size`: how long the API takes to refuse sends too large for their plan, and
// how large its answer is. One API in this process over embedded Postgres (no Temporal: nothing is
// accepted), an account on the Business plan (batch limit 5,000), then rounds of:
//   - 60,000 distinct recipients (960 KB): validation_failed, more than RECIPIENTS_MAX (10,000)
//   - 10,000 distinct recipients: plan_limit_batch
//   - 10,000 recipients from an unverified account: email_unverified
//   - 4,000 invalid numbers: validation_failed listing the first 100
//   - GET /healthz while three 60,000-recipient sends run at once
// Each line: p50 and p95 over the rounds of the request's time at the client (JSON already encoded)
// and the answer's size. About 20 seconds.
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../src/config';
import { openOrm } from '../src/db/orm';
import { query, sql } from '../src/db/sql';
import { listen } from '../src/server';
import { systemClock } from '../src/lib/clock';
import { createLogger } from '../src/lib/logger';
import { buildServices } from '../src/services';
import { freePort } from '../test/support/net';
import { migrate, onCleanup, runMain, startPostgres } from './stack';
import { percentile } from './stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

runMain(async () => {
  const pg = await startPostgres({ errors: [] });
  await migrate(pg.url);
  const config = loadConfig({}, { LOG_LEVEL: 'silent', DATABASE_URL: pg.url, BODY_LIMIT: '2mb', PORT: '0' });
  const logger = createLogger('silent');
  const orm = await openOrm(pg.url);
  onCleanup('close the database pool', () => orm.close());
  // Never reached: every send here is refused before a workflow would start.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const mails: string[] = [];
  const services = buildServices({
    config,
    logger,
    orm,
    temporal,
    clock: systemClock,
    mailer: { send: async (mail) => void mails.push(mail.text) },
  });
  const api = await listen({ config, logger, orm, temporal, services }, await freePort(), '127.0.0.1');
  onCleanup('stop the API', () => api.stop());
  onCleanup('stop the services', () => services.stop());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  async function account(email: string, verified: boolean): Promise<string> {
    const registered = await post('/v1/auth/register', JSON.stringify({ email, password: 'correct horse battery' }));
    if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
    const cookie = registered.headers.getSetCookie()[0].split(';')[0];
    await query(
      orm.em.fork(),
      sql`update users set plan_id = 'business', email_verified_at = ${verified ? sql`now()` : sql`null`}
           where email = ${email}`,
    );
    const key = await post('/v1/api-keys', JSON.stringify({ name: 'bench' }), { cookie, origin: new URL(config.publicUrl).origin });
    return ((await key.json()) as { key: string }).key;
  }
  const verified = await account('bench-send-size@example.test', true);
  const unverified = await account('bench-send-size-unverified@example.test', false);

  const distinct = JSON.stringify({
    body: 'Hello',
    to: Array.from({ length: 60_000 }, (_, i) => `+1415${2_000_000 + i}`),
  });
  const largest = JSON.stringify({
    body: 'Hello',
    to: Array.from({ length: 10_000 }, (_, i) => `+1415${2_000_000 + i}`),
  });
  const invalid = JSON.stringify({ body: 'Hello', to: Array.from({ length: 4_000 }, (_, i) => `+1 555 nope ${i}`) });
  const cases = [
    { label: '60,000 recipients, Business plan', key: verified, body: distinct, status: 422 },
    { label: '10,000 recipients, Business plan', key: verified, body: largest, status: 429 },
    { label: '10,000 recipients, unverified account', key: unverified, body: largest, status: 403 },
    { label: '4,000 invalid numbers, Business plan', key: verified, body: invalid, status: 422 },
  ];
  console.log(`POST /v1/messages, ${ROUNDS} rounds (request ${Buffer.byteLength(distinct)} bytes for 60,000)`);
  for (const { label, key, body, status } of cases) {
    const times: number[] = [];
    let size = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const res = await post('/v1/messages', body, { 'x-api-key': key });
      const text = await res.text();
      times.push(performance.now() - started);
      if (res.status !== status) throw new Error(`${label}: ${res.status} ${text.slice(0, 200)}`);
      size = Buffer.byteLength(text);
    }
    console.log(
      `  ${label.padEnd(40)} ${status}  p50 ${percentile(times, 0.5).toFixed(1)} ms  p95 ${percentile(times, 0.95).toFixed(1)} ms  answer ${size} bytes`,
    );
  }

  // Three such sends at once, and a liveness probe among them (/readyz would also ask Temporal, absent here): how long the probe waits.
  const waits: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const sends = [0, 1, 2].map(() => post('/v1/messages', distinct, { 'x-api-key': verified }).then((r) => r.text()));
    const started = performance.now();
    await (await fetch(`${api.url}/healthz`)).text();
    waits.push(performance.now() - started);
    await Promise.all(sends);
  }
  console.log(
    `  /healthz during 3 concurrent 60,000-recipient sends   p50 ${percentile(waits, 0.5).toFixed(1)} ms  p95 ${percentile(waits, 0.95).toFixed(1)} ms`,
  );
});
