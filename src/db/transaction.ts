import type { EntityManager } from '@mikro-orm/postgresql';

// The one way to run work after a commit. Code inside a transaction registers what must follow it
// (`afterCommit(tx, task)`: a workflow start enqueued, a signal sent in the background); the
// tasks run once the transaction has committed, and never if it rolls back. Tasks only hand work
// over (starter.enqueue, background.run): they are synchronous and must not throw.

const pending = new WeakMap<EntityManager, Array<() => void>>();

/** Runs `work` in a transaction, then the tasks it registered with `afterCommit`. */
export async function transaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  const tasks: Array<() => void> = [];
  const result = await em.transactional(async (tx) => {
    pending.set(tx, tasks);
    return work(tx);
  });
  for (const task of tasks) task();
  return result;
}

/** Registers a task to run after `tx` commits; `tx` must come from `transaction()`. */
export function afterCommit(tx: EntityManager, task: () => void): void {
  const tasks = pending.get(tx);
  if (!tasks) throw new Error('afterCommit needs a transaction opened by transaction()');
  tasks.push(task);
}
