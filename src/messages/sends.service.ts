import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sql } from '../db/sql';
import type { AccountsService } from '../accounts/accounts.service';
import type { EmitInput, EventsService } from '../events/events.service';
import type { Clock } from '../lib/clock';
import type { Metrics } from '../metrics/metrics';
import type { PlansService } from '../plans/plans.service';
import type { StartKind, Starter } from '../../temporal/starter';
import type { BatchStart } from './batch-starts';
import { afterCommit, transaction } from '../db/transaction';
import { devicesRepository, type SendingDevice } from '../devices/devices.repository';
import { conflict, validationFailed } from '../http/errors';
import type { Batch, Priority } from './batch.entity';
import type { Message } from './message.entity';
import { RECIPIENTS_MAX, type SendBody } from './messages.schemas';
import { sendsRepository, PRIORITY_RANK } from './sends.repository';
import { messageView } from './messages.views';
import { OPTED_OUT } from './transitions';
import { paceOf, placement, type Deadlines } from './outbox';
import { createOneStatementSend, fitsOneStatement } from './one-statement-send';
import { normalizeRecipients } from './recipients';
import { countSegments } from './segments';
import { distinctCiphertexts, encryptedPreview } from './encrypted';
import { renderVariables, segmentsOfTexts, textsOfNumbers } from './personalised';

// POST /v1/messages: a send accepted, in one statement when it can be (./one-statement-send.ts), else
// in one short transaction (acceptInTransaction below, the path the one statement must equal).

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

const noDevice = (why: string) => conflict('no_device', why);

/** What a send made by the service itself adds to the request (a retry of a batch's failed texts). */
export interface SendExtras {
  /** Each `to` entry's own text, as a personalised send has them (its body is then the template). */
  texts?: string[];
  /** The batch whose failed texts this send retries. */
  retryOf?: string;
}

/** A send's texts per recipient, when they differ: with their segments. */
interface Personal {
  texts: string[];
  segments: number[];
}

/**
 * An unknown SIM falls back to the phone's preferred one (when the phone reported its SIMs). On a
 * phone that rotates its SIMs (sim_selection) a send naming none has none yet: each message gets
 * one when it is handed out (./sim-selection.ts).
 */
function simFor(device: SendingDevice, requested?: number | null): number | null {
  const fallback = device.simSelection === 'os_default' ? device.preferredSimSubscriptionId : null;
  if (requested === undefined || requested === null) return fallback;
  const known = (device.sims ?? []).map((sim) => sim.subscription_id);
  return known.length === 0 || known.includes(requested) ? requested : fallback;
}

const preview = (numbers: string[]) =>
  numbers.slice(0, 3).join(', ') + (numbers.length > 3 ? ` and ${numbers.length - 3} more` : '');

/** How a data SMS counts: one segment per recipient, sent as bytes. */
const DATA_SEGMENTS = { segments: 1, encoding: 'binary' } as const;

export function createSendsService(deps: SendsDeps) {
  const { em, clock } = deps;

  /** message.failed for each opted-out recipient's message, as it was inserted. */
  async function emitOptedOut(
    tx: EntityManager,
    batch: Batch,
    messageIds: string[],
    recipients: string[],
    optedOut: boolean[],
    personal: Personal | null,
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
        body: personal?.texts[position] ?? batch.body,
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

  /** A send's batch as it is accepted now, `optedOutCount` of its recipients on the suppression list. */
  function newBatch(
    userId: string,
    input: SendBody,
    device: SendingDevice,
    numbers: string[],
    optedOutCount: number,
    personal: Personal | null = null,
    retryOf: string | null = null,
  ) {
    // Ciphertext says nothing of the text's length or alphabet: one segment each, encoding unknown. A
    // data SMS is one SMS, its bytes as given (the SMSGate app counts it one part too). Texts of
    // their own count as the longest of them.
    const { segments, encoding } = input.encrypted
      ? { segments: 1, encoding: 'unknown' }
      : input.data
        ? DATA_SEGMENTS
        : personal
          ? segmentsOfTexts(personal.texts).batch
          : countSegments(input.body ?? '');
    const now = clock.now();
    const scheduledAt = input.scheduled_at ?? null;
    const batch = {
      id: randomUUID(),
      userId,
      deviceId: device.id,
      body: input.data?.base64 ?? input.body ?? '',
      dataPort: input.data?.port ?? null,
      encrypted: input.encrypted,
      status: scheduledAt ? 'scheduled' : 'queued',
      recipientCount: numbers.length,
      recipientPreview: input.encrypted ? encryptedPreview(numbers.length) : preview(numbers),
      segments,
      encoding,
      simSubscriptionId: simFor(device, input.sim_subscription_id),
      priority: input.priority ?? 'normal',
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
      retryOf,
      createdAt: now,
      updatedAt: now,
    } satisfies Batch as Batch;
    // Every recipient opted out: the send is final as it is made. Otherwise it is queued (or scheduled):
    // nothing is dispatched yet.
    if (optedOutCount === numbers.length)
      Object.assign(batch, { status: 'failed', completedAt: now, error: 'Every recipient has opted out.' });
    return batch;
  }

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

  /** Any send, in one short transaction (plan admission, the phone's outbox places, the batch and its messages). */
  async function acceptInTransaction(
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
    const batch = newBatch(userId, input, device, numbers, optedOutCount, personal, retryOf);
    const now = batch.createdAt;
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
      if (optedOutCount > 0) await emitOptedOut(tx, batch, messageIds, numbers, optedOut, personal);
      afterCommit(tx, () => startWorkflow(batch));
    });
    return { batch, messageIds };
  }

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
      const messageIds = numbers.map(() => randomUUID());
      const accepted =
        oneStatement && fitsOneStatement(input, inTransaction, device)
          ? await oneStatementSend.accept(
              newBatch(userId, input, device, numbers, 0),
              input,
              device,
              numbers,
              messageIds,
            )
          : null;
      const result =
        accepted ??
        (await acceptInTransaction(
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
