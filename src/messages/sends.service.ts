import { newIds } from '../lib/ids';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sql } from '../db/sql';
import type { AccountsService } from '../accounts/accounts.service';
import type { EventsService } from '../events/events.service';
import type { Clock } from '../lib/clock';
import type { Metrics } from '../metrics/metrics';
import type { PlansService } from '../plans/plans.service';
import type { StartKind, Starter } from '../../temporal/starter';
import type { BatchStart } from './batch-starts';
import { devicesRepository } from '../devices/devices.repository';
import { validationFailed } from '../http/errors';
import type { Batch } from './batch.entity';
import { RECIPIENTS_MAX, type SendBody } from './messages.schemas';
import { createOneStatementSend, fitsOneStatement } from './one-statement-send';
import { createTransactionSend, noDevice } from './transaction-send';
import { newBatch } from './new-batch';
import { normalizeRecipients } from './recipients';
import { distinctCiphertexts } from './encrypted';
import { renderVariables, segmentsOfTexts, textsOfNumbers } from './personalised';

// POST /v1/messages: a send accepted, in one statement when it can be (./one-statement-send.ts), else
// in one short transaction (./transaction-send.ts, the path the one statement must equal).

export interface SendsDeps {
  em: () => EntityManager;
  clock: Clock;
  plans: PlansService;
  accounts: AccountsService;
  starter: Starter;
  batchStarts: StartKind<BatchStart>;
  events: Pick<EventsService, 'emitMany'>;
  /** Which of these E.164 numbers the account's suppression list holds (the opt-outs feature). */
  suppressed: (userId: string, numbers: string[]) => Promise<ReadonlySet<string>>;
  /** A condition that holds when the account suppresses none of these numbers (SQL with its values). */
  noneSuppressed: (userId: string, numbers: string[]) => Sql;
  staleWindowMs: number;
  defaultCountry?: string;
  metrics: Metrics['sends'];
}

/** What a send made by the service itself adds to the request (a retry of a batch's failed texts). */
export interface SendExtras {
  /** Each `to` entry's own text, as a personalised send has them (its body is then the template). */
  texts?: string[];
  /** The batch whose failed texts this send retries. */
  retryOf?: string;
}

export function createSendsService(deps: SendsDeps) {
  const { em, clock } = deps;

  /** After the commit: the send's workflow (a send final as it is made waits for nothing, not even its time). */
  const startWorkflow: (batch: Batch) => void = (batch: Batch) =>
    deps.starter.enqueue(deps.batchStarts, [
      {
        id: batch.id,
        userId: batch.userId,
        deviceId: batch.deviceId,
        scheduledAt: batch.scheduledAt ?? null,
        createdAt: batch.createdAt,
        ttlSeconds: batch.ttlSeconds ?? null,
        settled: batch.status === 'failed',
      },
    ]);

  const transactionSend = createTransactionSend({
    em,
    plans: deps.plans,
    events: deps.events,
    staleWindowMs: deps.staleWindowMs,
    startWorkflow,
  });
  const oneStatementSend = createOneStatementSend({
    em,
    plans: deps.plans,
    noneSuppressed: deps.noneSuppressed,
    staleWindowMs: deps.staleWindowMs,
    startWorkflow,
  });

  return {
    /**
     * What POST /v1/messages checks of its raw body before anything is done per recipient (parsing,
     * validating, normalising: about 15-30 µs each): `to` lists at most RECIPIENTS_MAX entries (422).
     * The account and its plan are asked only of a valid send (send()), whatever its size: an
     * invalid request is refused as invalid (422) before the unverified email (403) or a plan limit
     * (429), as a send of a few recipients is.
     */
    admitSize(to: unknown): void {
      if (Array.isArray(to) && to.length > RECIPIENTS_MAX) {
        throw validationFailed([{ field: 'body.to', message: `to must have at most ${RECIPIENTS_MAX} entries` }]);
      }
    },

    /**
     * POST /v1/messages: plan admission, the phone's outbox places, the batch and every message, as
     * one statement when it can be (./one-statement-send.ts), else one short transaction; its workflow
     * is started after the commit.
     */
    async send(
      userId: string,
      input: SendBody,
      extras: SendExtras = {},
    ): Promise<{ batch: Batch; messageIds: string[] }> {
      // Encrypted numbers cannot be read, so neither normalised nor checked against the suppression list.
      const { numbers, errors, invalidCount } = input.encrypted
        ? { numbers: distinctCiphertexts(input.to), errors: [], invalidCount: 0 }
        : normalizeRecipients(input.to, deps.defaultCountry);
      if (errors.length > 0) throw validationFailed(errors, invalidCount);
      const perEntry = input.variables ? renderVariables(input.body ?? '', input.variables) : extras.texts;
      const texts = perEntry && textsOfNumbers(input.to, perEntry, numbers, deps.defaultCountry);
      const personal = texts ? { texts, segments: segmentsOfTexts(texts).perText } : null;
      const retryOf = extras.retryOf ?? null;
      const suppressedOf = (list: string[]) =>
        input.encrypted ? Promise.resolve(new Set<string>()) : deps.suppressed(userId, list);
      // A send that may be written in one statement has the suppression list checked by that statement;
      // else it is asked beside the phone.
      const inTransaction = em().isInTransaction();
      // Texts of their own, and retries, are written by the transaction only.
      const oneStatement = personal === null && retryOf === null && fitsOneStatement(input, inTransaction);
      // Outside a transaction each read takes a connection of its own and they run side by side;
      // inside one they share its connection, which runs one statement at a time: one after another.
      const reads = [
        () => deps.accounts.assertCanSend(userId),
        () => devicesRepository.sendingDevice(em(), userId, input.device_id),
        () => (oneStatement ? undefined : suppressedOf(numbers)),
      ] as const;
      const [, device, suppressed] = inTransaction
        ? [await reads[0](), await reads[1](), await reads[2]()]
        : await Promise.all([reads[0](), reads[1](), reads[2]()]);
      if (!device) {
        throw noDevice(
          input.device_id
            ? 'That device does not exist, is not paired or is disabled.'
            : 'No paired and enabled phone can take this send.',
        );
      }
      const messageIds = newIds(numbers.length);
      const accepted =
        oneStatement && fitsOneStatement(input, inTransaction, device)
          ? await oneStatementSend.accept(
              newBatch(clock.now(), userId, input, device, numbers, 0),
              input,
              device,
              numbers,
              messageIds,
            )
          : null;
      const result =
        accepted ??
        (await transactionSend.accept(
          clock.now(),
          userId,
          input,
          device,
          numbers,
          messageIds,
          suppressed ?? (await suppressedOf(numbers)),
          personal,
          retryOf,
        ));
      deps.metrics.accepted.inc();
      deps.metrics.recipients.inc(numbers.length);
      return result;
    },
  };
}
