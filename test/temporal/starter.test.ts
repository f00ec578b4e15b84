import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createBackground } from '../../src/lib/background';
import { systemClock } from '../../src/lib/clock';
import { createLogger } from '../../src/lib/logger';
import { createMetrics } from '../../src/metrics/metrics';
import { createStarter, type StartKind } from '../../temporal/starter';

// The starter's rounds and records, on a kind of its own: what a kind starts is the kind's (the batch
// kind's starts and records run on the real Temporal and Postgres in test/messages/messaging.test.ts).

type Row = { id: string; fails?: boolean };

function setUp(recordAfterMs?: number) {
  const logger = createLogger('silent');
  const background = createBackground(logger);
  // Only what the starter uses of the client: its deadline wrapper.
  const temporal = { withDeadline: (_deadline: number, run: () => Promise<unknown>) => run() } as unknown as Client;
  const starter = createStarter({
    temporal,
    logger,
    clock: systemClock,
    background,
    metrics: createMetrics().workflows,
  });
  const records: string[][] = [];
  const waiting = new Map<string, () => void>();
  const kind: StartKind<Row> = {
    name: 'things',
    workflowType: 'thingWorkflow',
    async start(_client, row) {
      waiting.get(row.id)?.();
      if (row.fails) throw new Error('unreachable');
    },
    searchAttributes: () => [],
    markStarted: async (ids) => void records.push([...ids]),
    unstarted: async () => [],
    recordAfterMs,
  };
  /** Resolves when the start of `id` has been made. */
  const started = (id: string) => new Promise<void>((resolve) => waiting.set(id, resolve));
  return { starter, kind, records, started, idle: () => background.idle() };
}

describe('the starter', () => {
  it('records the starts of rows queued one after another in one statement, once they stop coming', async () => {
    const { starter, kind, records, started, idle } = setUp(300);
    // Sends 20 ms apart, well within the wait for more.
    const a = started('a');
    starter.enqueue(kind, [{ id: 'a' }]);
    await a;
    await delay(20);
    const b = started('b');
    starter.enqueue(kind, [{ id: 'b' }]);
    await b;
    await delay(20);
    starter.enqueue(kind, [{ id: 'c' }, { id: 'd', fails: true }]);
    await idle();
    // The failed start is not recorded: the reconciler starts it again.
    expect(records).toEqual([['a', 'b', 'c']]);
  });

  it('records a round of starts at once where the kind does not wait', async () => {
    const { starter, kind, records, idle } = setUp();
    starter.enqueue(kind, [{ id: 'a' }]);
    await idle();
    starter.enqueue(kind, [{ id: 'b' }, { id: 'c' }]);
    await idle();
    expect(records).toEqual([['a'], ['b', 'c']]);
  });

  it('records a full round without waiting for more', async () => {
    const { starter, kind, records, idle } = setUp(50);
    starter.enqueue(
      kind,
      Array.from({ length: 300 }, (_, i) => ({ id: `r${i}` })),
    );
    await idle();
    expect(records.map((ids) => ids.length)).toEqual([256, 44]);
    expect(new Set(records.flat()).size).toBe(300);
  });
});
