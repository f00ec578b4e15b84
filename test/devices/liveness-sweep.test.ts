import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { deviceWorkflowId } from '../../workflows/definitions';
import { startTestApp, type TestApp } from '../support/app';
import { deviceRow } from '../support/factories';
import { createTimeSkippingEnv } from '../support/temporal';
import { accountWithKey, pairPhone } from './helpers';

describe('liveness reconciler sweep', () => {
  let env: TestWorkflowEnvironment;
  let watched: TestApp;
  let cut: TestApp;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    watched = await startTestApp({ temporal: env.client, env: { TEMPORAL_TASK_QUEUE: 'liveness-sweep-test' } });
    // This api process cannot reach Temporal: the workflow start at pairing is lost.
    cut = await startTestApp({ env: { TEMPORAL_TASK_QUEUE: 'liveness-sweep-test' } });
  });
  afterAll(async () => {
    await cut?.close();
    await watched?.close();
    await env?.teardown();
  });

  it('starts the workflow of a paired phone that was never signalled', async () => {
    const { key } = await accountWithKey(cut);
    const phone = await pairPhone(cut, key);
    // When the workflow was last signalled is not part of the API: the stored device says.
    expect((await deviceRow(watched.orm, phone.id)).lastSignalAt).toBeNull();

    watched.clock.advance(2 * 60_000);
    // Other test files' phones share the database: sweep (100 a pass) until ours is reached.
    const sweep = watched.services.starter.sweep(watched.services.starts.liveness);
    for (let pass = 0; pass < 50; pass++) {
      if ((await sweep.run()) === 0) break;
    }
    const description = await env.client.workflow.getHandle(deviceWorkflowId(phone.id)).describe();
    expect(description.status.name).toBe('RUNNING');
    expect((await deviceRow(watched.orm, phone.id)).lastSignalAt).not.toBeNull();
    await env.client.workflow.getHandle(deviceWorkflowId(phone.id)).terminate('test over');
  });
});
