import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker, type ReplayResult } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { BatchInput } from '../../workflows/definitions';
import { activityNames, quietRuntime } from '../support/temporal';

// Histories recorded from real runs (test/workflows/histories/*.bin, protobuf-encoded; `npm run
// histories:record` re-records the scenarios of scenarios.ts). Each must replay with today's workflow
// code: a change that would break a running workflow fails here, and needs patched() or a new
// workflow type (docs/workflows.md, "Changing workflow code"). A patched change keeps the histories
// the old code recorded as <scenario>.pre-<patch>.bin beside the new recordings, until the patch is
// deprecated.
const dir = path.join(__dirname, 'histories');
// The replay worker logs the determinism errors the last tests provoke; they are the expected outcome.
quietRuntime();
const load = (file: string): HistoryAndWorkflowId => ({
  workflowId: file,
  history: temporal.api.history.v1.History.decode(readFileSync(path.join(dir, file))),
});
const files = readdirSync(dir).filter((file) => file.endsWith('.bin'));

/** Every workflow type and the branches of it the recordings must cover. */
const COVERED = [
  'batch-settled.bin',
  'batch-scheduled-settled.bin',
  'batch-scheduled-cancelled.bin',
  'batch-continue-as-new.run1.bin',
  'batch-continue-as-new.run2.bin',
  // Started before the start said its delay in its input (workflows/batch.ts, DELAYED_START): they
  // asked patched() and carry its marker.
  'batch-settled.pre-delayed-start-input.bin',
  'batch-scheduled-settled.pre-delayed-start-input.bin',
  'batch-scheduled-cancelled.pre-delayed-start-input.bin',
  'batch-continue-as-new.run1.pre-delayed-start-input.bin',
  'batch-continue-as-new.run2.pre-delayed-start-input.bin',
  // Recorded before the delayed start (workflows/batch.ts, DELAYED_START): batches that began then.
  'batch-scheduled-settled.pre-delayed-start.bin',
  'batch-scheduled-cancelled.pre-delayed-start.bin',
  'batch-continue-as-new.run1.pre-delayed-start.bin',
  'batch-continue-as-new.run2.pre-delayed-start.bin',
  'queue-delivered.bin',
  'queue-retried.bin',
  'queue-rejected.bin',
  'queue-abandoned.bin',
  'queue-deleted.bin',
  'queue-continue-as-new.run1.bin',
  'queue-continue-as-new.run2.bin',
  'queue-continue-as-new.run3.bin',
  'liveness-offline-online.bin',
  'liveness-continue-as-new.run1.bin',
  'liveness-continue-as-new.run2.bin',
  'reconciler.bin',
];

async function replayAll(workflowBundle: { codePath: string } | { code: string }, histories: HistoryAndWorkflowId[]) {
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) results.push(result);
  return results;
}

const eventTypes = (file: string) =>
  (load(file).history as temporal.api.history.v1.IHistory).events!.map(
    (e) => temporal.api.enums.v1.EventType[e.eventType!],
  );

/** The activities a recorded history ran, activity tasks and local ones alike. */
const activities = (file: string) => activityNames(load(file).history as temporal.api.history.v1.IHistory);

describe('recorded workflow histories replay with the current code', () => {
  it('has a recording of every scenario', () => {
    expect(files).toEqual(expect.arrayContaining(COVERED));
  });

  it('recorded the branches their names say', () => {
    const last = (file: string) => eventTypes(file).at(-1);
    const continued = [
      'batch-continue-as-new.run1.bin',
      'batch-continue-as-new.run1.pre-delayed-start-input.bin',
      'batch-continue-as-new.run1.pre-delayed-start.bin',
      'liveness-continue-as-new.run1.bin',
      'queue-continue-as-new.run1.bin',
      'queue-continue-as-new.run2.bin',
      'reconciler.bin',
    ];
    for (const file of continued) expect(last(file), file).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
    for (const file of COVERED.filter((f) => !continued.includes(f))) {
      expect(last(file), file).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    }
    // A queue's history grows with its passes and signals, not with its deliveries' attempts.
    expect(eventTypes('queue-rejected.bin').filter((t) => t === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')).toHaveLength(3);
    // Search attributes kept current: an upsert at each change of state.
    expect(eventTypes('queue-abandoned.bin')).toContain('EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES');
    expect(eventTypes('batch-scheduled-settled.bin')).toContain('EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES');
    // A batch's activities run in its workflow tasks: markers, no activity tasks.
    const activityTasks = (file: string) =>
      eventTypes(file).filter((t) => t === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED').length;
    const workflowTasks = (file: string) =>
      eventTypes(file).filter((t) => t === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED').length;
    const patches = (file: string) =>
      (load(file).history as temporal.api.history.v1.IHistory).events!.filter(
        (e) => e.markerRecordedEventAttributes?.markerName === 'core_patch',
      ).length;
    for (const file of [
      'batch-scheduled-settled.bin',
      'batch-continue-as-new.run1.bin',
      'batch-scheduled-settled.pre-delayed-start.bin',
      'batch-continue-as-new.run1.pre-delayed-start.bin',
    ]) {
      expect(activityTasks(file), file).toBe(0);
    }
    // Before the delayed start: the first task (at the start) woke the phone and swept; a scheduled
    // batch waited on a timer for its time, and a cancelled one was ended by the signal with one sweep.
    for (const file of [
      'batch-scheduled-settled.pre-delayed-start.bin',
      'batch-continue-as-new.run1.pre-delayed-start.bin',
    ]) {
      expect(patches(file), file).toBe(0);
      expect(activities(file), file).toEqual(expect.arrayContaining(['wakeBatchDevice', 'sweepBatch']));
    }
    expect(activities('batch-scheduled-settled.pre-delayed-start.bin')[0]).toBe('releaseBatch');
    expect(activities('batch-scheduled-cancelled.pre-delayed-start.bin')).toEqual(['sweepBatch']);
    // Since: started with a delay (no task until the first deadline or the send's time), the phone
    // woken by the send itself. Settled before that (or cancelled before its time), the settled
    // signal-with-start ends the delay and the workflow ends in its one task, with no activity.
    for (const file of [
      'batch-settled.bin',
      'batch-scheduled-cancelled.bin',
      'batch-settled.pre-delayed-start-input.bin',
      'batch-scheduled-cancelled.pre-delayed-start-input.bin',
    ]) {
      const started = (load(file).history as temporal.api.history.v1.IHistory).events![0];
      expect(started.workflowExecutionStartedEventAttributes?.firstWorkflowTaskBackoff?.seconds, file).toBeTruthy();
      expect(eventTypes(file)[1], file).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED');
      expect(workflowTasks(file), file).toBe(1);
      expect(activities(file), file).toEqual([]);
    }
    // A start that says its delay in its input asks no patch: no marker, no upsert of the patch's
    // search attribute. A batch settled before its first deadline is then its start, the signal, one
    // task and the completion.
    const delayedStart = (file: string) =>
      defaultPayloadConverter.fromPayload<BatchInput>(
        (load(file).history as temporal.api.history.v1.IHistory).events![0].workflowExecutionStartedEventAttributes!
          .input!.payloads![0],
      ).delayedStart;
    for (const file of COVERED.filter((f) => f.startsWith('batch-') && !f.includes('.pre-'))) {
      expect(delayedStart(file), file).toBe(true);
      expect(patches(file), file).toBe(0);
    }
    for (const file of COVERED.filter((f) => f.endsWith('.pre-delayed-start-input.bin'))) {
      expect(delayedStart(file), file).toBeUndefined();
      expect(patches(file), file).toBe(1);
    }
    expect(eventTypes('batch-settled.bin')).toEqual([
      'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
      'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED',
      'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED',
      'EVENT_TYPE_WORKFLOW_TASK_STARTED',
      'EVENT_TYPE_WORKFLOW_TASK_COMPLETED',
      'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
    ]);
    // Released at its time in its first task, which wakes the phone; the signal ends it without a sweep.
    expect(activities('batch-scheduled-settled.bin')).toEqual(['releaseBatch', 'wakeBatchDevice', 'sweepBatch']);
    expect(workflowTasks('batch-scheduled-settled.bin')).toBe(2);
    // Sent at once: nobody reports, so it sweeps at each deadline from the first, never woken by it.
    expect(activities('batch-continue-as-new.run1.bin')).not.toContain('wakeBatchDevice');
  });

  it('replays every one without a determinism error', async () => {
    const results = await replayAll({ codePath: inject('workflowBundlePath') }, files.map(load));
    expect(results.map((r) => r.workflowId).sort()).toEqual([...files].sort());
    expect(results.filter((r) => r.error).map((r) => `${r.workflowId}: ${r.error}`)).toEqual([]);
  });
});

describe('a non-deterministic change to a workflow', () => {
  // fixtures/reordered-batch.ts: the batch workflow releasing a scheduled send before its wait
  // instead of after; the other workflows as they are (fixtures/reordered-workflows.ts).
  const fixtures = path.join(__dirname, 'fixtures');
  let reordered: { code: string };

  beforeAll(async () => {
    const bundle = await bundleWorkflowCode({
      workflowsPath: path.join(fixtures, 'reordered-workflows.ts'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    });
    reordered = { code: bundle.code };
  });

  it('is workflows/batch.ts with the release moved before the wait, nothing else', () => {
    const moved = '      await releaseBatch(input.batchId); // DELIBERATELY MOVED: released before the wait\n';
    const release = '        await releaseBatch(input.batchId);\n';
    // Everything after the imports (whose paths differ), so a reformat of both files keeps them equal.
    const code = (text: string) => text.slice(text.indexOf('\nconst '));
    const fixture = code(readFileSync(path.join(fixtures, 'reordered-batch.ts'), 'utf8'));
    expect(fixture).toContain(moved);
    const stale =
      'fixtures/reordered-batch.ts is out of date: copy workflows/batch.ts over it (keeping its header and ' +
      'import paths) and move the release of a scheduled batch up before its wait again, marked';
    const batch = code(readFileSync(path.join(__dirname, '..', '..', 'workflows', 'batch.ts'), 'utf8'));
    expect(batch.split(release)).toHaveLength(2);
    expect(fixture.replace(moved, ''), stale).toBe(batch.replace(release, ''));
  });

  it('fails to replay a history that went through the changed code', async () => {
    const [result] = await replayAll(reordered, [load('batch-scheduled-settled.pre-delayed-start.bin')]);
    expect(result.error).toBeInstanceOf(DeterminismViolationError);
  });

  it('leaves a history that never reached it replaying', async () => {
    // A batch sent at once is never released, and one started with a delay is released on another
    // path: the reordering is on neither.
    const results = await replayAll(reordered, [
      load('batch-continue-as-new.run1.pre-delayed-start.bin'),
      load('batch-scheduled-settled.bin'),
    ]);
    expect(results.map((r) => r.error)).toEqual([undefined, undefined]);
  });
});
