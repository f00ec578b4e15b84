import type { EntityManager } from '@mikro-orm/postgresql';
import type { EmitInput, EventsService } from '../events/events.service';
import type { PlansService } from '../plans/plans.service';
import { afterCommit, transaction } from '../db/transaction';
import { devicesRepository, type SendingDevice } from '../devices/devices.repository';
import { conflict } from '../http/errors';
import type { Batch, Priority } from './batch.entity';
import type { Message } from './message.entity';
import type { SendBody } from './messages.schemas';
import { sendsRepository, PRIORITY_RANK } from './sends.repository';
import { messageView } from './messages.views';
import { OPTED_OUT } from './transitions';
import { paceOf, placement, type Deadlines } from './outbox';
import { newBatch, type Personal } from './new-batch';

// Any send, in one short transaction: the path every send can take, and the one ./one-statement-send.ts
// must equal where it applies.

export const noDevice = (why: string) => conflict('no_device', why);

/** message.failed for each opted-out recipient's message, as it was inserted. */
async function emitOptedOut(
  events: Pick<EventsService, 'emitMany'>,
  tx: EntityManager,
  batch: Batch,
  messageIds: string[],
  recipients: string[],
  optedOut: boolean[],
  personal: Personal | null,
): Promise<void> {
  const messages: EmitInput[] = [];
  optedOut.forEach((out, position) => {
    if (!out) return;
    const message = {
      id: messageIds[position],
      userId: batch.userId,
      batchId: batch.id,
      deviceId: batch.deviceId,
      direction: 'outbound',
      status: 'failed',
      body: personal?.texts[position] ?? batch.body,
      bodyFromBatch: !personal,
      encrypted: batch.encrypted,
      dataPort: batch.dataPort ?? null,
      recipient: recipients[position],
      sender: null,
      simSubscriptionId: batch.simSubscriptionId ?? null,
      segments: personal?.segments[position] ?? batch.segments,
      position,
      fingerprint: null,
      priority: PRIORITY_RANK[batch.priority as Priority],
      errorCode: OPTED_OUT.code,
      errorMessage: OPTED_OUT.message,
      availableAt: null,
      staleAt: null,
      dispatchedAt: null,
      heldAt: null,
      sendId: null,
      sentAt: null,
      deliveredAt: null,
      failedAt: batch.createdAt,
      receivedAt: null,
      createdAt: batch.createdAt,
      updatedAt: batch.createdAt,
    } satisfies Message as Message;
    messages.push({
      userId: batch.userId,
      name: 'message.failed',
      data: messageView(message),
      messageId: message.id,
      deviceId: message.deviceId,
    });
  });
  await events.emitMany(tx, messages);
}

export interface TransactionSendDeps {
  em: () => EntityManager;
  plans: PlansService;
  events: Pick<EventsService, 'emitMany'>;
  staleWindowMs: number;
  /** After the commit: the send's workflow. */
  startWorkflow: (batch: Batch) => void;
}

export function createTransactionSend(deps: TransactionSendDeps) {
  const { em } = deps;
  return {
    /** Any send, in one short transaction (plan admission, the phone's outbox places, the batch and its messages). */
    async accept(
      now: Date,
      userId: string,
      input: SendBody,
      device: SendingDevice,
      numbers: string[],
      messageIds: string[],
      suppressed: ReadonlySet<string>,
      personal: Personal | null,
      retryOf: string | null,
    ): Promise<{ batch: Batch; messageIds: string[] }> {
      // Recipients on the account's suppression list get a message that failed at once (`opted_out`),
      // not counted against the plan and holding no place in the phone's outbox.
      const optedOut = numbers.map((number) => suppressed.has(number));
      const optedOutCount = optedOut.filter(Boolean).length;
      const sendable = numbers.length - optedOutCount;
      const batch = newBatch(now, userId, input, device, numbers, optedOutCount, personal, retryOf);
      const scheduledAt = batch.scheduledAt ?? null;
      await transaction(em(), async (tx) => {
        await deps.plans.admitSends(tx, userId, sendable);
        let deadlines: Deadlines | null = null;
        if (!scheduledAt) {
          const place = await devicesRepository.reserveOutbox(tx, device.id, sendable, input.priority === 'high');
          if (!place) throw noDevice('That device was disabled or unpaired meanwhile.');
          const { estimate, ...placed } = placement({
            sendableAt: now,
            resumeAt: place.pausedUntil,
            ahead: place.ahead,
            count: sendable,
            pace: paceOf(place),
            staleWindowMs: deps.staleWindowMs,
            ttlSeconds: batch.ttlSeconds ?? null,
          });
          deadlines = placed;
          if (sendable > 0) batch.estimatedCompletionAt = estimate;
        }
        await sendsRepository.insertSend(tx, {
          batch,
          messageIds,
          recipients: numbers,
          optedOut: optedOutCount > 0 ? optedOut : undefined,
          deadlines,
          texts: personal ?? undefined,
        });
        if (optedOutCount > 0) await emitOptedOut(deps.events, tx, batch, messageIds, numbers, optedOut, personal);
        afterCommit(tx, () => deps.startWorkflow(batch));
      });
      return { batch, messageIds };
    },
  };
}

export type TransactionSend = ReturnType<typeof createTransactionSend>;
