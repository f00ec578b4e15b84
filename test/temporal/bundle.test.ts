import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';

// The workflow thread holds the whole bundle as one string, and V8 stores a string that holds any
// character beyond Latin-1 at two bytes per character (temporal/bundle.ts).
describe('the workflow bundle', () => {
  it('holds no character beyond Latin-1, in its code or its inline source map', () => {
    const code = readFileSync(inject('workflowBundlePath'), 'utf8');
    expect(code.match(/[^\u0000-\u00ff]/g) ?? []).toEqual([]);
  });
});
