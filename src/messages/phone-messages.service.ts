import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden } from '../http/errors';
import { decodeCursor, afterCursorSql, toPage, type Page } from '../http/pagination';
import type { Clock } from '../lib/clock';
import type { PlansService } from '../plans/plans.service';
import { Message } from './message.entity';
import { messageView } from './messages.views';
import type { Effects, OutcomesService } from './outcomes.service';

export interface PhoneMessagesDeps {
  em: () => EntityManager;
  clock: Clock;
  plans: PlansService;
  outcomes: OutcomesService;
}

export interface InboundInput {
  body: string;
  receivedAt: Date;
  sender: string;
  fingerprint?: string | null;
  simSubscriptionId?: number | null;
}

/** The phone's side of messaging: its outbox, inbound texts and its own message list. */
export function createPhoneMessagesService(deps: PhoneMessagesDeps) {
  const { em, clock } = deps;

  return {
    /**
     * Hands out what the phone may send now, oldest first, marking queued ones dispatched. A message
     * stays in the outbox until an outcome is reported, so a phone that lost it gets it again;
     * lapsed (unknown) and final ones never come back.
     */
    async outbox(deviceId: string, limit: number): Promise<Message[]> {
      const now = clock.now();
      return em().transactional(async (tx) => {
        const rows = await tx.execute<Array<Record<string, unknown> & { old_status: string }>>(
          `with due as (
             select m.id, m.status as old_status from messages m
              where m.device_id = ? and m.direction = 'outbound' and m.status in ('queued', 'dispatched')
                and m.available_at <= ? and (m.stale_at is null or m.stale_at > ?)
                and not exists (select 1 from batches b where b.id = m.batch_id and b.status = 'scheduled')
              order by m.available_at, m.created_at, m.position
              limit ? for update of m skip locked)
           update messages m
              set status = 'dispatched', dispatched_at = coalesce(m.dispatched_at, ?), updated_at = ?
             from due where m.id = due.id
           returning m.*, due.old_status`,
          [deviceId, now, now, limit, now, now],
        );
        const perBatch = new Map<string, number>();
        for (const row of rows) {
          if (row.old_status === 'queued' && row.batch_id) {
            perBatch.set(String(row.batch_id), (perBatch.get(String(row.batch_id)) ?? 0) + 1);
          }
        }
        for (const [batchId, n] of perBatch) await deps.outcomes.adjustBatch(tx, batchId, { dispatched_count: n });
        const messages = rows.map(({ old_status: _old, ...row }) => tx.map(Message, row));
        return messages.sort(
          (a, b) =>
            a.availableAt!.getTime() - b.availableAt!.getTime() ||
            a.createdAt.getTime() - b.createdAt.getTime() ||
            a.position - b.position,
        );
      });
    },

    /** Stores an inbound text once per fingerprint, race-free; returns whether it was new. */
    async inbound(
      deviceId: string,
      input: InboundInput,
    ): Promise<{ inserted: boolean; message: Message; effects: Effects }> {
      const effects: Effects = { events: [], settledBatches: [] };
      const fingerprint =
        input.fingerprint ??
        // Phones that send none are de-duplicated on what they did send.
        createHash('sha256').update(`${input.sender}\n${input.receivedAt.toISOString()}\n${input.body}`).digest('hex');
      const result = await em().transactional(async (tx) => {
        const [device] = await tx.execute<{ user_id: string; receive_enabled: boolean }[]>(
          'select user_id, receive_enabled from devices where id = ?',
          [deviceId],
        );
        if (!device.receive_enabled) {
          throw forbidden('receive_disabled', 'Receiving is turned off for this phone (receive_enabled is false).');
        }
        const now = clock.now();
        const inserted = await tx.execute<Array<Record<string, unknown>>>(
          `insert into messages (id, user_id, device_id, direction, status, body, sender, sim_subscription_id,
                                 fingerprint, received_at, created_at, updated_at)
           values (gen_random_uuid(), ?, ?, 'inbound', 'received', ?, ?, ?, ?, ?, ?, ?)
           on conflict (device_id, fingerprint) where fingerprint is not null do nothing
           returning *`,
          [
            device.user_id,
            deviceId,
            input.body,
            input.sender,
            input.simSubscriptionId ?? null,
            fingerprint,
            input.receivedAt,
            now,
            now,
          ],
        );
        if (inserted.length === 0) {
          const known = await tx.findOneOrFail(Message, { deviceId, fingerprint });
          return { inserted: false, message: known };
        }
        const message = tx.map(Message, inserted[0]);
        await tx.execute('update devices set received_count = received_count + 1 where id = ?', [deviceId]);
        await deps.plans.countReceived(tx, device.user_id, 1);
        effects.events.push(await deps.outcomes.emitReceived(tx, message));
        return { inserted: true, message };
      });
      return { ...result, effects };
    },

    /** GET /v1/device/messages: the phone's own messages, newest first. */
    async list(
      deviceId: string,
      query: { direction?: string; cursor?: string; limit: number },
    ): Promise<Page<Message>> {
      const where = ['device_id = ?'];
      const params: unknown[] = [deviceId];
      if (query.direction) (where.push('direction = ?'), params.push(query.direction));
      const cursor = query.cursor ? decodeCursor(query.cursor) : null;
      if (cursor) {
        const after = afterCursorSql(cursor, 'desc');
        where.push(after.sql);
        params.push(...after.params);
      }
      const rows = await em().execute(
        `select * from messages where ${where.join(' and ')} order by created_at desc, id desc limit ?`,
        [...params, query.limit + 1],
      );
      return toPage(
        rows.map((row) => em().map(Message, row)),
        query.limit,
      );
    },

    view: messageView,
  };
}

export type PhoneMessagesService = ReturnType<typeof createPhoneMessagesService>;
