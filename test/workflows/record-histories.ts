// `npm run histories:record` (this file under test/workflows/histories.config.mts): runs every
// scenario of scenarios.ts on the time-skipping server and writes the histories of its closed runs to
// test/workflows/histories/<scenario>.bin (<scenario>.run<n>.bin when it continued as new), each a
// protobuf-encoded temporal.api.history.v1.History. `npm run histories:record -- -t <name>` records
// one. Histories kept under other names (recorded by older code, *.pre-<patch>.bin) are left alone.
// (Binary rather than the CLI's JSON: the SDK's JSON converter fails in this install, where npm keeps
// two copies of protobufjs 8 under @temporalio/common and @temporalio/proto.)
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import type { Receiver } from '../webhooks/receiver';
import { scenarios, type ScenarioContext } from './scenarios';

const dir = path.join(__dirname, 'histories');
type History = temporal.api.history.v1.IHistory;
const { EventType } = temporal.api.enums.v1;

describe('record workflow histories', () => {
  let stack: WorkflowStack;
  const receivers: Receiver[] = [];
  const context = (): ScenarioContext => ({ env: stack.env, app: stack.app, receivers });

  beforeAll(async () => {
    stack = await startWorkflowStack({
      logger: createLogger('error'),
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'histories' },
    });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.close();
  });

  /** Every run of the workflow, first to last, but one an operator terminated. */
  async function closedRuns(workflowId: string): Promise<History[]> {
    const runs: History[] = [];
    let runId: string | undefined = (await stack.env.client.workflow.getHandle(workflowId).describe()).runId;
    while (runId) {
      const history = await stack.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
      runs.unshift(history);
      runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    }
    return runs.filter((run) => run.events?.at(-1)?.eventType !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED);
  }

  it.each(Object.keys(scenarios))(
    'records %s',
    async (name) => {
      const run = await scenarios[name](context());
      const runs = await closedRuns(run.workflowId);
      expect(runs.length).toBeGreaterThan(0);
      const mine = new RegExp(`^${name}(\\.run\\d+)?\\.bin$`);
      for (const file of readdirSync(dir).filter((f) => mine.test(f))) rmSync(path.join(dir, file));
      runs.forEach((history, i) => {
        const file = runs.length === 1 ? `${name}.bin` : `${name}.run${i + 1}.bin`;
        writeFileSync(path.join(dir, file), temporal.api.history.v1.History.encode(history).finish());
      });
    },
    180_000,
  );
});
