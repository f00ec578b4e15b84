// The one-statement send: the fast path of POST /v1/messages. Its slow path, which it must equal, is
// ./transaction-send.ts (one short transaction: plan admission, the phone's
// outbox places, the batch and its messages). For the same send on the same state both write the
// same batch, the same messages with the same places and deadlines, the same usage and queue
// counts, and refuse with the same error; when the phone or the suppression list is not as this
// statement needs, it writes nothing and the transaction decides.
//
// Why it exists: with the phone's lookup it is two round trips where the transaction takes six, and
// the statement is prepared, so each connection parses and plans it once (docs/performance.md, "A
// common send is one statement"). test/messages/one-statement-send.test.ts runs both on the same sends.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sql } from '../db/sql';
import { inOneStatement } from '../db/transaction';
import { oneAtATime } from '../lib/one-at-a-time';
import { devicesRepository, type SendingDevice } from '../devices/devices.repository';
import type { PlansService } from '../plans/plans.service';
import type { Batch } from './batch.entity';
import type { SendBody } from './messages.schemas';
import { paceOf } from './outbox';
import { placementInSend, sendsRepository } from './sends.repository';

export interface OneStatementSendDeps {
  em: () => EntityManager;
  plans: Pick<PlansService, 'admission' | 'refusal'>;
  /** A condition that holds when the account suppresses none of these numbers (SQL with its values). */
  noneSuppressed: (userId: string, numbers: string[]) => Sql;
  staleWindowMs: number;
  /** After the commit: the send's workflow. */
  startWorkflow: (batch: Batch) => void;
}

/**
 * Whether a send may take the one statement: not scheduled, not inside a larger transaction (an
 * Idempotency-Key's), and (once the phone is known) to a phone without a send window, whose uneven
 * deadlines only the transaction computes.
 */
export const fitsOneStatement = (input: SendBody, inTransaction: boolean, device?: SendingDevice): boolean =>
  !input.scheduled_at && !inTransaction && !device?.sendWindow;

export function createOneStatementSend(deps: OneStatementSendDeps) {
  const { em } = deps;
  // Sends to one phone take its row lock in turn. Met there, each waiter's statement is checked
  // again whole against the row the one before it wrote (its every step set up anew), which costs
  // more Postgres CPU than a send of 100 writes; met here, they wait the same and run once.
  const perPhone = oneAtATime();
  return {
    /**
     * `batch` (as newBatch made it, none opted out) and its messages in one statement. Null when the
     * phone or the suppression list is not as that needs (nothing written): the transaction then
     * decides. A plan's refusal is thrown as the transaction throws it.
     */
    async accept(
      batch: Batch,
      input: SendBody,
      device: SendingDevice,
      numbers: string[],
      messageIds: string[],
    ): Promise<{ batch: Batch; messageIds: string[] } | null> {
      const { userId } = batch;
      const placed = placementInSend({
        sendableAt: batch.createdAt,
        count: numbers.length,
        pace: paceOf(device),
        staleWindowMs: deps.staleWindowMs,
        ttlSeconds: batch.ttlSeconds ?? null,
      });
      const outcome = await perPhone(device.id, () =>
        inOneStatement(
          em(),
          () =>
            sendsRepository.acceptSend(
              em(),
              {
                batch,
                messageIds,
                recipients: numbers,
                deadlines: { perMessageSeconds: placed.perMessageSeconds, staleAts: null, ttlAt: placed.ttlAt },
              },
              {
                lockDevice: devicesRepository.lockForSend(
                  device.id,
                  device,
                  deps.noneSuppressed(userId, input.encrypted ? [] : numbers),
                  batch.createdAt,
                ),
                admit: (guard) => deps.plans.admission(userId, numbers.length, guard),
                takePlaces: (locked, when) =>
                  devicesRepository.takePlaces(locked, numbers.length, input.priority === 'high', when),
                firstStaleAt: placed.firstStaleAt,
                estimate: placed.estimate,
              },
            ),
          (written) => {
            if (written.device && written.admitted) deps.startWorkflow(batch);
          },
        ),
      );
      if (!outcome.device) return null;
      if (!outcome.admitted) throw await deps.plans.refusal(userId, numbers.length);
      batch.estimatedCompletionAt = outcome.estimatedCompletionAt;
      return { batch, messageIds };
    },
  };
}
