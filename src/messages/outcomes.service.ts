import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../http/errors';
import type { Client } from '@temporalio/client';
import type { Event } from '../events/event.entity';
import type { EventsService } from '../events/events.service';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import { batchSettledSignal, batchWorkflowId } from '../../workflows/definitions';
import { Batch } from './batch.entity';
import { Message, type MessageStatus } from './message.entity';
import { messageView } from './messages.views';
import { counterOf, releasedBatchStatus, reportMoves, STATUS_AT, type ReportedStatus } from './transitions';

export interface OutcomesDeps {
  em: () => EntityManager;
  clock: Clock;
  logger: Logger;
  events: EventsService;
  temporal: Client;
}

export interface Report {
  status: ReportedStatus;
  at: Date;
  errorCode?: string | null;
  errorMessage?: string | null;
}

/** What a committed change still has to do: start deliveries, and wake batch workflows that are done. */
export interface Effects {
  events: Event[];
  settledBatches: string[];
}

const EVENT_OF: Partial<
  Record<MessageStatus, 'message.sent' | 'message.delivered' | 'message.failed' | 'message.unknown'>
> = {
  sent: 'message.sent',
  delivered: 'message.delivered',
  failed: 'message.failed',
  unknown: 'message.unknown',
};

/**
 * Message state changes and what follows them, always in the caller's transaction: the message row,
 * its batch's counters and status, the device's counters and the event (transactional outbox).
 */
export function createOutcomesService(deps: OutcomesDeps) {
  const { clock } = deps;

  /** Moves a batch's counters by per-counter deltas, then settles its status; reports whether it just became final. */
  async function adjustBatch(tx: EntityManager, batchId: string, deltas: Record<string, number>): Promise<boolean> {
    const sets = Object.entries(deltas)
      .filter(([, n]) => n !== 0)
      .map(([column, n]) => `${column} = ${column} + ${Math.trunc(n)}`);
    if (sets.length > 0) await tx.execute(`update batches set ${sets.join(', ')} where id = ?`, [batchId]);
    const batch = await tx.findOneOrFail(Batch, { id: batchId }, { refresh: true });
    if (batch.status === 'scheduled' || batch.status === 'completed' || batch.status === 'failed') return false;
    const status = releasedBatchStatus(batch);
    if (status === batch.status) return false;
    batch.status = status;
    const final = status === 'completed' || status === 'failed';
    if (final) batch.completedAt = clock.now();
    if (status === 'failed') batch.error ??= 'Every message failed.';
    await tx.flush();
    return final;
  }

  /** One message to `to`, with everything that follows; the message must be locked by the caller. */
  async function move(
    tx: EntityManager,
    message: Message,
    to: MessageStatus,
    at: Date,
    effects: Effects,
    error?: { code?: string | null; message?: string | null },
  ) {
    const from = message.status;
    message.status = to;
    const column = STATUS_AT[to];
    if (column) message[column] = at;
    if (error?.code !== undefined) message.errorCode = error.code ?? null;
    if (error?.message !== undefined) message.errorMessage = error.message ?? null;
    message.updatedAt = clock.now();
    await tx.flush();
    if ((to === 'sent' || to === 'delivered') && !['sent', 'delivered'].includes(from)) {
      await tx.execute('update devices set sent_count = sent_count + 1 where id = ?', [message.deviceId]);
    }
    if (message.batchId) {
      const deltas: Record<string, number> = {};
      const old = counterOf(from);
      const next = counterOf(to);
      if (old) deltas[old] = (deltas[old] ?? 0) - 1;
      if (next) deltas[next] = (deltas[next] ?? 0) + 1;
      if (await adjustBatch(tx, message.batchId, deltas)) effects.settledBatches.push(message.batchId);
    }
    const name = EVENT_OF[to];
    if (name) {
      effects.events.push(
        await deps.events.emit(tx, {
          userId: message.userId,
          name,
          data: messageView(message),
          messageId: message.id,
          deviceId: message.deviceId,
        }),
      );
    }
  }

  /**
   * Moves every message a condition selects to `to` in one statement (a sweep's lapsed messages, a
   * disabled phone's queue), with the same counters and events as `move`. Only for moves out of
   * queued or dispatched, which are always forward.
   */
  async function moveMany(
    tx: EntityManager,
    where: { sql: string; params: unknown[] },
    to: 'unknown' | 'failed',
    at: Date,
    effects: Effects,
    error?: { code: string; message: string },
  ): Promise<number> {
    const rows = await tx.execute<Array<Record<string, unknown> & { old_status: MessageStatus }>>(
      `with target as (
         select id, status as old_status from messages
          where status in ('queued', 'dispatched') and direction = 'outbound' and ${where.sql}
          for update)
       update messages m
          set status = ?, updated_at = ?${to === 'failed' ? ', failed_at = ?, error_code = ?, error_message = ?' : ''}
         from target where m.id = target.id
       returning m.*, target.old_status`,
      [...where.params, to, clock.now(), ...(to === 'failed' ? [at, error?.code ?? null, error?.message ?? null] : [])],
    );
    const deltas = new Map<string, Record<string, number>>();
    const inputs = [];
    for (const { old_status: from, ...row } of rows) {
      const message = tx.map(Message, row);
      if (message.batchId) {
        const batch = deltas.get(message.batchId) ?? {};
        const old = counterOf(from);
        if (old) batch[old] = (batch[old] ?? 0) - 1;
        const next = counterOf(to)!;
        batch[next] = (batch[next] ?? 0) + 1;
        deltas.set(message.batchId, batch);
      }
      inputs.push({
        userId: message.userId,
        name: EVENT_OF[to]!,
        data: messageView(message),
        messageId: message.id,
        deviceId: message.deviceId,
      });
    }
    for (const [batchId, batchDeltas] of deltas) {
      if (await adjustBatch(tx, batchId, batchDeltas)) effects.settledBatches.push(batchId);
    }
    effects.events.push(...(await deps.events.emitMany(tx, inputs)));
    return rows.length;
  }

  return {
    adjustBatch,
    move,
    moveMany,

    /** message.received for a newly stored inbound text, in its transaction. */
    emitReceived: (tx: EntityManager, message: Message) =>
      deps.events.emit(tx, {
        userId: message.userId,
        name: 'message.received',
        data: messageView(message),
        messageId: message.id,
        deviceId: message.deviceId,
      }),

    /** After the transaction committed: start deliveries, tell finished batch workflows they can end. */
    async afterCommit(effects: Effects): Promise<void> {
      await deps.events.committed(effects.events);
      for (const batchId of new Set(effects.settledBatches)) {
        try {
          await deps.temporal.workflow.getHandle(batchWorkflowId(batchId)).signal(batchSettledSignal);
        } catch (error) {
          // The workflow also finds out at its next deadline.
          deps.logger.debug({ err: error, batch_id: batchId }, 'could not signal batch workflow');
        }
      }
    },

    /** A phone's outcome report: idempotent, never backwards, only for the phone that owns the message. */
    async report(deviceId: string, messageId: string, report: Report): Promise<{ message: Message; effects: Effects }> {
      const effects: Effects = { events: [], settledBatches: [] };
      const message = await deps.em().transactional(async (tx) => {
        const message = await tx.findOne(
          Message,
          { id: messageId, deviceId, direction: 'outbound' },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (!message) return null;
        if (reportMoves(message.status, report.status)) {
          await move(tx, message, report.status, report.at, effects, {
            code: report.errorCode,
            message: report.errorMessage,
          });
        }
        return message;
      });
      // Another phone's message, or none: the same answer.
      if (!message) throw notFound('message');
      return { message, effects };
    },

    /** Fails what is still queued for a phone that was disabled or unpaired (dispatched ones may still be reported). */
    async failQueuedForDevice(tx: EntityManager, deviceId: string, code: string, text: string): Promise<Effects> {
      const effects: Effects = { events: [], settledBatches: [] };
      await moveMany(
        tx,
        { sql: "device_id = ? and status = 'queued'", params: [deviceId] },
        'failed',
        clock.now(),
        effects,
        {
          code,
          message: text,
        },
      );
      return effects;
    },
  };
}

export type OutcomesService = ReturnType<typeof createOutcomesService>;
