import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountsService } from '../accounts/accounts.service';
import { afterCommit, transaction } from '../db/transaction';
import { devicesRepository, type SendingDevice } from '../devices/devices.repository';
import { conflict, notFound, validationFailed } from '../http/errors';
import type { Page } from '../http/pagination';
import type { Clock } from '../lib/clock';
import type { PlansService } from '../plans/plans.service';
import type { StartKind, Starter } from '../../temporal/starter';
import type { Batch } from './batch.entity';
import type { BatchStart } from './batch-starts';
import type { Message } from './message.entity';
import type { ListMessagesQuery, SendBody } from './messages.schemas';
import { messagesRepository } from './messages.repository';
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
  staleWindowMs: number;
  defaultCountry?: string;
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

  return {
    /**
     * POST /v1/messages: one short transaction (plan admission, the phone's queue places, the batch
     * and every message in one statement each); its workflow is started after the commit.
     */
    async send(userId: string, input: SendBody): Promise<{ batch: Batch; messageIds: string[] }> {
      const { numbers, errors } = normalizeRecipients(input.to, deps.defaultCountry);
      if (errors.length > 0) throw validationFailed(errors);
      const [, device] = await Promise.all([
        deps.accounts.assertCanSend(userId),
        devicesRepository.sendingDevice(em(), userId, input.device_id),
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
        failedCount: 0,
        unknownCount: 0,
        scheduledAt,
        estimatedCompletionAt: null as Date | null,
        completedAt: null,
        error: null,
        workflowStartedAt: null,
        createdAt: now,
        updatedAt: now,
      } satisfies Batch as Batch;

      await transaction(em(), async (tx) => {
        await deps.plans.admitSends(tx, userId, numbers.length);
        let deadlines: Deadlines | null = null;
        if (!scheduledAt) {
          const queue = await devicesRepository.reserveQueue(tx, device.id, numbers.length, input.priority === 'high');
          if (!queue) throw noDevice('That device was disabled or unpaired meanwhile.');
          const { estimate, ...placed } = placement({
            sendableAt: now,
            ahead: queue.ahead,
            count: numbers.length,
            pace: paceOf(queue),
            staleWindowMs: deps.staleWindowMs,
            ttlSeconds: batch.ttlSeconds ?? null,
          });
          deadlines = placed;
          batch.estimatedCompletionAt = estimate;
        }
        await messagesRepository.insertSend(tx, { batch, messageIds, recipients: numbers, deadlines });
        afterCommit(tx, () => deps.starter.enqueue(deps.batchStarts, [{ id: batch.id, scheduledAt }]));
      });
      return { batch, messageIds };
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
