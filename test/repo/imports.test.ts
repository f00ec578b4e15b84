import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Which feature depends on which is read from the imports: when two folders import each other, or
// two dashboard modules do, neither can be read, changed or tested without the other.
const root = path.resolve(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The files a source imports by a relative path, resolved to files that exist. */
function importsOf(file: string, all: Set<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
  return specifiers
    .map((spec) => path.resolve(path.dirname(file), spec))
    .flatMap((base) =>
      [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].filter((f) => all.has(f)).slice(0, 1),
    );
}

/** Pairs [a, b] of folders directly under `dir` where a imports b and b imports a. */
export function folderCircles(dir: string): string[][] {
  const files = sources(dir);
  const all = new Set(files);
  const folderOf = (file: string) => {
    const parts = path.relative(dir, file).split(path.sep);
    return parts.length > 1 ? parts[0] : null;
  };
  const edges = new Set<string>();
  for (const file of files) {
    const from = folderOf(file);
    for (const target of importsOf(file, all)) {
      const to = folderOf(target);
      if (from && to && from !== to) edges.add(`${from} ${to}`);
    }
  }
  return [...edges].map((edge) => edge.split(' ')).filter(([a, b]) => a < b && edges.has(`${b} ${a}`));
}

/** Each cycle of imports between files under `dir`, as the files along it. */
export function fileCircles(dir: string): string[][] {
  const files = sources(dir);
  const all = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f, all)]));
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    trail.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push(trail.slice(trail.indexOf(next)).map((f) => path.relative(dir, f)));
      else if (!state.has(next)) visit(next);
    }
    trail.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return found;
}

describe('the imports', () => {
  it('let no two folders of src/ import each other', () => {
    expect(folderCircles(path.join(root, 'src'))).toEqual([]);
  });

  it('let no module of the dashboard import itself through others', () => {
    expect(fileCircles(path.join(root, 'web', 'src'))).toEqual([]);
  });

  it('find a circle where there is one', () => {
    // The checks above pass only because there is none: the same checks over a tree that has one.
    const planted = path.join(root, 'test', 'repo', 'fixtures', 'circles');
    expect(folderCircles(planted)).toEqual([['a', 'b']]);
    expect(fileCircles(planted).map((circle) => circle.sort())).toContainEqual(['a/one.ts', 'b/two.ts']);
  });
});
