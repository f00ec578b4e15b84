import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..', '..');
// Commits before this one were written under an older habit; the rule holds for every commit after it.
const FIRST_CHECKED_AFTER = 'cada5a0';
const MAX_SUBJECT = 72;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' });
}

function longSubjects(subjects: string[]): string[] {
  return subjects.filter((subject) => [...subject].length > MAX_SUBJECT);
}

describe('commit messages', () => {
  it('finds a subject over 72 characters', () => {
    expect(longSubjects(['Fix the sweep', 'x'.repeat(73)])).toEqual(['x'.repeat(73)]);
    expect(longSubjects(['é'.repeat(72)])).toEqual([]);
  });

  it('keep every subject since the rule began within 72 characters (the why goes in the body)', () => {
    const subjects = git('log', '--format=%s', `${FIRST_CHECKED_AFTER}..HEAD`)
      .split('\n')
      .filter(Boolean);
    expect(longSubjects(subjects)).toEqual([]);
  });
});
