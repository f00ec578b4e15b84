import { describe, expect, it } from 'vitest';
import { oneAtATime } from '../../src/lib/one-at-a-time';

/** A piece of work that records when it starts and ends, and finishes when told to. */
function step(log: string[], name: string) {
  let finish!: (fail?: boolean) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = (fail) => (fail ? reject(new Error(name)) : resolve(name));
  });
  return {
    work: async () => {
      log.push(`${name} starts`);
      try {
        return await done;
      } finally {
        log.push(`${name} ends`);
      }
    },
    finish,
  };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('one at a time', () => {
  it('starts work under a key only once the work queued before it has ended', async () => {
    const run = oneAtATime();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => step(log, name));
    const results = [run('phone', a.work), run('phone', b.work), run('phone', c.work)];
    await settled();
    expect(log).toEqual(['a starts']);
    a.finish();
    await settled();
    expect(log).toEqual(['a starts', 'a ends', 'b starts']);
    b.finish();
    c.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
  });

  it('runs the next piece of work after one that failed, and gives the failure to its own caller', async () => {
    const run = oneAtATime();
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((name) => step(log, name));
    const first = run('phone', a.work);
    const second = run('phone', b.work);
    a.finish(true);
    await expect(first).rejects.toThrow('a');
    b.finish();
    await expect(second).resolves.toBe('b');
  });

  it('runs work under different keys side by side', async () => {
    const run = oneAtATime();
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((name) => step(log, name));
    const both = [run('one phone', a.work), run('another phone', b.work)];
    await settled();
    expect(log).toEqual(['a starts', 'b starts']);
    b.finish();
    a.finish();
    expect(await Promise.all(both)).toEqual(['a', 'b']);
  });

  it('starts at once when everything queued under the key has ended', async () => {
    const run = oneAtATime();
    const log: string[] = [];
    const a = step(log, 'a');
    a.finish();
    await run('phone', a.work);
    const b = step(log, 'b');
    const next = run('phone', b.work);
    await settled();
    expect(log).toEqual(['a starts', 'a ends', 'b starts']);
    b.finish();
    await next;
  });
});
