import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTimeSkippingEnv } from '../support/temporal';

// The rule of docs/workflows.md, "Changing workflow code", on a workflow of its own
// (fixtures/patching/): a change behind patched(), then deprecatePatch(), then no call, each deploy
// replaying the histories the one before it left running, and what breaks when a step is skipped.
const STEPS = ['before', 'patched', 'deprecated', 'removed'] as const;
type Step = (typeof STEPS)[number];
type History = temporal.api.history.v1.IHistory;

describe('changing workflow code in three deploys', () => {
  let env: TestWorkflowEnvironment;
  const bundles = {} as Record<Step, { code: string }>;
  const recorded = {} as Record<Step, History>;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    for (const step of STEPS) {
      const bundle = await bundleWorkflowCode({
        workflowsPath: path.join(__dirname, 'fixtures', 'patching', `${step}.ts`),
        logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
      });
      bundles[step] = { code: bundle.code };
    }
    // A run of each deploy's code, to the end (time skipping makes its minutes instant).
    for (const step of STEPS) {
      const taskQueue = `patching-${step}`;
      const worker = await Worker.create({
        connection: env.nativeConnection,
        namespace: env.namespace ?? 'default',
        taskQueue,
        workflowBundle: bundles[step],
      });
      recorded[step] = await worker.runUntil(async () => {
        const handle = await env.client.workflow.start('waitingWorkflow', {
          taskQueue,
          workflowId: `patching-${step}-${randomUUID()}`,
        });
        await handle.result();
        return handle.fetchHistory();
      });
    }
  }, 180_000);
  afterAll(async () => {
    await env?.teardown();
  });

  /** The error replaying `history` with `step`'s code raises, or undefined. */
  async function replay(step: Step, history: History): Promise<unknown> {
    try {
      await Worker.runReplayHistory({ workflowBundle: bundles[step] }, history);
      return undefined;
    } catch (error) {
      return error;
    }
  }

  it('breaks running workflows when the change is made without a patch', async () => {
    expect(await replay('removed', recorded.before)).toBeInstanceOf(DeterminismViolationError);
  });

  it('deploy 1, patched(): histories from before the change replay on the old branch', async () => {
    expect(await replay('patched', recorded.before)).toBeUndefined();
    expect(await replay('patched', recorded.patched)).toBeUndefined();
  });

  it('deploy 2, deprecatePatch(): histories of deploy 1 replay', async () => {
    expect(await replay('deprecated', recorded.patched)).toBeUndefined();
  });

  it('skipping deploy 2 breaks the histories of deploy 1 on their patch marker', async () => {
    const error = await replay('removed', recorded.patched);
    expect(error).toBeInstanceOf(DeterminismViolationError);
    expect((error as Error).message).toMatch(/Non-deprecated patch marker encountered for change wait-twice/);
  });

  it('deploy 3, no patch call: histories of deploy 2 replay', async () => {
    expect(await replay('removed', recorded.deprecated)).toBeUndefined();
    expect(await replay('removed', recorded.removed)).toBeUndefined();
  });
});
