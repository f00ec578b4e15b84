// Compiled phone patterns: a fast path of the recipients' validation. Its slow path, which it must
// equal, is libphonenumber-js's own `matchesEntirely` (the helper its ES build keeps): the same
// pattern, anchored the same way, tested without flags, so every answer is the library's.
//
// Why it exists: the library builds a RegExp from its metadata's pattern at every test, a quarter of
// the api's CPU in a send of 100 (docs/performance.md). test/messages/phone-patterns.test.ts runs
// both builds over every country's examples and random numbers.
import { createRequire } from 'node:module';
import path from 'node:path';

type MatchesEntirely = (text: string | undefined, pattern: string) => boolean;

const load = createRequire(__filename);
const compiled = new Map<string, RegExp>();
// The library's metadata holds a few thousand patterns; anything past this is not worth keeping.
const MAX_PATTERNS = 20_000;

/** The library's own test, with each pattern compiled once: same source, no flags, same result. */
const matchesEntirely: MatchesEntirely = (text, pattern) => {
  let regex = compiled.get(pattern);
  if (!regex) {
    regex = new RegExp('^(?:' + pattern + ')$');
    if (compiled.size < MAX_PATTERNS) compiled.set(pattern, regex);
  }
  return regex.test(text || '');
};

/** The helper module of libphonenumber-js's CommonJS build that tests a number against a pattern. */
export function libraryHelper(): { default: MatchesEntirely } | null {
  const entry = load.resolve('libphonenumber-js');
  try {
    return load(path.join(path.dirname(entry), 'build', 'helpers', 'matchesEntirely.js')) as {
      default: MatchesEntirely;
    };
  } catch {
    return null;
  }
}

/**
 * Puts the compiled patterns in place of the library's helper. Its CommonJS build, the one the
 * compiled service loads, reads the helper from the module's exports at every call, so replacing
 * the export is enough. Returns whether it is in place; where the library moved the helper,
 * validation stays as it was, only slower (`phone-patterns.test.ts` catches that).
 */
export function keepCompiledPatterns(): boolean {
  const helper = libraryHelper();
  if (!helper || typeof helper.default !== 'function') return false;
  helper.default = matchesEntirely;
  return true;
}

export function compiledPatternsInPlace(): boolean {
  return libraryHelper()?.default === matchesEntirely;
}
