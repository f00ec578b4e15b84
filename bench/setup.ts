// Accounts, keys and phones through the public API (register, the mailed code, keys, pairing), and
// the set-based SQL fills that give the tables their size.
import type { Pool } from 'pg';
import type { HttpClient } from './http';

/** A plan with room for everything the bench sends: a copy of `business` with huge limits. */
export async function insertBenchPlan(db: Pool): Promise<void> {
  // Copied row by row so columns added later keep the business plan's values.
  const client = await db.connect();
  try {
    await client.query('create temp table bench_plan as select * from plans where id = $1', ['business']);
    await client.query(
      `update bench_plan set id = 'bench', name = 'Bench', sort_order = 99, batch_limit = 100000,
              daily_limit = 1000000000, monthly_limit = 1000000000, device_limit = 1000, webhook_limit = 1000`,
    );
    await client.query('insert into plans select * from bench_plan on conflict (id) do nothing');
    await client.query('drop table bench_plan');
  } finally {
    client.release();
  }
}

export interface Phone {
  id: string;
  token: string;
  auth: Record<string, string>;
}

export interface Account {
  userId: string;
  /** Keys used in turn: the api throttles each key to 50 requests/s (burst 100). */
  keys: string[];
  phones: Record<string, Phone>;
}

let nextKey = 0;
/** Headers of the next key in the pool. */
export function keyAuth(account: Account): Record<string, string> {
  return { 'x-api-key': account.keys[nextKey++ % account.keys.length] };
}

export async function createAccount(
  http: HttpClient,
  codeFor: (email: string) => Promise<string>,
  options: { label: string; keys: number; phones: string[] },
): Promise<Account> {
  const email = `${options.label}-${Date.now()}@bench.example`;
  const registered = await http.expect(201, 'POST', '/v1/auth/register', {
    body: { email, password: 'benchmark password 1' },
  });
  const cookie = registered.headers['set-cookie']?.find((c) => c.startsWith('sid='))?.split(';')[0];
  if (!cookie) throw new Error('register answered no session cookie');
  // A change on a session says where it comes from (the API refuses it otherwise): as the dashboard's.
  const session = { cookie, 'sec-fetch-site': 'same-origin' };
  const userId = registered.json<{ user: { id: string } }>().user.id;
  await http.expect(200, 'POST', '/v1/auth/verify-email', {
    headers: session,
    body: { code: await codeFor(email) },
  });
  const keys: string[] = [];
  for (let i = 0; i < options.keys; i++) {
    const reply = await http.expect(201, 'POST', '/v1/api-keys', { headers: session, body: { name: `bench ${i}` } });
    keys.push(reply.json<{ key: string }>().key);
  }
  const account: Account = { userId, keys, phones: {} };
  for (const name of options.phones) {
    const { code } = (await http.expect(201, 'POST', '/v1/devices/pairing-codes', { headers: keyAuth(account) })).json<{
      code: string;
    }>();
    const paired = (
      await http.expect(201, 'POST', '/v1/device/pair', {
        body: { code, hardware_key: `bench-${options.label}-${name}`, name: `bench ${name}` },
      })
    ).json<{ device: { id: string }; device_token: string }>();
    account.phones[name] = {
      id: paired.device.id,
      token: paired.device_token,
      auth: { authorization: `Bearer ${paired.device_token}` },
    };
  }
  return account;
}

/**
 * History: `rows` messages in final states (sent, delivered, failed, unknown, received) over the past
 * year, in batches of 1,000, for another account's phone, so they never enter the bench phones'
 * queues. One INSERT ... SELECT generate_series per table.
 */
export async function fillHistory(
  db: Pool,
  account: Account,
  phoneId: string,
  rows: number,
): Promise<{ ms: number; rebuilt: number }> {
  const started = performance.now();
  const client = await db.connect();
  // Big fills drop the secondary indexes and build them again after the insert: several times
  // faster than maintaining the trigram index row by row. The primary key stays.
  const rebuild = rows >= 200_000;
  let indexes: Array<{ name: string; def: string }> = [];
  try {
    // One transaction; its commit need not wait for the disk (the setting ends with it).
    await client.query('begin');
    await client.query('set local synchronous_commit = off');
    await client.query(
      `insert into batches (id, user_id, device_id, body, status, recipient_count, recipient_preview, segments,
                            encoding, completed_at, workflow_started_at, created_at, updated_at)
       select ('00000000-0000-4000-8000-' || lpad(b::text, 12, '0'))::uuid, $1, $2, 'history ' || b, 'completed',
              1000, 'history', 1, 'gsm7', at, at, at, at
         from generate_series(0, ($3::int - 1) / 1000) as b,
              lateral (select now() - make_interval(secs => ($3::int - b * 1000) * 30) as at) t`,
      [account.userId, phoneId, rows],
    );
    if (rebuild) {
      indexes = (
        await client.query<{ name: string; def: string }>(
          `select i.relname as name, pg_get_indexdef(i.oid) as def
             from pg_index x join pg_class i on i.oid = x.indexrelid
            where x.indrelid = 'messages'::regclass
              and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)`,
        )
      ).rows;
      for (const index of indexes) await client.query(`drop index "${index.name}"`);
    }
    await client.query(
      `insert into messages (id, user_id, batch_id, device_id, direction, status, body, recipient, sender, segments,
                             position, dispatched_at, sent_at, delivered_at, failed_at, received_at,
                             error_code, created_at, updated_at)
       select gen_random_uuid(), $1,
              case when i % 10 = 9 then null
                   else ('00000000-0000-4000-8000-' || lpad((i / 1000)::text, 12, '0'))::uuid end,
              $2,
              case when i % 10 = 9 then 'inbound' else 'outbound' end,
              case when i % 10 = 9 then 'received'
                   else (array['delivered','delivered','delivered','sent','failed','unknown'])[1 + i % 6] end,
              'Message number ' || i || ' about order ' || (i::bigint * 7919 % 100000),
              case when i % 10 = 9 then null else '+1415' || lpad((2000000 + i % 7000000)::text, 7, '0') end,
              case when i % 10 = 9 then '+1628' || lpad((2000000 + i % 7000000)::text, 7, '0') end,
              1, i % 1000,
              case when i % 10 <> 9 then at end,
              case when i % 10 <> 9 and i % 6 in (0, 1, 2, 3) then at end,
              case when i % 10 <> 9 and i % 6 in (0, 1, 2) then at end,
              case when i % 10 <> 9 and i % 6 = 4 then at end,
              case when i % 10 = 9 then at end,
              case when i % 10 <> 9 and i % 6 = 4 then 'RESULT_ERROR_GENERIC_FAILURE' end,
              at, at
         from generate_series(0, $3::int - 1) as i,
              lateral (select now() - make_interval(secs => ($3::int - i) * 30) as at) t`,
      [account.userId, phoneId, rows],
    );
    if (rebuild) {
      await client.query(`set local maintenance_work_mem = '256MB'`);
      for (const index of indexes) await client.query(index.def);
    }
    await client.query('commit');
    await client.query('analyze messages');
    await client.query('analyze batches');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return { ms: performance.now() - started, rebuilt: indexes.length };
}
