import { setTimeout as delay } from 'node:timers/promises';
import { context as traceContext, type Context as TraceContext } from '@opentelemetry/api';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Background } from '../src/lib/background';
import type { Clock } from '../src/lib/clock';
import type { Logger } from '../src/lib/logger';
import type { Metrics } from '../src/metrics/metrics';
import type { Sweep } from '../src/reconciler/reconciler.service';
import type { Tracing } from '../src/traces/tracing';

/**
 * One kind of workflow that a committed row asks for (a batch, a webhook delivery, a phone's
 * liveness). The row is the durable record that the workflow is needed; the starter starts it right
 * after the commit, and the reconciler starts whatever a crash left behind.
 */
export interface StartKind<T extends { id: string }> {
  name: string;
  /** The workflow type it starts (the metrics' label). */
  workflowType: string;
  /**
   * Starts one workflow with an id derived from the row: a repeat must be a no-op. `options` go into
   * the start call as they are (the search attributes operators filter by). A `workflow.start`
   * returns whether the server handed its first task to this process's worker.
   */
  start(temporal: Client, item: T, options: StartOptions): Promise<{ eagerlyStarted: boolean } | void>;
  /** The search attributes the workflow starts with (workflows/search-attributes.ts). */
  searchAttributes(item: T): SearchAttributePair[];
  /** Records, in one statement, that these rows' workflows run. */
  markStarted(ids: string[]): Promise<void>;
  /** Rows committed before `before` whose workflow was never recorded as started. */
  unstarted(before: Date, limit: number): Promise<T[]>;
  /**
   * Rows that share one workflow (a webhook's deliveries, its queue): the rows queued together with
   * the same key make one start call, the first row's, and are all recorded when it succeeds.
   */
  groupKey?(item: T): string;
  /**
   * The least time between two rounds of starts: the rows committed meanwhile wait and share the
   * next round (with groupKey: one signal per workflow per round, not one per row). A row after a
   * quiet spell goes at once.
   */
  pauseMs?: number;
  /**
   * How long the record of a round's starts (`markStarted`) waits for the next rounds' starts, to
   * record them all in one statement (sends one after another each start one workflow); the starts
   * themselves are not held up. The record only keeps the reconciler from starting them again (a
   * start repeated is a no-op), so it may lag.
   */
  recordAfterMs?: number;
}

/** What the starter adds to every start. */
export interface StartOptions {
  typedSearchAttributes: SearchAttributePair[];
  /**
   * For `workflow.start` (signal-with-start has no eager form): set where the client shares the
   * connection of a worker in this process, which then gets the first workflow task in the start's
   * answer (eager start) instead of polling it from the server.
   */
  requestEagerStart: boolean;
}

export interface StarterDeps {
  temporal: Client;
  logger: Logger;
  clock: Clock;
  background: Background;
  metrics: Metrics['workflows'];
  /** How long a row may wait for its normal start before the reconciler starts it. */
  graceMs?: number;
  /** With tracing on, each start runs in the trace context of the request or activity that queued it. */
  tracing?: Tracing;
  /** The client shares the connection of this process's worker (temporal/worker.ts connectWorkerClient). */
  eagerStart?: boolean;
}

/** A kind's rows waiting for their start, and the started ones waiting for their record. */
interface Queue {
  items: Queued<unknown>[];
  pumping: boolean;
  lastRoundAt: number;
  unrecorded: string[];
  recording: boolean;
}

/** A row waiting for its start, with the trace context it was queued in (tracing on only). */
interface Queued<T> {
  item: T;
  trace?: TraceContext;
}

export const START_DEADLINE_MS = 5000;
const PARALLEL_STARTS = 32;
const CHUNK = 256;
// Grouped rows cost one start per group: a round takes more of them.
const GROUPED_CHUNK = 4096;
const SWEEP_LIMIT = 500;

/**
 * The one place that starts workflows after a commit: requests enqueue what they committed and
 * answer at once; a pump per kind starts them concurrently and records them in batches.
 */
export function createStarter(deps: StarterDeps) {
  const graceMs = deps.graceMs ?? 30_000;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- kinds of any row shape share one map
  const queues = new Map<StartKind<any>, Queue>();

  async function startOne<T extends { id: string }>(kind: StartKind<T>, { item, trace }: Queued<T>): Promise<boolean> {
    try {
      // Bounded: an unreachable Temporal must not pile up work; the reconciler retries later.
      const options: StartOptions = {
        typedSearchAttributes: kind.searchAttributes(item),
        requestEagerStart: deps.eagerStart ?? false,
      };
      const start = () =>
        deps.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () => kind.start(deps.temporal, item, options));
      // Starts are made after the commit, outside the request: the span of the start (and so the
      // workflow's) joins the trace of the request or activity that queued it.
      const started = await (trace ? traceContext.with(trace, start) : start());
      deps.metrics.starts.inc({ workflow_type: kind.workflowType, result: 'started' });
      if (started?.eagerlyStarted) deps.metrics.eagerStarts.inc({ workflow_type: kind.workflowType });
      return true;
    } catch (error) {
      // Already ran to its end: started is all we needed to know.
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        deps.metrics.starts.inc({ workflow_type: kind.workflowType, result: 'already_started' });
        return true;
      }
      deps.metrics.starts.inc({ workflow_type: kind.workflowType, result: 'failed' });
      deps.logger.warn(
        { err: error, kind: kind.name, id: item.id },
        'workflow not started or signalled; its row, if it records one, lets the reconciler repair it',
      );
      return false;
    }
  }

  /** Rows that one start serves: each row alone, or grouped by the kind's key. */
  function groupsOf<T extends { id: string }>(kind: StartKind<T>, items: Queued<T>[]): Queued<T>[][] {
    if (!kind.groupKey) return items.map((queued) => [queued]);
    const groups = new Map<string, Queued<T>[]>();
    for (const queued of items) {
      const key = kind.groupKey(queued.item);
      const group = groups.get(key);
      if (group) group.push(queued);
      else groups.set(key, [queued]);
    }
    return [...groups.values()];
  }

  /** Starts these rows' workflows, PARALLEL_STARTS at a time; the ids of the rows whose workflow runs. */
  async function startGroups<T extends { id: string }>(kind: StartKind<T>, items: Queued<T>[]): Promise<string[]> {
    const started: string[] = [];
    const groups = groupsOf(kind, items);
    let next = 0;
    const lane = async () => {
      while (next < groups.length) {
        const group = groups[next++];
        if (await startOne(kind, group[0])) started.push(...group.map((queued) => queued.item.id));
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_STARTS, groups.length) }, lane));
    return started;
  }

  /** Starts these rows' workflows and records the ones that run. */
  async function startQueued<T extends { id: string }>(kind: StartKind<T>, items: Queued<T>[]): Promise<number> {
    const started = await startGroups(kind, items);
    if (started.length > 0) await kind.markStarted(started);
    return started.length;
  }

  const startAll = <T extends { id: string }>(kind: StartKind<T>, items: T[]): Promise<number> =>
    startQueued(
      kind,
      items.map((item) => ({ item })),
    );

  async function pump<T extends { id: string }>(kind: StartKind<T>): Promise<void> {
    const queue = queues.get(kind)!;
    const chunk = kind.groupKey ? GROUPED_CHUNK : CHUNK;
    try {
      while (queue.items.length > 0) {
        const wait = queue.lastRoundAt + (kind.pauseMs ?? 0) - Date.now();
        if (wait > 0) await delay(wait);
        queue.lastRoundAt = Date.now();
        const started = await startGroups(kind, queue.items.splice(0, chunk) as Queued<T>[]);
        queue.unrecorded.push(...started);
        if (!kind.recordAfterMs || queue.unrecorded.length >= chunk) {
          if (queue.unrecorded.length > 0) await kind.markStarted(queue.unrecorded.splice(0));
        } else if (queue.unrecorded.length > 0 && !queue.recording) {
          // The rounds of the next recordAfterMs share this record; their starts are not held up.
          queue.recording = true;
          const after = kind.recordAfterMs;
          deps.background.run(`${kind.name} start records`, async () => {
            await delay(after);
            queue.recording = false;
            if (queue.unrecorded.length > 0) await kind.markStarted(queue.unrecorded.splice(0));
          });
        }
      }
    } finally {
      queue.pumping = false;
    }
  }

  return {
    /** After the commit that made these rows: start their workflows without holding up the caller. */
    enqueue<T extends { id: string }>(kind: StartKind<T>, items: T[]): void {
      if (items.length === 0) return;
      let queue = queues.get(kind);
      if (!queue)
        queues.set(kind, (queue = { items: [], pumping: false, lastRoundAt: 0, unrecorded: [], recording: false }));
      // Off: nothing is captured (no context manager is installed to ask).
      const trace = deps.tracing ? traceContext.active() : undefined;
      for (const item of items) queue.items.push({ item, trace });
      if (queue.pumping) return;
      queue.pumping = true;
      deps.background.run(`${kind.name} workflow starts`, () => pump(kind));
    },

    /** Starts now and waits (the reconciler, and callers that must know). */
    startAll,

    /** The reconciler's pass for one kind: rows left without their workflow after the grace period. */
    sweep<T extends { id: string }>(kind: StartKind<T>, graceOverrideMs?: number): Sweep {
      return {
        name: kind.name,
        run: async () => {
          const before = new Date(deps.clock.now().getTime() - (graceOverrideMs ?? graceMs));
          return startAll(kind, await kind.unstarted(before, SWEEP_LIMIT));
        },
      };
    },

    /** Resolves when every enqueued start has been made or has failed. */
    idle: () => deps.background.idle(),
  };
}

export type Starter = ReturnType<typeof createStarter>;
