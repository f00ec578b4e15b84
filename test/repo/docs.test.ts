import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The README and the guides in docs/ point only inside the repository, and at things that exist: a
// renamed file or heading, or a map left behind by a move, fails here rather than in a reader's hands.
const root = path.resolve(__dirname, '..', '..');
const DOCS = [
  'README.md',
  'bench/RESULTS.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

const anchorsOf = (file: string) =>
  new Set(
    read(file)
      .replace(/^```[\s\S]*?^```/gm, '')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => slug(line.replace(/^#+ /, ''))),
  );

/** Markdown links [text](target) and <img src="target">, outside code blocks. */
function linksOf(file: string): string[] {
  const text = read(file).replace(/^```[\s\S]*?^```/gm, '');
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  const images = [...text.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1]);
  return [...links, ...images];
}

/** Generated files (the dashboard's API types, build output) are ignored by git and may not exist yet. */
function ignored(file: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '-q', file], { cwd: root });
    return true;
  } catch {
    return false;
  }
}

// Paths in backticks under these folders must exist (placeholders and wildcards aside).
const TREE = /^(src|workflows|activities|temporal|test|tools|bench|web\/src|docs)\/[\w./-]*$/;

describe('the README and docs/', () => {
  it('makes anchors as GitHub does', () => {
    expect(slug('Pacing, send windows, priority and ttl')).toBe('pacing-send-windows-priority-and-ttl');
    expect(slug('Safe retries: Idempotency-Key')).toBe('safe-retries-idempotency-key');
    expect(slug('Webhook deliveries: `npm run bench:webhooks`')).toBe('webhook-deliveries-npm-run-benchwebhooks');
  });

  it.each(DOCS)('%s closes every code block it opens', (file) => {
    expect(read(file).match(/^```/gm)?.length ?? 0).toSatisfy((fences: number) => fences % 2 === 0);
  });

  it.each(DOCS)('%s links only to files and headings that exist in the repository', (file) => {
    const broken: string[] = [];
    for (const link of linksOf(file)) {
      if (/^(https?:|mailto:)/.test(link)) continue;
      const [target, anchor] = link.split('#');
      const resolved = target ? path.join(path.dirname(file), target) : file;
      if (path.relative(root, path.join(root, resolved)).startsWith('..'))
        broken.push(`${link} (outside the repository)`);
      else if (!existsSync(path.join(root, resolved))) broken.push(`${link} (no such file)`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
        broken.push(`${link} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });

  it.each(DOCS)('%s names only paths that exist, and nothing outside the repository', (file) => {
    const text = read(file);
    expect(text).not.toMatch(/\.\.\/shared|\/work\/|interface-spec/);
    const missing = [...text.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1].replace(/[:,]$/, ''))
      .filter((p) => TREE.test(p) && !/[<*…]/.test(p))
      .filter((p) => !existsSync(path.join(root, p)) && !ignored(p));
    expect(missing).toEqual([]);
  });
});
