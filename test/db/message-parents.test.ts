import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { query, sql } from '../../src/db/sql';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database';

// A message's account, phone and batch are checked by triggers once per statement (see
// Migration20261129090000MessageParents), not by foreign keys once per row. What the keys kept is
// kept: checked here on the shared test database, with two connections where a deletion and a send
// meet.

interface Parents {
  user: string;
  device: string;
  batch: string;
}

describe('the parents of a message', () => {
  let db: pg.Client;
  let other: pg.Client;
  let watcher: pg.Client;
  const connect = async () => {
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    return client;
  };
  beforeAll(async () => {
    db = await connect();
    other = await connect();
    watcher = await connect();
  });
  afterAll(async () => {
    await db?.end();
    await other?.end();
    await watcher?.end();
  });

  const account = async (): Promise<Parents> => {
    const ids = { user: randomUUID(), device: randomUUID(), batch: randomUUID() };
    await db.query(
      `insert into users (id, email, plan_id, created_at, updated_at) values ($1::uuid, $1::text || '@example.com', 'free', now(), now())`,
      [ids.user],
    );
    await db.query(
      `insert into devices (id, user_id, name, hardware_key, paired_at, created_at, updated_at)
       values ($1::uuid, $2, 'Phone', $1::text, now(), now(), now())`,
      [ids.device, ids.user],
    );
    await db.query(
      `insert into batches (id, user_id, device_id, body, status, recipient_count, recipient_preview, segments, encoding,
                            created_at, updated_at)
       values ($1, $2, $3, 'Hello', 'queued', 2, '+15550000001', 1, 'gsm7', now(), now())`,
      [ids.batch, ids.user, ids.device],
    );
    return ids;
  };
  /** A send's messages as one statement, as a send inserts them. */
  const insertMessages = (client: pg.Client, parents: Parents, count = 2) =>
    client.query(
      `insert into messages (id, user_id, batch_id, device_id, direction, status, body, recipient, position, created_at, updated_at)
       select gen_random_uuid(), $1, $2, $3, 'outbound', 'queued', 'Hello', '+1555000000' || g, g - 1, now(), now()
         from generate_series(1, $4::int) g`,
      [parents.user, parents.batch, parents.device, count],
    );
  const countOf = async (column: 'user_id' | 'batch_id' | 'device_id', id: string) =>
    Number((await db.query(`select count(*) as n from messages where ${column} = $1`, [id])).rows[0].n);
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { code?: string; constraint?: string }) => ({ code: error.code, constraint: error.constraint }),
    );
  /** Until the connection's statement waits for a lock another transaction holds. */
  const waitsForALock = (client: pg.Client) =>
    expect
      .poll(
        async () =>
          (
            await watcher.query(`select wait_event_type from pg_stat_activity where pid = $1`, [
              (client as unknown as { processID: number }).processID,
            ])
          ).rows[0]?.wait_event_type,
      )
      .toBe('Lock');

  it('are written with them when they exist', async () => {
    const parents = await account();
    await insertMessages(db, parents, 3);
    expect(await countOf('batch_id', parents.batch)).toBe(3);
  });

  it('refuse a send naming an account, a phone or a batch that does not exist, and write none of it', async () => {
    const parents = await account();
    for (const [missing, constraint] of [
      ['user', 'messages_user_id_fkey'],
      ['device', 'messages_device_id_fkey'],
      ['batch', 'messages_batch_id_fkey'],
    ] as const) {
      const named = { ...parents, [missing]: randomUUID() };
      expect(await refusal(insertMessages(db, named))).toEqual({ code: '23503', constraint });
    }
    expect(await countOf('device_id', parents.device)).toBe(0);
  });

  it('refuse a statement naming two batches when one does not exist, and write two that do', async () => {
    const parents = await account();
    const second = await account();
    const both = (batch: string) =>
      db.query(
        `insert into messages (id, user_id, batch_id, device_id, direction, status, body, recipient, position, created_at, updated_at)
         select gen_random_uuid(), p.user_id, p.batch_id, p.device_id, 'outbound', 'queued', 'Hello', '+15550000001', 0, now(), now()
           from (values ($1::uuid, $2::uuid, $3::uuid), ($4::uuid, $5::uuid, $6::uuid)) as p (user_id, batch_id, device_id)`,
        [parents.user, parents.batch, parents.device, second.user, batch, second.device],
      );
    expect(await refusal(both(randomUUID()))).toEqual({ code: '23503', constraint: 'messages_batch_id_fkey' });
    expect(await countOf('batch_id', parents.batch)).toBe(0);
    await both(second.batch);
    expect([await countOf('batch_id', parents.batch), await countOf('batch_id', second.batch)]).toEqual([1, 1]);
  });

  it('refuse moving a message to a phone that does not exist, and allow one to a phone that does', async () => {
    const parents = await account();
    await insertMessages(db, parents, 1);
    const move = (device: string) =>
      db.query(`update messages set device_id = $1 where batch_id = $2`, [device, parents.batch]);
    expect(await refusal(move(randomUUID()))).toEqual({ code: '23503', constraint: 'messages_device_id_fkey' });
    const second = randomUUID();
    await db.query(
      `insert into devices (id, user_id, name, hardware_key, paired_at, created_at, updated_at)
       values ($1::uuid, $2, 'Second', $1::text, now(), now(), now())`,
      [second, parents.user],
    );
    await move(second);
    expect(await countOf('device_id', second)).toBe(1);
  });

  it('probe each parent by its index, also on tables small enough to read whole', async () => {
    const parents = await account();
    const client = await connect();
    const plans: string[] = [];
    client.on('notice', (notice) => plans.push(notice.message ?? ''));
    try {
      // The check's own plan, as auto_explain logs a trigger's statements.
      await client.query(`load 'auto_explain'`);
      await client.query(`set auto_explain.log_min_duration = 0`);
      await client.query(`set auto_explain.log_nested_statements = on`);
      await client.query(`set auto_explain.log_level = notice`);
      await client.query(`set client_min_messages = notice`);
      await insertMessages(client, parents);
    } finally {
      await client.end();
    }
    const check = plans.find((plan) => plan.includes('from devices where id = parent.device_id for key share'));
    expect(check).toBeDefined();
    expect(check).not.toMatch(/Seq Scan on (users|devices|batches)\b/);
    expect(check).toMatch(/Bitmap Index Scan on devices_pkey|Index (Only )?Scan using devices_pkey/);
  });

  it("go with the account's deletion, and the batch's", async () => {
    const parents = await account();
    await insertMessages(db, parents);
    await db.query(`delete from batches where id = $1`, [parents.batch]);
    expect(await countOf('user_id', parents.user)).toBe(0);

    const second = await account();
    await insertMessages(db, second);
    await db.query(`delete from users where id = $1`, [second.user]);
    expect(await countOf('user_id', second.user)).toBe(0);
    expect((await db.query(`select 1 from devices where id = $1`, [second.device])).rowCount).toBe(0);
  });

  it('keep a phone with messages from being deleted', async () => {
    const parents = await account();
    // A phone no batch names (its batches would keep it too): one text received on it.
    const phone = randomUUID();
    await db.query(
      `insert into devices (id, user_id, name, hardware_key, paired_at, created_at, updated_at)
       values ($1::uuid, $2, 'Receiver', $1::text, now(), now(), now())`,
      [phone, parents.user],
    );
    await db.query(
      `insert into messages (id, user_id, device_id, direction, status, body, sender, created_at, updated_at)
       values (gen_random_uuid(), $1, $2, 'inbound', 'received', 'Hi', '+15550000009', now(), now())`,
      [parents.user, phone],
    );
    expect(await refusal(db.query(`delete from devices where id = $1`, [phone]))).toEqual({
      code: '23503',
      constraint: 'messages_device_id_fkey',
    });
    expect(await countOf('device_id', phone)).toBe(1);
  });

  it("make an account's deletion wait for a send still committing, then take its messages too", async () => {
    const parents = await account();
    await other.query('begin');
    await insertMessages(other, parents);
    const deletion = db.query(`delete from users where id = $1`, [parents.user]);
    await waitsForALock(db);
    await other.query('commit');
    await deletion;
    expect(await countOf('user_id', parents.user)).toBe(0);
  });

  it('refuse a send that commits after its account was deleted under it', async () => {
    const parents = await account();
    await other.query('begin');
    await other.query(`delete from users where id = $1`, [parents.user]);
    const send = refusal(insertMessages(db, parents));
    await waitsForALock(db);
    await other.query('commit');
    expect(await send).toEqual({ code: '23503', constraint: 'messages_user_id_fkey' });
    expect(await countOf('user_id', parents.user)).toBe(0);
  });
});

describe('Migration20261129090000MessageParents', () => {
  let scratch: ScratchDatabase | undefined;
  beforeAll(async () => {
    scratch = await scratchDatabase('Migration20261129090000MessageParents');
  });
  afterAll(() => scratch?.drop());

  const keys = async () =>
    (
      await query<{ conname: string }>(
        scratch!.orm.em.fork(),
        sql`select conname from pg_constraint where conrelid = 'messages'::regclass and contype = 'f' order by conname`,
      )
    ).map((row) => row.conname);

  it('goes down to the foreign keys, and up again to the triggers', async () => {
    expect(await keys()).toEqual([]);
    await scratch!.orm.getMigrator().down();
    expect(await keys()).toEqual(['messages_batch_id_fkey', 'messages_device_id_fkey', 'messages_user_id_fkey']);
    await scratch!.orm.getMigrator().up({ to: 'Migration20261129090000MessageParents' });
    expect(await keys()).toEqual([]);
  });
});

describe('Migration20261129100000MessageParentsOnce', () => {
  let scratch: ScratchDatabase | undefined;
  beforeAll(async () => {
    scratch = await scratchDatabase('Migration20261129100000MessageParentsOnce');
  });
  afterAll(() => scratch?.drop());

  const check = async () => {
    const [row] = await query<{ body: string }>(
      scratch!.orm.em.fork(),
      sql`select pg_get_functiondef('messages_parents_exist'::regproc) as body`,
    );
    return row.body.includes('= any(p.u)') ? 'by array' : row.body.includes('in (select') ? 'by semi-join' : row.body;
  };

  it('goes down to the semi-join check, and up again to the array', async () => {
    expect(await check()).toBe('by array');
    await scratch!.orm.getMigrator().down();
    expect(await check()).toBe('by semi-join');
    await scratch!.orm.getMigrator().up({ to: 'Migration20261129100000MessageParentsOnce' });
    expect(await check()).toBe('by array');
  });
});
