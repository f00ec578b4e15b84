import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// The data-access rule of eslint.config.mjs (docs/architecture.md): the repository lint passes only
// because nothing breaks it, so here it runs over planted files that do. With the repository's own
// config file and the fixture folder as the working directory, the fixture's src/ is production code.
const root = path.resolve(__dirname, '..', '..');
const planted = path.join(root, 'test', 'repo', 'fixtures', 'data-access');

type Found = { file: string; line: number; rule: string | null; message: string };

describe('the data-access lint rule', () => {
  let found: Found[];
  beforeAll(async () => {
    const eslint = new ESLint({ cwd: planted, overrideConfigFile: path.join(root, 'eslint.config.mjs') });
    const results = await eslint.lintFiles(['src']);
    found = results.flatMap((result) =>
      result.messages.map((m) => ({
        file: path.basename(result.filePath),
        line: m.line,
        rule: m.ruleId,
        message: m.message,
      })),
    );
  }, 300_000);

  const at = (file: string, rule: string) =>
    found
      .filter((f) => f.file === file && f.rule === `data-access/${rule}`)
      .map((f) => f.line)
      .sort((a, b) => a - b);

  it('refuses ORM calls, the sql tag and value imports of the ORM outside repositories', () => {
    // LockMode (2), query and sql (3), a flush on a fork (14) and one in a transaction (16).
    expect(at('planted.service.ts', 'only-repositories')).toEqual([2, 3, 3, 14, 16]);
    expect(found.find((f) => f.rule === 'data-access/only-repositories')?.message).toMatch(
      /^Only repositories touch SQL or the ORM: move this into the feature's \*\.repository\.ts/,
    );
  });

  it('refuses a transaction opened other than by transaction(), in a repository too', () => {
    expect(at('planted.service.ts', 'one-transaction')).toEqual([16]);
    expect(at('planted.repository.ts', 'one-transaction')).toEqual([13]);
    expect(found.find((f) => f.rule === 'data-access/one-transaction')?.message).toMatch(
      /^Open a transaction with transaction\(em, async \(tx\) => …\) from src\/db\/transaction\.ts/,
    );
  });

  it('lets a repository query, and a service pass the EntityManager on', () => {
    expect(at('planted.repository.ts', 'only-repositories')).toEqual([]);
    expect(found.filter((f) => f.file === 'planted.service.ts' && f.line > 17)).toEqual([]);
    expect(found.filter((f) => !f.rule?.startsWith('data-access/'))).toEqual([]);
  });
});
