import type { EntityManager } from '@mikro-orm/postgresql';
import { afterCommit, transaction } from '../db/transaction';
import { devicesRepository, type OutboxSettlement } from '../devices/devices.repository';
import { DRAINED_CHANNEL } from '../devices/phone-channel';
import type { EmitInput, EventsService } from '../events/events.service';
import type { Clock } from '../lib/clock';
import type { Metrics } from '../metrics/metrics';
import type { StartKind, Starter } from '../../temporal/starter';
import type { BatchStart } from './batch-starts';
import type { BatchStatus } from './batch.entity';
import type { MessageStatus } from './message.entity';
import type { Moved } from './messages.repository';
import type { Sql } from '../db/sql';
import { batchesRepository, type AlsoAfterCounting } from './batches.repository';
import { outboxRepository } from './outbox.repository';
import { reportsRepository, type StatusChange } from './reports.repository';
import { messageView } from './messages.views';
import { counterOf, reportMoves, type BatchCounter, type BatchCounts, type ReportedStatus } from './transitions';
import type { Message } from './message.entity';
import { isPlatformLimit, type PlatformLimit } from './platform-limit';

export interface OutcomesDeps {
  em: () => EntityManager;
  clock: Clock;
  events: EventsService;
  /** Settled batches' workflows are told through their start (signal-with-start). */
  starter: Pick<Starter, 'enqueue'>;
  batchStarts: StartKind<BatchStart>;
  /** Messaging listens for phones that stop taking sends. */
  metrics: Pick<Metrics['messages'], 'outcomes' | 'staleMarked'> & Pick<Metrics['phone'], 'reports'>;
  /** Texts the phone's platform refused for its limit are held back, not failed (./platform-limit.ts). */
  platformLimit: PlatformLimit;
}

export interface Report {
  id: string;
  status: ReportedStatus;
  at: Date;
  errorCode?: string | null;
  errorMessage?: string | null;
  /**
   * The id the phone knows the send by, when it names one (the SMSGate app): a report of an attempt
   * the platform refused and that was handed out again since is of no attempt still open, and ignored.
   */
  sendId?: string;
}

/** A report's answer: the message after it, or why it was refused. */
export type ReportResult = { id: string; message: Message } | { id: string; error: 'not_found' };

const EVENT_OF: Partial<
  Record<MessageStatus, 'message.sent' | 'message.delivered' | 'message.failed' | 'message.unknown'>
> = {
  sent: 'message.sent',
  delivered: 'message.delivered',
  failed: 'message.failed',
  unknown: 'message.unknown',
};

const OPEN: ReadonlySet<MessageStatus> = new Set(['queued', 'dispatched']);
const FINAL: ReadonlySet<BatchStatus> = new Set(['completed', 'failed']);
const REACHED_CARRIER: ReadonlySet<MessageStatus> = new Set(['sent', 'delivered']);

/**
 * What follows message moves, set-based, in the caller's transaction: the batches' counters and
 * statuses, the phones' queue depth and sent counters, and the events (transactional outbox).
 */
export function createOutcomesService(deps: OutcomesDeps) {
  const { clock } = deps;

  /** Tells finished batches' workflows they can end now (they would find out at their next wake). */
  function signalSettled(tx: EntityManager, batches: BatchCounts[]): void {
    if (batches.length === 0) return;
    const now = clock.now();
    const settled = batches.map((b): BatchStart => ({
      id: b.id,
      userId: b.userId,
      deviceId: b.deviceId,
      scheduledAt: null,
      createdAt: now,
      ttlSeconds: null,
      settled: true,
    }));
    afterCommit(tx, () => deps.starter.enqueue(deps.batchStarts, settled));
  }

  /**
   * Moves batches' counters (none: settles them as they are), with `also` in the same statement;
   * signals the batches that just became final.
   */
  async function count(
    tx: EntityManager,
    deltas: Map<string, Partial<Record<BatchCounter, number>>>,
    also: AlsoAfterCounting = {},
  ): Promise<string[]> {
    const batches = await batchesRepository.addToCounters(tx, deltas, clock.now(), also);
    const final = batches.filter((b) => FINAL.has(b.status) && !FINAL.has(b.statusBefore));
    signalSettled(tx, final);
    return final.map((b) => b.id);
  }

  /**
   * Everything that follows a set of moves (each message with the status it came from); with
   * `drainedOn`, that phone is told to fetch again if it holds nothing and has work (phone channel).
   */
  async function follow(tx: EntityManager, moves: Moved[], drainedOn?: string): Promise<void> {
    const deltas = new Map<string, Partial<Record<BatchCounter, number>>>();
    const outboxes = new Map<string, OutboxSettlement>();
    const events: EmitInput[] = [];
    const reached = new Map<MessageStatus, number>();
    for (const { message, from } of moves) {
      const to = message.status;
      if (to === from) continue;
      if (EVENT_OF[to]) reached.set(to, (reached.get(to) ?? 0) + 1);
      if (message.batchId) {
        const batch = deltas.get(message.batchId) ?? {};
        const old = counterOf(from);
        const next = counterOf(to);
        if (old) batch[old] = (batch[old] ?? 0) - 1;
        if (next) batch[next] = (batch[next] ?? 0) + 1;
        deltas.set(message.batchId, batch);
      }
      // Only released messages hold a place in the outbox (a scheduled batch's have no deadline yet).
      const left = OPEN.has(from) && !OPEN.has(to) && message.staleAt !== null ? 1 : 0;
      const sent = REACHED_CARRIER.has(to) && !REACHED_CARRIER.has(from) ? 1 : 0;
      if (left || sent) {
        const outbox = outboxes.get(message.deviceId) ?? { deviceId: message.deviceId, left: 0, leftHigh: 0, sent: 0 };
        outbox.left += left;
        if (message.priority > 0) outbox.leftHigh = (outbox.leftHigh ?? 0) + left;
        outbox.sent += sent;
        outboxes.set(message.deviceId, outbox);
      }
      const name = EVENT_OF[to];
      if (name) {
        events.push({
          userId: message.userId,
          name,
          data: messageView(message),
          messageId: message.id,
          deviceId: message.deviceId,
        });
      }
    }
    const emitted = deps.events.staged(events);
    await count(tx, deltas, {
      after: [(after) => devicesRepository.settled([...outboxes.values()], after), emitted.insert],
      select:
        drainedOn === undefined ? undefined : outboxRepository.drainedNotice(DRAINED_CHANNEL, drainedOn, clock.now()),
    });
    await emitted.publish(tx);
    if (reached.size > 0) {
      afterCommit(tx, () => {
        for (const [status, count] of reached) deps.metrics.outcomes.inc({ status }, count);
      });
    }
  }

  /**
   * Fails the queued messages a condition selects, saying why, with everything that follows (events,
   * counters, settled batches); dispatched ones may still be reported. Returns the moves.
   */
  async function failQueued(tx: EntityManager, where: Sql, code: string, text: string): Promise<Moved[]> {
    const moves = await reportsRepository.moveOpen(tx, where, 'failed', clock.now(), { code, message: text });
    await follow(tx, moves);
    return moves;
  }

  /** Fails what is still queued for a phone (dispatched ones may still be reported). */
  async function failQueuedForDevice(tx: EntityManager, deviceId: string, code: string, text: string): Promise<void> {
    await failQueued(tx, reportsRepository.queuedOn(deviceId), code, text);
  }

  /** A disabled or unpaired phone takes no more sends: what is still queued for it fails, saying why. */
  function failQueuedForStopped(tx: EntityManager, device: { id: string }, why: 'disabled' | 'unpaired') {
    return why === 'disabled'
      ? failQueuedForDevice(tx, device.id, 'device_disabled', 'The phone was disabled before sending this message.')
      : failQueuedForDevice(tx, device.id, 'device_unpaired', 'The phone was unpaired before sending this message.');
  }

  /** A report's move, with its own timestamp and any error it carries. */
  const changeOf = (report: Report): StatusChange => ({
    id: report.id,
    status: report.status,
    at: report.at,
    ...(report.errorCode !== undefined ? { errorCode: report.errorCode } : {}),
    ...(report.errorMessage !== undefined ? { errorMessage: report.errorMessage } : {}),
  });

  /** Whether a move hands a message back from the phone (it no longer holds it open). */
  const handsBack = ({ message, from }: Moved) => from === 'dispatched' && !OPEN.has(message.status);

  /** Every message of the phone's a report named, as it is once the reports are applied. */
  type Applied = Map<string, Message>;

  /** Reports of distinct messages, none the platform's refusal, in one statement, and what follows. */
  async function applyAtOnce(tx: EntityManager, deviceId: string, reports: Report[]): Promise<Applied> {
    const { moved, unmoved } = await reportsRepository.applyReports(
      tx,
      deviceId,
      reports.map((report) => ({ ...changeOf(report), sendId: report.sendId })),
      clock.now(),
    );
    await follow(tx, moved, moved.some(handsBack) ? deviceId : undefined);
    return new Map([...unmoved, ...moved.map(({ message }) => message)].map((m) => [m.id, m]));
  }

  /**
   * Any reports: the messages locked, the platform's refusals held back, then rounds of at most one
   * change per message, so each keeps its own timestamp and event; a message reported twice moves in order.
   */
  async function applyInRounds(
    tx: EntityManager,
    deviceId: string,
    reports: Report[],
    ids: string[],
  ): Promise<Applied> {
    const owned = await reportsRepository.lockOwned(tx, deviceId, ids);
    const current = new Map(owned.map((message) => [message.id, message]));
    // A report of an attempt handed out again since says nothing of the open one.
    const open = reports.filter((report) => {
      const message = current.get(report.id);
      return message && (report.sendId === undefined || report.sendId === (message.sendId ?? message.id));
    });
    // The platform's limit refused these: held back to go again after a pause, not failed.
    const refused = open.filter((report) => isPlatformLimit(report));
    const held = await deps.platformLimit.holdBack(tx, deviceId, [...new Set(refused.map((r) => r.id))], clock.now());
    if (held.length > 0) {
      for (const message of await reportsRepository.lockOwned(tx, deviceId, held)) current.set(message.id, message);
    }
    let pending = open.filter((report) => !isPlatformLimit(report));
    let returned = false;
    while (pending.length > 0) {
      const round = new Map<string, StatusChange>();
      const later: Report[] = [];
      for (const report of pending) {
        if (round.has(report.id)) later.push(report);
        else if (reportMoves(current.get(report.id)!.status, report.status)) round.set(report.id, changeOf(report));
      }
      const updated = await reportsRepository.applyChanges(tx, [...round.values()], clock.now());
      const moves = updated.map((message) => ({ message, from: current.get(message.id)!.status }));
      if (moves.some(handsBack)) returned = true;
      // The phone is told it drained once, after the last round.
      await follow(tx, moves, returned && later.length === 0 ? deviceId : undefined);
      for (const message of updated) current.set(message.id, message);
      pending = later;
    }
    return current;
  }

  return {
    follow,
    failQueued,
    failQueuedForDevice,
    failQueuedForStopped,

    /** Settles one batch from its current counts (a release after some messages failed meanwhile). */
    async settleBatch(tx: EntityManager, batchId: string): Promise<boolean> {
      return (await count(tx, new Map([[batchId, {}]]))).length > 0;
    },

    /**
     * A phone's outcome reports, applied as one set: idempotent, never backwards, only for the
     * phone that owns the message. A message reported twice in one set moves in order.
     */
    async report(deviceId: string, reports: Report[]): Promise<ReportResult[]> {
      const results = await transaction(deps.em(), async (tx) => {
        const ids = new Set(reports.map((r) => r.id));
        // Each message reported once, none refused by the platform's limit (the common report): one
        // statement locks, moves and returns them; else the rounds below.
        // A phone that pulls only when told (the SMSGate app: once per MessageEnqueued, else every 15
        // minutes) and has reported the last of its page is told of the rest (`follow`'s `drainedOn`).
        const current =
          ids.size === reports.length && !reports.some((report) => isPlatformLimit(report))
            ? await applyAtOnce(tx, deviceId, reports)
            : await applyInRounds(tx, deviceId, reports, [...ids]);
        // Each answer is the message once the whole set is applied (a repeat or a step back changes nothing).
        return reports.map((report): ReportResult => {
          const message = current.get(report.id);
          return message ? { id: report.id, message } : { id: report.id, error: 'not_found' };
        });
      });
      results.forEach((result, i) =>
        deps.metrics.reports.inc({ status: reports[i].status, result: 'message' in result ? 'ok' : 'not_found' }),
      );
      return results;
    },

    /** Marks a batch's lapsed messages unknown (message.unknown each). */
    async markLapsed(tx: EntityManager, batchId: string): Promise<number> {
      const now = clock.now();
      const moves = await reportsRepository.moveOpen(tx, reportsRepository.lapsedIn(batchId, now), 'unknown', now);
      await follow(tx, moves);
      if (moves.length > 0) afterCommit(tx, () => deps.metrics.staleMarked.inc(moves.length));
      return moves.length;
    },
  };
}

export type OutcomesService = ReturnType<typeof createOutcomesService>;
