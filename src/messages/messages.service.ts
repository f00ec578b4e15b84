import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountsService } from '../accounts/accounts.service';
import type { EmitInput, EventsService } from '../events/events.service';
import { afterCommit, transaction } from '../db/transaction';
import { devicesRepository, type SendingDevice } from '../devices/devices.repository';
import { conflict, notFound, validationFailed } from '../http/errors';
import type { Page } from '../http/pagination';
import type { Clock } from '../lib/clock';
import type { Metrics } from '../metrics/metrics';
import type { PlansService } from '../plans/plans.service';
import type { StartKind, Starter } from '../../temporal/starter';
import type { Batch, Priority } from './batch.entity';
import type { BatchStart } from './batch-starts';
import type { Message } from './message.entity';
import type { ListMessagesQuery, SendBody } from './messages.schemas';
import { messagesRepository, PRIORITY_RANK } from './messages.repository';
import type { OutcomesService } from './outcomes.service';
import { messageView } from './messages.views';
import { OPTED_OUT } from './transitions';
import { paceOf, placement, type Deadlines } from './queue';
import { normalizeRecipients } from './recipients';
import { countSegments } from './segments';

export interface MessagesDeps {
  em: () => EntityManager;
  clock: Clock;
  plans: PlansService;
  accounts: AccountsService;
  starter: Starter;
  batchStarts: StartKind<BatchStart>;
  /** Cancelling fails messages through the one path of message moves. */
  outcomes: Pick<OutcomesService, 'failQueued'>;
  events: Pick<EventsService, 'emitMany'>;
  /** Which of these E.164 numbers the account's suppression list holds (the opt-outs feature). */
  suppressed: (userId: string, numbers: string[]) => Promise<ReadonlySet<string>>;
  staleWindowMs: number;
  defaultCountry?: string;
  metrics: Metrics['sends'];
}

const noDevice = (why: string) => conflict('no_device', why);

/** An unknown SIM falls back to the phone's preferred one (when the phone reported its SIMs). */
function simFor(device: SendingDevice, requested?: number | null): number | null {
  if (requested === undefined || requested === null) return device.preferred_sim_subscription_id;
  const known = (device.sims ?? []).map((sim) => sim.subscription_id);
  return known.length === 0 || known.includes(requested) ? requested : device.preferred_sim_subscription_id;
}

const preview = (numbers: string[]) =>
  numbers.slice(0, 3).join(', ') + (numbers.length > 3 ? ` and ${numbers.length - 3} more` : '');

export function createMessagesService(deps: MessagesDeps) {
  const { em, clock } = deps;

  /** message.failed for each opted-out recipient's message, as it was inserted. */
  async function emitOptedOut(
    tx: EntityManager,
    batch: Batch,
    messageIds: string[],
    recipients: string[],
    optedOut: boolean[],
  ): Promise<void> {
    const events: EmitInput[] = [];
    optedOut.forEach((out, position) => {
      if (!out) return;
      const message = {
        id: messageIds[position],
        userId: batch.userId,
        batchId: batch.id,
        deviceId: batch.deviceId,
        direction: 'outbound',
        status: 'failed',
        body: batch.body,
        recipient: recipients[position],
        sender: null,
        simSubscriptionId: batch.simSubscriptionId ?? null,
        segments: batch.segments,
        position,
        fingerprint: null,
        priority: PRIORITY_RANK[batch.priority as Priority],
        errorCode: OPTED_OUT.code,
        errorMessage: OPTED_OUT.message,
        availableAt: null,
        staleAt: null,
        dispatchedAt: null,
        sentAt: null,
        deliveredAt: null,
        failedAt: batch.createdAt,
        receivedAt: null,
        createdAt: batch.createdAt,
        updatedAt: batch.createdAt,
      } satisfies Message as Message;
      events.push({
        userId: batch.userId,
        name: 'message.failed',
        data: messageView(message),
        messageId: message.id,
        deviceId: message.deviceId,
      });
    });
    await deps.events.emitMany(tx, events);
  }

  return {
    /**
     * POST /v1/messages: one short transaction (plan admission, the phone's queue places, the batch
     * and every message in one statement each); its workflow is started after the commit.
     */
    async send(userId: string, input: SendBody): Promise<{ batch: Batch; messageIds: string[] }> {
      const { numbers, errors } = normalizeRecipients(input.to, deps.defaultCountry);
      if (errors.length > 0) throw validationFailed(errors);
      const [, device, suppressed] = await Promise.all([
        deps.accounts.assertCanSend(userId),
        devicesRepository.sendingDevice(em(), userId, input.device_id),
        deps.suppressed(userId, numbers),
      ]);
      if (!device) {
        throw noDevice(
          input.device_id
            ? 'That device does not exist, is not paired or is disabled.'
            : 'No paired and enabled phone can take this send.',
        );
      }
      const { segments, encoding } = countSegments(input.body);
      const now = clock.now();
      const scheduledAt = input.scheduled_at ?? null;
      const messageIds = numbers.map(() => randomUUID());
      // Recipients on the account's suppression list get a message that failed at once (`opted_out`),
      // not counted against the plan and holding no place in the phone's queue.
      const optedOut = numbers.map((number) => suppressed.has(number));
      const optedOutCount = optedOut.filter(Boolean).length;
      const sendable = numbers.length - optedOutCount;
      const batch = {
        id: randomUUID(),
        userId,
        deviceId: device.id,
        body: input.body,
        status: scheduledAt ? 'scheduled' : 'queued',
        recipientCount: numbers.length,
        recipientPreview: preview(numbers),
        segments,
        encoding,
        simSubscriptionId: simFor(device, input.sim_subscription_id),
        priority: input.priority,
        ttlSeconds: input.ttl_seconds ?? null,
        dispatchedCount: 0,
        sentCount: 0,
        deliveredCount: 0,
        failedCount: optedOutCount,
        unknownCount: 0,
        scheduledAt,
        estimatedCompletionAt: null as Date | null,
        completedAt: null,
        error: null,
        cancelledAt: null,
        workflowStartedAt: null,
        createdAt: now,
        updatedAt: now,
      } satisfies Batch as Batch;
      // Every recipient opted out: the send is final as it is made. Otherwise it is queued (or scheduled):
      // nothing is dispatched yet.
      if (sendable === 0)
        Object.assign(batch, { status: 'failed', completedAt: now, error: 'Every recipient has opted out.' });

      await transaction(em(), async (tx) => {
        await deps.plans.admitSends(tx, userId, sendable);
        let deadlines: Deadlines | null = null;
        if (!scheduledAt) {
          const queue = await devicesRepository.reserveQueue(tx, device.id, sendable, input.priority === 'high');
          if (!queue) throw noDevice('That device was disabled or unpaired meanwhile.');
          const { estimate, ...placed } = placement({
            sendableAt: now,
            ahead: queue.ahead,
            count: sendable,
            pace: paceOf(queue),
            staleWindowMs: deps.staleWindowMs,
            ttlSeconds: batch.ttlSeconds ?? null,
          });
          deadlines = placed;
          if (sendable > 0) batch.estimatedCompletionAt = estimate;
        }
        await messagesRepository.insertSend(tx, {
          batch,
          messageIds,
          recipients: numbers,
          optedOut: optedOutCount > 0 ? optedOut : undefined,
          deadlines,
        });
        if (optedOutCount > 0) await emitOptedOut(tx, batch, messageIds, numbers, optedOut);
        // A send final as it is made has nothing to wait for, not even its scheduled time.
        const final = batch.status === 'failed';
        afterCommit(tx, () =>
          deps.starter.enqueue(deps.batchStarts, [
            {
              id: batch.id,
              scheduledAt: final ? null : scheduledAt,
              accountId: batch.userId,
              deviceId: batch.deviceId,
            },
          ]),
        );
      });
      deps.metrics.accepted.inc();
      deps.metrics.recipients.inc(numbers.length);
      return { batch, messageIds };
    },

    /**
     * POST /v1/batches/{id}/cancel: the send's messages not yet dispatched (queued, or waiting for
     * scheduled_at) fail with error_code `cancelled` (message.failed each) and stop counting against
     * the plan, in one transaction; dispatched ones stay and may still be reported. The batch settles
     * when its last message is final, and its workflow is told then (the settled signal).
     */
    async cancel(userId: string, id: string): Promise<Batch> {
      await transaction(em(), async (tx) => {
        const batch = await messagesRepository.markCancelled(tx, userId, id, clock.now());
        if (!batch) {
          if (!(await messagesRepository.batchStatusOf(tx, userId, id))) throw notFound('batch');
          throw conflict('batch_finished', 'The send is finished: every message already has its outcome.');
        }
        const moves = await deps.outcomes.failQueued(
          tx,
          messagesRepository.queuedIn(id),
          'cancelled',
          'The send was cancelled before this message was sent.',
        );
        // They were counted when the send was accepted, against that day and month.
        await deps.plans.refundSends(tx, userId, moves.length, batch.createdAt);
      });
      const batch = await messagesRepository.getBatch(em(), userId, id);
      if (!batch) throw notFound('batch');
      return batch;
    },

    /** GET /v1/batches: newest first, with their per-status counts. */
    listBatches: (userId: string, query: { cursor?: string; limit: number }) =>
      messagesRepository.listBatches(em(), userId, query),

    async getBatch(userId: string, id: string): Promise<{ batch: Batch; messages: Message[] }> {
      const batch = await messagesRepository.getBatch(em(), userId, id);
      if (!batch) throw notFound('batch');
      return { batch, messages: await messagesRepository.messagesOfBatch(em(), userId, id) };
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
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
