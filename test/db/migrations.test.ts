import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, sql } from '../../src/db/sql';
import { deliveryQueueRepository } from '../../src/webhooks/delivery-queue.repository';
import { webhooksRepository } from '../../src/webhooks/webhooks.repository';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database';

// Migrations that move rows, run on a database of their own holding the rows they move: the shared
// test database is migrated to the end before any test runs.

const MIN = 60_000;

describe('Migration20261126220000OneDeliveryPath: the queue takes over the workflow per delivery', () => {
  const BEFORE = 'Migration20261126200000SmsGateIntegrators';
  const THIS = 'Migration20261126220000OneDeliveryPath';
  const NEXT = 'Migration20261127000000LeasedIndex';
  let db: ScratchDatabase | undefined;
  let orm: MikroORM;
  const now = new Date();
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const ids = { user: randomUUID(), webhook: randomUUID(), event: randomUUID() };
  const old = { pending: randomUUID(), retrying: randomUUID(), delivered: randomUUID() };
  const queued = randomUUID();

  beforeAll(async () => {
    db = await scratchDatabase(BEFORE);
    orm = db.orm;

    // Before it: three rows of the workflow per delivery (one waiting for its first attempt, one for
    // its second, one delivered) and one of the queue.
    const em = orm.em.fork();
    await query(
      em,
      sql`insert into users (id, email, plan_id, created_at, updated_at)
          values (${ids.user}, ${`${ids.user}@example.com`}, 'free', ${now}, ${now})`,
    );
    await query(
      em,
      sql`insert into webhooks (id, user_id, url, events, created_at, updated_at)
          values (${ids.webhook}, ${ids.user}, 'https://hooks.example.com/in', ${['message.received']}::text[], ${now}, ${now})`,
    );
    await query(
      em,
      sql`insert into events (id, user_id, name, data, created_at)
          values (${ids.event}, ${ids.user}, 'message.received', '{}', ${ago(10 * MIN)})`,
    );
    const delivery = (
      id: string,
      fields: { status: string; attempts: number; created: Date; next?: Date; viaQueue: boolean },
    ) =>
      query(
        em,
        sql`insert into webhook_deliveries (id, user_id, webhook_id, event_id, event, url, body, secret_version, status,
                                            attempt_count, created_at, next_attempt_at, workflow_started_at, via_queue)
            values (${id}, ${ids.user}, ${ids.webhook}, ${ids.event}, 'message.received', 'https://hooks.example.com/in',
                    '{}', 1, ${fields.status}, ${fields.attempts}, ${fields.created}, ${fields.next ?? null}::timestamptz,
                    ${fields.viaQueue ? null : fields.created}::timestamptz, ${fields.viaQueue})`,
      );
    await delivery(old.pending, { status: 'pending', attempts: 0, created: ago(3 * MIN), viaQueue: false });
    await delivery(old.retrying, {
      status: 'retrying',
      attempts: 1,
      created: ago(10 * MIN),
      next: ago(MIN),
      viaQueue: false,
    });
    await delivery(old.delivered, { status: 'delivered', attempts: 1, created: ago(20 * MIN), viaQueue: false });
    await delivery(queued, { status: 'pending', attempts: 0, created: ago(2 * MIN), viaQueue: true });
  });

  afterAll(() => db?.drop());

  const columns = async () =>
    (
      await query<{ columnName: string }>(
        orm.em.fork(),
        sql`select column_name from information_schema.columns where table_name = 'webhook_deliveries'`,
      )
    ).map((row) => row.columnName);

  it("hands the open rows of the old path to their webhook's queue, which attempts them in due order", async () => {
    expect(await columns()).toEqual(expect.arrayContaining(['via_queue', 'workflow_started_at']));
    await orm.getMigrator().up({ to: THIS });

    expect(await columns()).not.toContain('via_queue');
    expect(await columns()).not.toContain('workflow_started_at');
    // Today's queue statements read columns of later migrations: the rows as they are after all of them.
    await orm.getMigrator().up();
    const em = orm.em.fork();
    // Oldest due first: the old pending row (created 3 min ago), the queue's (2 min), the old retry (due 1 min ago).
    const due = await deliveryQueueRepository.due(em, ids.webhook, now, 100);
    expect(due.map((row) => row.id)).toEqual([old.pending, queued, old.retrying]);
    // The retry continues from its attempt count: its next attempt is the second.
    expect(due.find((row) => row.id === old.retrying)).toMatchObject({ status: 'retrying', attemptCount: 1 });
    expect(await deliveryQueueRepository.open(em, ids.webhook)).toEqual({ pending: 2, nextRetryAt: ago(MIN) });
    // No queue workflow runs for the webhook yet: the reconciler finds its late rows and starts it.
    expect(await webhooksRepository.lateDeliveries(em, now, 10)).toEqual([
      { id: old.pending, userId: ids.user, webhookId: ids.webhook },
    ]);
    await orm.getMigrator().down({ to: NEXT });
  });

  it('keeps the queue index, without the column it no longer needs', async () => {
    const [index] = await query<{ indexdef: string }>(
      orm.em.fork(),
      sql`select indexdef from pg_indexes where indexname = 'webhook_deliveries_queue_idx'`,
    );
    expect(index.indexdef).toContain('WHERE (status = ANY');
    expect(index.indexdef).not.toContain('via_queue');
    const unstarted = await query(
      orm.em.fork(),
      sql`select 1 from pg_indexes where indexname = 'webhook_deliveries_unstarted_idx'`,
    );
    expect(unstarted).toEqual([]);
  });

  it('goes down with every row the queue’s, and up again', async () => {
    await orm.getMigrator().down();
    const rows = await query<{ id: string; viaQueue: boolean; workflowStartedAt: string | null }>(
      orm.em.fork(),
      sql`select id, via_queue, workflow_started_at from webhook_deliveries order by created_at`,
    );
    expect(rows).toEqual(
      [old.delivered, old.retrying, old.pending, queued].map((id) => ({ id, viaQueue: true, workflowStartedAt: null })),
    );
    await orm.getMigrator().up({ to: THIS });
    expect(await columns()).not.toContain('via_queue');
  });
});

describe("Migration20261127000000LeasedIndex: a phone's handed-out messages indexed on their own", () => {
  let db: ScratchDatabase | undefined;
  let orm: MikroORM;

  beforeAll(async () => {
    db = await scratchDatabase('Migration20261127000000LeasedIndex');
    orm = db.orm;
  });

  afterAll(() => db?.drop());

  const definition = async () =>
    (
      await query<{ indexdef: string }>(
        orm.em.fork(),
        sql`select indexdef from pg_indexes where tablename = 'messages' and indexname = 'messages_leased_idx'`,
      )
    ).map((row) => row.indexdef);

  it('holds only dispatched messages, by phone and deadline; goes down and up again', async () => {
    expect(await definition()).toEqual([
      expect.stringMatching(/\(device_id, stale_at\) WHERE \(status = 'dispatched'::text\)$/),
    ]);
    await orm.getMigrator().down();
    expect(await definition()).toEqual([]);
    await orm.getMigrator().up({ to: 'Migration20261127000000LeasedIndex' });
    expect(await definition()).toHaveLength(1);
  });
});
