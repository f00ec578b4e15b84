import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';

// Histories recorded from real runs (test/workflows/histories/*.bin, protobuf-encoded). Each must
// replay with today's workflow code: a change that would break a running workflow fails here, and
// needs patched() or a new workflow type. The batch-*.bin histories were recorded before the
// `unknown-on-time` and `settled-signal-during-sweep` patches (workflows/batch.ts): they replay on
// their legacy branches. batch-scheduled-cancelled.bin (test/messages/cancel.test.ts) is a scheduled
// send cancelled before its time, ended by the settled signal (`settled-signal-while-scheduled`).
const dir = path.join(__dirname, 'histories');
const histories = readdirSync(dir)
  .filter((file) => file.endsWith('.bin'))
  .map((file) => ({ file, history: temporal.api.history.v1.History.decode(readFileSync(path.join(dir, file))) }));

describe('recorded workflow histories replay with the current code', () => {
  it('has recorded histories to replay', () => {
    expect(histories.length).toBeGreaterThan(0);
  });

  it.each(histories.map((h) => [h.file, h.history] as const))('replays %s', async (file, history) => {
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, file),
    ).resolves.toBeUndefined();
  });
});
