import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../src/db/orm';
import { createNotifier, type Notifier } from '../../src/db/listen-notify';
import { createLogger } from '../../src/lib/logger';
import { testConfig } from '../support/config';

describe('notifier: "something changed" across processes over LISTEN/NOTIFY', () => {
  // Two ORMs stand for two api processes: what one notifies, the other hears.
  let here: MikroORM;
  let there: MikroORM;
  let listener: Notifier;
  let sender: Notifier;

  beforeAll(async () => {
    const { databaseUrl } = testConfig();
    here = await openOrm(databaseUrl!);
    there = await openOrm(databaseUrl!);
    listener = createNotifier({ orm: here, logger: createLogger('silent') });
    sender = createNotifier({ orm: there, logger: createLogger('silent') });
  });
  afterAll(async () => {
    await here?.close();
    await there?.close();
  });

  it('delivers a notification when its transaction commits, never when it rolls back', async () => {
    const heard: string[] = [];
    const stop = await listener.subscribe('notifier_test_commit', (payload) => heard.push(payload));
    expect(listener.listening()).toBe(true);

    await there.em
      .fork()
      .transactional(async (tx) => {
        await sender.notify(tx, 'notifier_test_commit', 'rolled-back');
        throw new Error('the change failed');
      })
      .catch(() => undefined);
    await there.em.fork().transactional(async (tx) => {
      await sender.notify(tx, 'notifier_test_commit', 'a');
      // Repeats within one transaction arrive once.
      await sender.notify(tx, 'notifier_test_commit', 'a');
      await sender.notify(tx, 'notifier_test_commit', 'b');
      // Not before the commit.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual([]);
    });
    await expect.poll(() => heard).toEqual(['a', 'b']);
    await stop();
  });

  it('hears only the channels subscribed, and gives its connection back when nobody listens', async () => {
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = await listener.subscribe('notifier_test_one', (p) => first.push(p));
    const stopSecond = await listener.subscribe('notifier_test_two', (p) => second.push(p));
    await there.em.fork().transactional(async (tx) => {
      await sender.notify(tx, 'notifier_test_one', '1');
      await sender.notify(tx, 'notifier_test_two', '2');
      await sender.notify(tx, 'notifier_test_other', '3');
    });
    await expect.poll(() => [first, second]).toEqual([['1'], ['2']]);

    await stopFirst();
    expect(listener.listening()).toBe(true);
    await there.em.fork().transactional((tx) => sender.notify(tx, 'notifier_test_one', 'late'));
    await there.em.fork().transactional((tx) => sender.notify(tx, 'notifier_test_two', 'still'));
    await expect.poll(() => second).toEqual(['2', 'still']);
    expect(first).toEqual(['1']);

    await stopSecond();
    expect(listener.listening()).toBe(false);
  });

  it('refuses a channel name it would have to quote', async () => {
    await expect(listener.subscribe('bad; drop table users', () => undefined)).rejects.toThrow(/not a channel name/);
  });
});
