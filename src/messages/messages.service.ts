import { transaction } from '../db/transaction';
import { devicesRepository } from '../devices/devices.repository';
import { conflict, notFound } from '../http/errors';
import type { Page } from '../http/pagination';
import type { Batch } from './batch.entity';
import type { Message } from './message.entity';
import type { DailyStatsQuery, EstimateQuery, ListMessagesQuery } from './messages.schemas';
import { paceOf, placement } from './outbox';
import { messagesRepository } from './messages.repository';
import { batchesRepository, type ShownBatch } from './batches.repository';
import { reportsRepository } from './reports.repository';
import type { OutcomesService } from './outcomes.service';
import { createSendsService, type SendsDeps } from './sends.service';
import type { SendBody } from './messages.schemas';

// The API's messages and batches: sending (sends.service.ts), cancelling, reading.

export interface MessagesDeps extends SendsDeps {
  /** Cancelling fails messages through the one path of message moves. */
  outcomes: Pick<OutcomesService, 'failQueued'>;
}


// Postgres' unique_violation: the batch has a retry already (batches_retry_of_idx).
const UNIQUE_VIOLATION = '23505';
const alreadyRetried = (by: string) =>
  conflict('already_retried', `The failed texts of this send were retried already, by ${by}.`);

export function createMessagesService(deps: MessagesDeps) {
  const { em, clock } = deps;
  const sends = createSendsService(deps);

  async function shown(userId: string, batches: Batch[]): Promise<ShownBatch[]> {
    const ids = batches.map((b) => b.id);
    const [withdrawn, retries] = await Promise.all([
      batchesRepository.withdrawnOf(em(), userId, ids),
      batchesRepository.retriesOf(em(), userId, ids),
    ]);
    return batches.map((b) => ({
      ...b,
      ...(withdrawn.get(b.id) ?? { cancelledCount: 0, optedOutCount: 0 }),
      retriedBy: retries.get(b.id) ?? null,
    }));
  }

  /** As it is accepted, every failed message of a send is to a number that opted out. */
  async function send(
    userId: string,
    input: Parameters<typeof sends.send>[1],
    extras?: Parameters<typeof sends.send>[2],
  ) {
    const { batch, messageIds } = await sends.send(userId, input, extras);
    const shownBatch: ShownBatch = { ...batch, cancelledCount: 0, optedOutCount: batch.failedCount, retriedBy: null };
    return { batch: shownBatch, messageIds };
  }

  return {
    ...sends,
    send,

    /**
     * POST /v1/batches/{id}/retry-failed: a new send of the batch's failed texts (not the cancelled
     * ones, nor those to opted-out numbers), each with the text it had, from the same phone and SIM
     * with the same priority and ttl, linked to the batch. A batch is retried once (409 after).
     */
    async retryFailed(userId: string, id: string) {
      const batch = await batchesRepository.getBatch(em(), userId, id);
      if (!batch) throw notFound('batch');
      const retried = (await batchesRepository.retriesOf(em(), userId, [id])).get(id);
      if (retried) throw alreadyRetried(retried);
      const failed = await batchesRepository.failedToRetry(em(), userId, id);
      if (failed.length === 0) {
        throw conflict(
          'nothing_to_retry',
          'The send has no failed texts to retry (cancelled texts and opted-out numbers are not retried).',
        );
      }
      const input = {
        ...(batch.dataPort != null ? { data: { base64: batch.body, port: batch.dataPort } } : { body: batch.body }),
        encrypted: batch.encrypted,
        to: failed.map((m) => m.recipient),
        device_id: batch.deviceId,
        sim_subscription_id: batch.simSubscriptionId ?? null,
        priority: batch.priority,
        ttl_seconds: batch.ttlSeconds ?? null,
      } as SendBody;
      // A personalised send's texts are its messages' own; any other's are its body.
      const texts = failed.some((m) => m.body !== batch.body) ? failed.map((m) => m.body) : undefined;
      try {
        return await send(userId, input, { texts, retryOf: id });
      } catch (error) {
        // Another retry of it was accepted meanwhile.
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
        throw alreadyRetried((await batchesRepository.retriesOf(em(), userId, [id])).get(id) ?? 'another send');
      }
    },

    /**
     * POST /v1/batches/{id}/cancel: the send's messages not yet dispatched (queued, or waiting for
     * scheduled_at) fail with error_code `cancelled` (message.failed each) and stop counting against
     * the plan, in one transaction; dispatched ones stay and may still be reported. The batch settles
     * when its last message is final, and its workflow is told then (the settled signal).
     */
    async cancel(userId: string, id: string, options: { onlyPending?: boolean } = {}): Promise<ShownBatch> {
      await transaction(em(), async (tx) => {
        const batch = await batchesRepository.markCancelled(tx, userId, id, clock.now());
        if (!batch) {
          if (!(await batchesRepository.batchStatusOf(tx, userId, id))) throw notFound('batch');
          throw conflict('batch_finished', 'The send is finished: every message already has its outcome.');
        }
        const moves = await deps.outcomes.failQueued(
          tx,
          reportsRepository.queuedIn(id),
          'cancelled',
          'The send was cancelled before this message was sent.',
        );
        // SMSGate's DELETE /messages/{id}: a send the phone has every message of is not pending (409).
        if (options.onlyPending && moves.length === 0) {
          throw conflict('message_not_pending', 'The message is not pending: the phone has it already.');
        }
        // They were counted when the send was accepted, against that day and month.
        await deps.plans.refundSends(tx, userId, moves.length, batch.createdAt);
      });
      const batch = await batchesRepository.getBatch(em(), userId, id);
      if (!batch) throw notFound('batch');
      return (await shown(userId, [batch]))[0];
    },

    /**
     * POST /v1/messages/{id}/cancel: one message of a send, not yet dispatched, fails with error_code
     * `cancelled` (message.failed) and stops counting against the plan, as the send's cancel does for
     * each of its messages; its batch settles if it was the last open one. Dispatched or final: 409.
     */
    async cancelMessage(userId: string, id: string): Promise<Message> {
      await transaction(em(), async (tx) => {
        const [moved] = await deps.outcomes.failQueued(
          tx,
          reportsRepository.queuedOne(userId, id),
          'cancelled',
          'This message was cancelled before it was sent.',
        );
        if (!moved) {
          if (!(await messagesRepository.getMessage(tx, userId, id))) throw notFound('message');
          throw conflict(
            'message_not_cancellable',
            'The message was handed to the phone or has its outcome: it cannot be cancelled.',
          );
        }
        await deps.plans.refundSends(tx, userId, 1, moved.message.createdAt);
      });
      const message = await messagesRepository.getMessage(em(), userId, id);
      if (!message) throw notFound('message');
      return message;
    },

    /**
     * GET /v1/devices/{id}/estimate: when a send of `recipients` to this phone would start and have
     * its last text go, placed as POST /v1/messages places it (behind the phone's queue, at its pace,
     * within its send window, after a pause for the platform's limit); 0 recipients: when the phone's
     * queue will be empty.
     */
    async estimate(userId: string, deviceId: string, query: EstimateQuery) {
      const place = await devicesRepository.placeOf(em(), userId, deviceId, query.priority === 'high');
      if (!place) throw notFound('device');
      const now = clock.now();
      const from = query.scheduled_at && query.scheduled_at > now ? query.scheduled_at : now;
      const placed = placement({
        sendableAt: from,
        resumeAt: place.pausedUntil,
        ahead: place.ahead,
        count: query.recipients,
        pace: paceOf(place),
        staleWindowMs: deps.staleWindowMs,
        ttlSeconds: null,
      });
      return {
        deviceId,
        recipients: query.recipients,
        ahead: place.ahead,
        secondsPerMessage: placed.perMessageSeconds,
        pausedUntil: place.pausedUntil && place.pausedUntil > now ? place.pausedUntil : null,
        startsAt: from,
        finishesAt: placed.estimate,
      };
    },

    /** GET /v1/batches: newest first, with their per-status counts. */
    async listBatches(userId: string, query: { cursor?: string; limit: number }): Promise<Page<ShownBatch>> {
      const page = await batchesRepository.listBatches(em(), userId, query);
      return { ...page, items: await shown(userId, page.items) };
    },

    async getBatch(userId: string, id: string): Promise<{ batch: ShownBatch; messages: Message[] }> {
      const batch = await batchesRepository.getBatch(em(), userId, id);
      if (!batch) throw notFound('batch');
      return {
        batch: (await shown(userId, [batch]))[0],
        messages: await messagesRepository.messagesOfBatch(em(), userId, id),
      };
    },

    async getMessage(userId: string, id: string): Promise<Message> {
      const message = await messagesRepository.getMessage(em(), userId, id);
      if (!message) throw notFound('message');
      return message;
    },

    /** GET /v1/messages: every filter of the interface, keyset-paginated over (created_at, id). */
    list: (userId: string, query: ListMessagesQuery): Promise<Page<Message>> =>
      messagesRepository.list(
        em(),
        {
          userId,
          deviceIds: query.device_ids ? query.device_ids.split(',').map((id) => id.trim()) : undefined,
          direction: query.direction,
          status: query.status,
          batchId: query.batch_id,
          from: query.from,
          to: query.to,
          q: query.q,
        },
        { cursor: query.cursor, limit: query.limit, order: query.order === 'asc' ? 'asc' : 'desc' },
      ),

    /** GET /v1/stats: paired phones, and texts received and sent (reached the carrier) over all phones, ever. */
    stats: (userId: string) => devicesRepository.statsOf(em(), userId),

    /** GET /v1/stats/daily: the account's outbound texts of each of the last days, by outcome. */
    dailyStats: async (userId: string, query: DailyStatsQuery) => ({
      timezone: query.timezone,
      days: await messagesRepository.dailyCounts(em(), userId, clock.now(), query.days, query.timezone),
    }),
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
