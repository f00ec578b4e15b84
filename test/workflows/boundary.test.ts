import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = path.resolve(__dirname, '..', '..', 'workflows');
// Workflow code is replayed: it may import the workflow API (and @temporalio/common, for search
// attribute keys), its own folder, pure helpers, and anything else only as types (erased at compile time).
const ALLOWED_VALUES = [/^@temporalio\/(workflow|common)$/, /^\.\/[\w-]+$/, /^\.\.\/src\/lib\/duration$/];

function imports(source: string): Array<{ from: string; typeOnly: boolean }> {
  const found: Array<{ from: string; typeOnly: boolean }> = [];
  for (const match of source.matchAll(/^(import|export)\s+(type\s+)?[^'"]*?from\s+'([^']+)'/gms)) {
    found.push({ from: match[3], typeOnly: Boolean(match[2]) });
  }
  for (const match of source.matchAll(/\b(require|import)\(\s*'([^']+)'\s*\)/g))
    found.push({ from: match[2], typeOnly: false });
  return found;
}

describe('workflow boundary', () => {
  const files = readdirSync(dir).filter((file) => file.endsWith('.ts'));

  it('finds the workflow files', () => {
    expect(files).toEqual(expect.arrayContaining(['index.ts', 'definitions.ts', 'batch.ts', 'reconciler.ts']));
  });

  it.each(files)('%s imports only the workflow API, its folder, pure helpers and types', (file) => {
    const source = readFileSync(path.join(dir, file), 'utf8');
    const forbidden = imports(source).filter(
      ({ from, typeOnly }) => !typeOnly && !ALLOWED_VALUES.some((rule) => rule.test(from)),
    );
    expect(forbidden).toEqual([]);
    expect(source).not.toMatch(/\bMath\.random\(|\bnew Date\(\)|\bsetTimeout\(|\bprocess\./);
  });

  it('would catch a Node import', () => {
    expect(imports("import { readFileSync } from 'node:fs';")).toEqual([{ from: 'node:fs', typeOnly: false }]);
    expect(imports("import type { X } from '../src/db/orm';")).toEqual([{ from: '../src/db/orm', typeOnly: true }]);
  });
});
