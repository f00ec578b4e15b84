/**
 * Runs each piece of work after the ones queued before it under the same key have settled, whether
 * they succeeded or not. A key is forgotten once nothing waits on it.
 */
export function oneAtATime() {
  const tails = new Map<string, Promise<unknown>>();
  return async function run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const mine = (tails.get(key) ?? Promise.resolve()).then(work);
    const tail = mine.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
