import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';

// The one way to run work after a commit. Code inside a transaction registers what must follow it
// (`afterCommit(tx, task)`: a workflow start enqueued, a signal sent in the background); the
// tasks run once the transaction has committed, and never if it rolls back. Tasks only hand work
// over (starter.enqueue, background.run): they are synchronous and must not throw.
//
// Transactions nest: a `transaction()` opened on an EntityManager that is already inside one (a
// service called within an idempotent request, src/idempotency/) is a savepoint of the outer one,
// and its tasks wait for the outermost commit: a savepoint's release commits nothing. A write that is
// a single statement outside any transaction (`inOneStatement`) is committed when it returns; what
// follows it runs then.

const pending = new WeakMap<EntityManager, Array<() => void>>();

interface Open {
  tasks: Array<() => void>;
  /** False once the transaction has ended: work it spawned that outlives it must not join it. */
  open: boolean;
}
const current = new AsyncLocalStorage<Open>();

/** Runs `work` in a transaction, then the tasks it registered with `afterCommit`. */
export async function transaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  const outer = current.getStore();
  const joins = outer?.open === true && em.isInTransaction();
  const mine: Open = { tasks: [], open: true };
  let result: T;
  try {
    result = await em.transactional(async (tx) => {
      pending.set(tx, mine.tasks);
      return current.run(mine, () => work(tx));
    });
  } finally {
    mine.open = false;
  }
  if (joins) outer!.tasks.push(...mine.tasks);
  else for (const task of mine.tasks) task();
  return result;
}

/** Registers a task to run after `tx` commits; `tx` must come from `transaction()`. */
export function afterCommit(tx: EntityManager, task: () => void): void {
  const tasks = pending.get(tx);
  if (!tasks) throw new Error('afterCommit needs a transaction opened by transaction()');
  tasks.push(task);
}

/**
 * A write that is one statement outside any transaction commits as it returns, with no BEGIN and
 * COMMIT round trips: `then` gets its result right after, where a transaction's work registers
 * `afterCommit` tasks. Inside a transaction (an Idempotency-Key's) nothing would be committed yet,
 * so it is refused there: use `transaction()`.
 */
export async function inOneStatement<T>(
  em: EntityManager,
  write: () => Promise<T>,
  then: (result: T) => void,
): Promise<T> {
  if (em.isInTransaction()) throw new Error('inOneStatement runs outside transactions; inside one, use transaction()');
  const result = await write();
  then(result);
  return result;
}
