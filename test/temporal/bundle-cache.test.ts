import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { bundleSettings, freshCachedBundle, prebuiltWorkflowBundle, storeBundle } from '../../temporal/bundle-cache';
import { quietRuntime } from '../support/temporal';

const root = path.resolve(__dirname, '..', '..');
const scratch = mkdtempSync(path.join(root, '.test-data', 'bundle-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let folders = 0;
const folder = () => {
  const dir = path.join(scratch, String(++folders));
  mkdirSync(dir);
  return dir;
};

/** A bundle stored as built from `inputs`, by a build that started well after they were written. */
const store = (cacheDir: string, inputs: string[], traces = false) =>
  storeBundle(cacheDir, traces, {
    code: `// built from ${inputs.join(', ')}`,
    inputs,
    settings: bundleSettings(traces),
    startedAt: Date.now() + 60_000,
  });

describe('the cached workflow bundle', () => {
  it('is reused while its inputs are unchanged, and not once one changes, appears or disappears', () => {
    const sources = folder();
    const workflow = path.join(sources, 'workflow.ts');
    const probed = path.join(sources, 'probed.ts');
    writeFileSync(workflow, 'export const a = 1;');
    const cacheDir = folder();
    const stored = store(cacheDir, [workflow, probed, sources]);

    expect(freshCachedBundle(cacheDir, false)).toBe(stored);
    writeFileSync(workflow, 'export const a = 2;');
    expect(freshCachedBundle(cacheDir, false)).toBeUndefined();
    // By content, not by time: the same text again is the same bundle.
    writeFileSync(workflow, 'export const a = 1;');
    expect(freshCachedBundle(cacheDir, false)).toBe(stored);
    // A path module resolution missed that now exists could change what an import resolves to.
    writeFileSync(probed, '');
    expect(freshCachedBundle(cacheDir, false)).toBeUndefined();
    rmSync(probed);
    expect(freshCachedBundle(cacheDir, false)).toBe(stored);
    rmSync(workflow);
    expect(freshCachedBundle(cacheDir, false)).toBeUndefined();
  });

  it('is never the other variant: a traced worker does not run the plain bundle', () => {
    const cacheDir = folder();
    store(cacheDir, []);
    expect(freshCachedBundle(cacheDir, false)).toBeDefined();
    expect(freshCachedBundle(cacheDir, true)).toBeUndefined();
  });

  it('is not trusted when an input was written while it was being built', () => {
    const sources = folder();
    const workflow = path.join(sources, 'workflow.ts');
    const cacheDir = folder();
    const startedAt = Date.now();
    writeFileSync(workflow, 'export const a = 1;');
    storeBundle(cacheDir, false, { code: '//', inputs: [workflow], settings: bundleSettings(false), startedAt });
    expect(freshCachedBundle(cacheDir, false)).toBeUndefined();
  });

  it('keeps one bundle per variant: an older one goes once it is a minute old, not before', () => {
    const cacheDir = folder();
    const build = (code: string) =>
      storeBundle(cacheDir, false, {
        code,
        inputs: [],
        settings: bundleSettings(false),
        startedAt: Date.now() + 60_000,
      });
    const first = build('// first');
    const second = build('// second');
    // Too recent to remove: another start may have just chosen it.
    expect(readdirSync(cacheDir).sort()).toEqual(['plain.json', path.basename(first), path.basename(second)].sort());
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    utimesSync(first, twoMinutesAgo, twoMinutesAgo);
    const third = build('// third');
    expect(readdirSync(cacheDir).sort()).toEqual(['plain.json', path.basename(second), path.basename(third)].sort());
    expect(freshCachedBundle(cacheDir, false)).toBe(third);
  });
});

describe('a bundle built in a child process', () => {
  // The runtime's logs of the replay below are not what this test is about.
  quietRuntime();

  it('is the same bundle as one built in-process, lists the workflow sources as inputs, and is reused', async () => {
    const cacheDir = folder();
    const first = await prebuiltWorkflowBundle({ traces: false, cacheDir });
    expect(first.built).toBe(true);
    const { codePath } = first.workflowBundle as { codePath: string };
    expect(readFileSync(codePath, 'utf8')).toBe(readFileSync(inject('workflowBundlePath'), 'utf8'));

    // Every workflow source is an input, so an edit to any of them builds again.
    const manifest = JSON.parse(readFileSync(path.join(cacheDir, 'plain.json'), 'utf8')) as {
      inputs: Record<string, string>;
    };
    const workflows = readdirSync(path.join(root, 'workflows')).map((file) => path.join(root, 'workflows', file));
    expect(Object.keys(manifest.inputs)).toEqual(expect.arrayContaining(workflows));
    expect(Object.values(manifest.inputs)).not.toContain('changed');

    const again = await prebuiltWorkflowBundle({ traces: false, cacheDir });
    expect(again).toEqual({ workflowBundle: { codePath }, built: false });

    // And a worker runs it: a recorded history replays on it.
    const history = temporal.api.history.v1.History.decode(
      readFileSync(path.join(root, 'test', 'workflows', 'histories', 'reconciler.bin')),
    );
    await Worker.runReplayHistory({ workflowBundle: { codePath } }, history, 'reconciler');
  }, 120_000);

  it('without a cache folder (not writable, as in an image run as another user) is handed over as code', async () => {
    const uncached = await prebuiltWorkflowBundle({ traces: false });
    expect(uncached.built).toBe(true);
    expect((uncached.workflowBundle as { code: string }).code).toBe(readFileSync(inject('workflowBundlePath'), 'utf8'));
  }, 120_000);
});
