import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { startWorkflowStack, type WorkflowStack } from '../support/temporal';
import type { Receiver } from '../webhooks/receiver';
import { scenarios, type ScenarioContext, type ScenarioName } from './scenarios';

// The custom search attributes each workflow starts with and keeps current, seen by describe() at
// each step of a real run (the time-skipping server has no visibility queries: visibility.test.ts
// runs docs/workflows.md's queries on the dev server).
describe('workflow search attributes', () => {
  let stack: WorkflowStack;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    stack = await startWorkflowStack({
      logger: createLogger('error'),
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TEMPORAL_TASK_QUEUE: 'search-attributes-test' },
    });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.close();
  });

  const ours = new Set<string>(SEARCH_ATTRIBUTES.map((key) => key.name));

  /** Runs a scenario; returns its ids and our search attributes at each of its steps. */
  async function run(name: ScenarioName) {
    const steps: Record<string, Record<string, unknown>> = {};
    const context: ScenarioContext = {
      env: stack.env,
      app: stack.app,
      receivers,
      async checkpoint(step: string, handle: WorkflowHandle) {
        const pairs = (await handle.describe()).typedSearchAttributes.getAll();
        steps[step] = Object.fromEntries(pairs.filter((p) => ours.has(p.key.name)).map((p) => [p.key.name, p.value]));
      },
    };
    return { ...(await scenarios[name](context)), steps };
  }

  // A closed batch workflow is a settled batch: its attribute keeps the stage it closed in.
  it('a batch: its account and phone, scheduled, then sending once released, closed when settled', async () => {
    const { userId, deviceId, steps } = await run('batch-scheduled-settled');
    const ids = { AccountId: userId, DeviceId: deviceId };
    expect(steps).toEqual({
      scheduled: { ...ids, BatchStatus: 'scheduled' },
      released: { ...ids, BatchStatus: 'sending' },
      settled: { ...ids, BatchStatus: 'sending' },
    });
  });

  it('a batch sent at once: sending from its start until it closes, settled', async () => {
    const { userId, deviceId, steps } = await run('batch-settled');
    const ids = { AccountId: userId, DeviceId: deviceId };
    expect(steps).toEqual({
      sending: { ...ids, BatchStatus: 'sending' },
      settled: { ...ids, BatchStatus: 'sending' },
    });
  });

  it("a webhook's queue: its account and webhook, delivered at once, still so when it ends idle", async () => {
    const { userId, webhookId, steps } = await run('queue-delivered');
    const ids = { AccountId: userId, WebhookId: webhookId };
    expect(steps).toEqual({
      settled: { ...ids, DeliveryStatus: 'delivered' },
      ended: { ...ids, DeliveryStatus: 'delivered' },
    });
  });

  it.each([
    ['queue-retried', 'delivered'],
    ['queue-rejected', 'failed'],
    ['queue-abandoned', 'abandoned'],
  ] as const)("a webhook's queue (%s): retrying after the first failure, then %s", async (name, status) => {
    const { userId, webhookId, steps } = await run(name);
    const ids = { AccountId: userId, WebhookId: webhookId };
    expect(steps).toEqual({
      retrying: { ...ids, DeliveryStatus: 'retrying' },
      settled: { ...ids, DeliveryStatus: status },
      ended: { ...ids, DeliveryStatus: status },
    });
  });

  it("a webhook's queue: retrying, then abandoned when its webhook is deleted", async () => {
    const { userId, webhookId, steps } = await run('queue-deleted');
    const ids = { AccountId: userId, WebhookId: webhookId };
    expect(steps).toEqual({
      retrying: { ...ids, DeliveryStatus: 'retrying' },
      ended: { ...ids, DeliveryStatus: 'abandoned' },
    });
  });

  it("a phone's liveness: online when paired, offline when silent, online again, unpaired at the end", async () => {
    const { userId, deviceId, steps } = await run('liveness-offline-online');
    const ids = { AccountId: userId, DeviceId: deviceId };
    expect(steps).toEqual({
      paired: { ...ids, LivenessStatus: 'online' },
      offline: { ...ids, LivenessStatus: 'offline' },
      online: { ...ids, LivenessStatus: 'online' },
      unpaired: { ...ids, LivenessStatus: 'unpaired' },
    });
  });
});
