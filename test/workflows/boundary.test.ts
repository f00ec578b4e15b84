import path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..', '..');

/**
 * The workflow boundary is an ESLint rule set on workflows/** (eslint.config.mjs, run by `npm run lint`).
 * These tests lint source text as if it were a file in workflows/ with the project's own config. The
 * boundary rules read syntax only, so type information (which needs the file on disk) is switched off.
 */
describe('workflow boundary (ESLint)', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({
      cwd: root,
      overrideConfig: {
        languageOptions: { parserOptions: { projectService: false } },
        rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
      },
    });
  });

  async function lint(source: string, file = 'workflows/fixture.ts'): Promise<Linter.LintMessage[]> {
    const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
    return result.messages;
  }
  const found = (messages: Linter.LintMessage[]) => messages.map((m) => `${m.line} ${m.ruleId}`);

  it('refuses Node, src/ and activities/ imports at run time in workflow code', async () => {
    const messages = await lint(
      [
        "import { readFileSync } from 'node:fs';",
        "import { openOrm } from '../src/db/orm';",
        "export { createMessagesActivities } from '../activities/messages.activities';",
        "import { Worker } from '@temporalio/worker';",
        "import { z, type Y } from '../activities/messages.activities';",
        "import { migrate } from './../src/db/orm';",
      ].join('\n'),
    );
    expect(found(messages)).toEqual(
      [1, 2, 3, 4, 5, 6].map((line) => `${line} @typescript-eslint/no-restricted-imports`),
    );
    expect(messages[0].message).toMatch(/deterministic sandbox/);
  });

  it('allows the workflow API, its own folder, the pure helpers, and anything as a type', async () => {
    const messages = await lint(
      [
        "import { proxyActivities, sleep } from '@temporalio/workflow';",
        "import { batchSettledSignal } from './definitions';",
        "export { batchWorkflow } from './batch';",
        "import { parseDuration } from '../src/lib/duration';",
        "import type { MessagesActivities } from '../activities/messages.activities';",
        "import { type MikroORM } from '@mikro-orm/postgresql';",
        "import type { RetryPolicy } from '@temporalio/common';",
        "import { defineSearchAttributeKey } from '@temporalio/common';",
      ].join('\n'),
    );
    expect(found(messages)).toEqual([]);
  });

  it('refuses dynamic imports, require, Math.random, new Date(), timers and process', async () => {
    const messages = await lint(
      [
        "export const load = () => import('node:fs');",
        "export const fs = require('node:fs');",
        'export const pick = () => Math.random();',
        'export const now = () => new Date();',
        'export const later = (f: () => void) => setTimeout(f, 10);',
        'export const env = () => process.env.X;',
        'export const ok = () => [Date.now(), new Date(0)];',
      ].join('\n'),
    );
    expect(found(messages)).toEqual([
      '1 no-restricted-syntax',
      '2 @typescript-eslint/no-require-imports',
      '3 no-restricted-properties',
      '4 no-restricted-syntax',
      '5 no-restricted-globals',
      '6 no-restricted-globals',
    ]);
  });

  it('applies to workflows/ only', async () => {
    expect(
      found(await lint("import { readFileSync } from 'node:fs';\nexport const f = readFileSync;", 'src/fixture.ts')),
    ).toEqual([]);
  });

  it('finds the real workflow code clean', async () => {
    const results = await eslint.lintFiles(['workflows']);
    expect(results.map((r) => path.basename(r.filePath))).toEqual(
      expect.arrayContaining(['index.ts', 'definitions.ts', 'batch.ts', 'reconciler.ts']),
    );
    expect(results.flatMap((r) => r.messages.map((m) => `${path.basename(r.filePath)}:${m.line} ${m.ruleId}`))).toEqual(
      [],
    );
  });
});
