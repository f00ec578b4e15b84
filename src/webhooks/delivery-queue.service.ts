import { setMaxListeners } from 'node:events';
import { Agent } from 'node:https';
import type { EntityManager } from '@mikro-orm/postgresql';
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryAttemptOutcome, QueuePass, QueuePassInput } from '../../workflows/definitions';
import type { DeliveryStatusValue } from '../../workflows/search-attributes';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import type { SecretBox } from '../lib/secret-box';
import { transaction } from '../db/transaction';
import { statusClass, type Metrics } from '../metrics/metrics';
import { contextOf } from '../traces/tracing';
import { ABANDONED, answered2xx, pauseIfFailing, refused, signedHeaders } from './attempt-rules';
import { attemptsRepository } from './attempts.repository';
import { postOnce, type PostOptions, type PostResult } from './outbound';
import {
  deliveryQueueRepository,
  type AttemptRecord,
  type QueuedDelivery,
  type DeliveryQueueWebhook,
} from './delivery-queue.repository';
import { webhooksRepository } from './webhooks.repository';

// How a pass over one webhook's queue runs. The batch bounds one record's statements; the
// concurrency is how many requests one endpoint receives from us at once.
const BATCH = 100;
const CONCURRENCY = 32;
// A pass ends after this much work (wall clock), so its activity and history stay short.
const PASS_MS = 60_000;
// A busy queue keeps its pass a moment after it empties: new deliveries are then taken without a
// signal, a workflow task and another activity each time. A quiet one hands back at once.
const BUSY_AFTER = 10;
const LINGER_MS = 1000;
const POLL_MS = 100;

export interface DeliveryQueueDeps {
  /** A fresh EntityManager per call (activities never share one). */
  em: () => EntityManager;
  /** Timestamps of the record (tests follow the Temporal test server's time with it). */
  clock: Clock;
  logger: Logger;
  allowPrivateNetworks: boolean;
  /** Plain http receivers on this machine are posted to (WEBHOOK_ALLOW_LOOPBACK_HTTP). */
  allowLoopbackHttp?: boolean;
  /** Opens signing secrets sealed at rest (SECRETS_KEY). */
  secretBox: SecretBox;
  metrics: Metrics['webhooks'];
  /** 30 s by the interface; shorter in tests of the timeout itself. */
  timeoutMs?: number;
  post?: (options: PostOptions) => Promise<PostResult>;
  /** Pauses between attempts (WEBHOOK_RETRY_SCHEDULE): n pauses, n + 1 attempts. */
  retryScheduleMs: readonly number[];
  /** Set only when tracing is on: a WebhookAttempt span per attempt, in its delivery's trace. */
  tracer?: Tracer;
}

interface Sent {
  row: QueuedDelivery;
  attempt: number;
  startedAt: Date;
  result: PostResult;
}

type Recorded = { sent: Sent; outcome: DeliveryAttemptOutcome };

/**
 * Records attempts as they end, by group commit: one transaction at a time, each taking every
 * attempt that ended while the one before ran. A crash then loses at most those of one transaction
 * (sent again with the same attempt number), not the whole batch's.
 */
function groupRecorder(write: (group: Sent[]) => Promise<Recorded[]>) {
  const pending: Sent[] = [];
  const recorded: Recorded[] = [];
  let running: Promise<void> | null = null;
  let failure: unknown = null;
  function kick() {
    if (running || pending.length === 0) return;
    running = write(pending.splice(0))
      .then(
        (done) => void recorded.push(...done),
        (error: unknown) => void (failure ??= error),
      )
      .finally(() => {
        running = null;
        kick();
      });
  }
  return {
    add(sent: Sent) {
      pending.push(sent);
      kick();
    },
    /** Every added attempt's outcome once all are recorded; the first failure to record, if any. */
    async settled(): Promise<Recorded[]> {
      while (running) await running;
      if (failure) throw failure;
      return recorded;
    },
  };
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * The deliveries of one webhook, attempted by its queue workflow: each pass takes the open ones
 * that are due, oldest first, a batch at a time (concurrent requests over connections kept alive
 * for the pass), and records the attempts as they end, those that ended together in one transaction
 * (groupRecorder): the attempt rows, the deliveries' states, the webhook's counters and the
 * auto-pause rule. Every attempt is numbered per delivery, recorded once, and never moves a delivery
 * backwards; a request sent but not recorded (a crash) is sent again with the same attempt number.
 */
export function createDeliveryQueueService(deps: DeliveryQueueDeps) {
  const post = deps.post ?? postOnce;
  const timeoutMs = deps.timeoutMs ?? 30_000;
  const schedule = deps.retryScheduleMs;

  /** When the next attempt is due after this one, counted from when this one was due. */
  function nextDue(row: QueuedDelivery, attempt: number, startedAt: Date): Date | null {
    if (attempt > schedule.length) return null;
    const due = row.status === 'retrying' && row.nextAttemptAt ? new Date(row.nextAttemptAt) : startedAt;
    return new Date(due.getTime() + schedule[attempt - 1]);
  }

  /**
   * The attempt's span, in the trace that queued its delivery (one queue pass serves many traces),
   * linked to the pass that made it.
   */
  function attemptSpan(row: QueuedDelivery) {
    if (!deps.tracer || !row.traceParent) return undefined;
    const pass = trace.getSpanContext(context.active());
    return deps.tracer.startSpan(
      'WebhookAttempt',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'webhook.delivery_id': row.id, 'webhook.event': row.event },
        links: pass ? [{ context: pass }] : [],
      },
      contextOf(row.traceParent),
    );
  }

  /** Records a batch of attempts; returns each recorded one's outcome (another execution's are left out). */
  async function record(webhookId: string, url: string, sent: Sent[]): Promise<Recorded[]> {
    return transaction(deps.em(), async (tx) => {
      // Serialises the records of one webhook's attempts with its pause, disable and delete.
      const webhook = await attemptsRepository.lockWebhook(tx, webhookId);
      const now = deps.clock.now();
      const draft = sent.map((s) => ({ s, ok: answered2xx(s.result.status) }));
      const attempts: AttemptRecord[] = draft.map(({ s, ok }) => ({
        deliveryId: s.row.id,
        attempt: s.attempt,
        url,
        ok,
        httpStatus: s.result.status,
        excerpt: s.result.excerpt,
        error: s.result.error,
        startedAt: s.startedAt,
        durationMs: s.result.durationMs,
        status: ok ? 'delivered' : 'failed',
        nextAttemptAt: null,
        deliveredAt: null,
        abandonedAt: null,
      }));
      const inserted = await deliveryQueueRepository.insertAttempts(tx, webhookId, attempts);
      const mine = attempts.filter((a) => inserted.has(a.deliveryId));
      if (mine.length === 0) return [];
      await deliveryQueueRepository.countOnWebhook(tx, webhookId, mine);

      const live = Boolean(webhook && !webhook.deletedAt);
      const paused =
        mine.some((a) => !a.ok) && webhook?.enabled && live
          ? await pauseIfFailing(
              tx,
              deps.logger,
              webhookId,
              mine.map((a) => a.deliveryId),
              now,
            )
          : false;
      const bySent = new Map(draft.map(({ s }) => [s.row.id, s]));
      const outcomes = mine.map((a) => {
        const s = bySent.get(a.deliveryId)!;
        if (a.ok) {
          a.deliveredAt = now;
          return { sent: s, outcome: 'delivered' as const };
        }
        // A ping reaches a disabled webhook; anything else ends with it.
        const reachable = live && (webhook!.enabled || s.row.event === 'ping');
        const next = nextDue(s.row, s.attempt, s.startedAt);
        // A redelivery of a delivery still open is one attempt: the original keeps its retries.
        const retry = reachable && !paused && !refused(a.httpStatus, a.attempt) && next !== null && !s.row.repeatsOpen;
        if (paused) a.error ??= ABANDONED.paused;
        a.status = retry ? 'retrying' : 'failed';
        a.nextAttemptAt = retry ? next : null;
        a.abandonedAt = retry ? null : now;
        const outcome: DeliveryAttemptOutcome = retry ? 'retry' : !reachable || paused ? 'abandoned' : 'stopped';
        return { sent: s, outcome };
      });
      await deliveryQueueRepository.recordOnDeliveries(tx, mine);
      await deliveryQueueRepository.settleOriginals(
        tx,
        mine.flatMap((a) => {
          const original = bySent.get(a.deliveryId)!.row.redeliveryOf;
          return a.ok && original ? [{ original, redelivery: a.deliveryId }] : [];
        }),
        now,
      );
      return outcomes;
    });
  }

  /** One batch: what cannot be sent ends now, the rest is sent and recorded. */
  async function attemptBatch(
    webhook: DeliveryQueueWebhook,
    rows: QueuedDelivery[],
    agent: Agent,
    signal: AbortSignal | undefined,
  ): Promise<DeliveryAttemptOutcome[]> {
    const outcomes: DeliveryAttemptOutcome[] = [];
    const sendable: QueuedDelivery[] = [];
    for (const row of rows) {
      if (row.secret && (webhook.enabled || row.event === 'ping')) {
        sendable.push(row);
        continue;
      }
      const reason = row.secret ? ABANDONED.disabled : 'the signing secret is missing';
      await webhooksRepository.abandonOne(deps.em(), row.id, reason, deps.clock.now());
      deps.metrics.attempts.inc({ outcome: 'stopped', response: 'not_sent' });
      outcomes.push(row.secret ? 'abandoned' : 'stopped');
    }

    const recorder = groupRecorder((group) => record(webhook.id, webhook.url, group));
    await eachLimited(sendable, CONCURRENCY, async (row) => {
      const startedAt = deps.clock.now();
      const span = attemptSpan(row);
      const result = await post({
        url: webhook.url,
        body: row.body,
        headers: signedHeaders({ ...row, secret: row.secret! }, deps.secretBox),
        timeoutMs,
        allowPrivateNetworks: deps.allowPrivateNetworks,
        allowLoopbackHttp: deps.allowLoopbackHttp,
        signal,
        agent,
      });
      span?.setAttributes({
        'webhook.attempt': row.attemptCount + 1,
        ...(result.status === null ? {} : { 'http.response.status_code': result.status }),
      });
      if (result.error) span?.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
      span?.end();
      // Cancelled (the worker stopping): an attempt cut short is not recorded, the retried activity
      // sends it again. One that ended first is recorded as it ended.
      if (!signal?.aborted) recorder.add({ row, attempt: row.attemptCount + 1, startedAt, result });
    });
    const recorded = await recorder.settled();
    if (signal?.aborted) throw signal.reason ?? new Error('queue pass cancelled');

    for (const { sent: s, outcome } of recorded) {
      const response = s.result.status === null ? 'error' : statusClass(s.result.status);
      deps.metrics.attempts.inc({ outcome, response });
      deps.metrics.attemptDuration.observe({ response }, s.result.durationMs / 1000);
      deps.logger.debug(
        { delivery_id: s.row.id, attempt: s.attempt, http_status: s.result.status, outcome },
        'webhook attempt',
      );
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /** What the pass leaves for its workflow. */
  async function summary(webhookId: string, last: DeliveryAttemptOutcome | null): Promise<QueuePass> {
    // Read again: the pass's last batch may have paused it.
    const webhook = await deliveryQueueRepository.webhook(deps.em(), webhookId);
    const open = await deliveryQueueRepository.open(deps.em(), webhookId);
    const nextDueAtMs = open.nextRetryAt?.getTime() ?? null;
    let status: DeliveryStatusValue | null = null;
    if (!webhook?.enabled) status = 'abandoned';
    else if (nextDueAtMs !== null) status = 'retrying';
    else if (open.pending > 0) status = 'pending';
    else if (last) status = last === 'delivered' ? 'delivered' : last === 'stopped' ? 'failed' : 'abandoned';
    return { due: open.pending > 0, nextDueAtMs, status, ended: false };
  }

  return {
    /** One pass over the webhook's queue (the activity of workflows/webhook-queue.ts). */
    async pass({ webhookId, dueByMs }: QueuePassInput, signal?: AbortSignal): Promise<QueuePass> {
      const began = Date.now();
      let attempted = 0;
      let idleSince: number | null = null;
      let last: DeliveryAttemptOutcome | null = null;
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      // Each request in flight listens for the cancellation (and the pause between polls does):
      // CONCURRENCY listeners at once are expected, not the leak Node warns of past 10.
      if (signal) setMaxListeners(CONCURRENCY + 1, signal);
      try {
        for (;;) {
          if (signal?.aborted) throw signal.reason ?? new Error('queue pass cancelled');
          const webhook = await deliveryQueueRepository.webhook(deps.em(), webhookId);
          if (!webhook || webhook.deletedAt) {
            // Deleting ended its deliveries already; this catches any that raced the delete.
            if (webhook)
              await webhooksRepository.abandonOpen(deps.em(), webhookId, ABANDONED.deleted, deps.clock.now());
            return { due: false, nextDueAtMs: null, status: 'abandoned', ended: true };
          }
          const now = Math.max(deps.clock.now().getTime(), dueByMs);
          const rows = await deliveryQueueRepository.due(deps.em(), webhookId, new Date(now), BATCH);
          if (rows.length > 0) {
            idleSince = null;
            const outcomes = await attemptBatch(webhook, rows, agent, signal);
            attempted += outcomes.length;
            last = outcomes.at(-1) ?? last;
            if (Date.now() - began >= PASS_MS) return await summary(webhookId, last);
            continue;
          }
          idleSince ??= Date.now();
          const busy = attempted >= BUSY_AFTER && Date.now() - began < PASS_MS;
          if (!busy || Date.now() - idleSince >= LINGER_MS) return await summary(webhookId, last);
          await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
        }
      } finally {
        agent.destroy();
      }
    },
  };
}

export type DeliveryQueueService = ReturnType<typeof createDeliveryQueueService>;
