import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as esBuild from 'libphonenumber-js';
import type { CountryCode } from 'libphonenumber-js';
import examples from 'libphonenumber-js/examples.mobile.json';
import { describe, expect, it } from 'vitest';
import { normalizeNumber } from '../../src/messages/recipients';
import { compiledPatternsInPlace, keepCompiledPatterns, libraryHelper } from '../../src/messages/phone-patterns';

// The compiled service loads the library's CommonJS build, where the compiled patterns are kept;
// vitest loads its ES build, which keeps the library's own helper: the reference to compare with.
const commonJsBuild = createRequire(__filename)('libphonenumber-js') as typeof esBuild;

type Parse = typeof esBuild.parsePhoneNumberFromString;

function reading(parse: Parse, input: string, country?: CountryCode) {
  const parsed = parse(input, country);
  if (!parsed) return null;
  return { number: parsed.number, country: parsed.country, valid: parsed.isValid(), possible: parsed.isPossible() };
}

/** A fixed sequence, so a difference found once is found again. */
function digits(seed: number): () => string {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return String(state % 10);
  };
}

function inputs(): Array<[string, CountryCode | undefined]> {
  const next = digits(36);
  const list: Array<[string, CountryCode | undefined]> = [];
  for (const [country, example] of Object.entries(examples) as Array<[CountryCode, string]>) {
    const code = esBuild.getCountryCallingCode(country);
    list.push([`+${code}${example}`, undefined], [example, country]);
    const national = esBuild.parsePhoneNumberFromString(example, country)?.formatNational();
    if (national) list.push([national, country]);
    for (let i = 0; i < 80; i += 1) {
      const length = 4 + (i % 11);
      const number = Array.from({ length }, next).join('');
      list.push(
        [`+${code}${number}`, undefined],
        [number, country],
        [`+${code} ${number.slice(0, 3)}-${number.slice(3)}`, undefined],
      );
    }
  }
  return list;
}

describe('compiled phone patterns', () => {
  it('are in place once recipients are read', () => {
    expect(normalizeNumber('+14155550123')).toBe('+14155550123');
    expect(compiledPatternsInPlace()).toBe(true);
  });

  it('are what the CommonJS build tests numbers with, and the ES build is not', () => {
    expect(keepCompiledPatterns()).toBe(true);
    const helper = libraryHelper()!;
    const kept = helper.default;
    let calls = 0;
    helper.default = (text, pattern) => {
      calls += 1;
      return kept(text, pattern);
    };
    try {
      esBuild.parsePhoneNumberFromString('+14155550123')?.isValid();
      expect(calls).toBe(0);
      commonJsBuild.parsePhoneNumberFromString('+14155550123')?.isValid();
      expect(calls).toBeGreaterThan(0);
    } finally {
      helper.default = kept;
    }
  });

  it("read every country's examples and numbers as the library's own helper does", () => {
    expect(keepCompiledPatterns()).toBe(true);
    const list = inputs();
    const differences = list
      .map(([input, country]) => ({
        input,
        country,
        compiled: reading(commonJsBuild.parsePhoneNumberFromString, input, country),
        library: reading(esBuild.parsePhoneNumberFromString, input, country),
      }))
      .filter((r) => JSON.stringify(r.compiled) !== JSON.stringify(r.library));
    expect(differences.slice(0, 5)).toEqual([]);
    // The comparison covers both outcomes, in numbers of every length.
    const valid = list.filter(
      ([input, country]) => reading(commonJsBuild.parsePhoneNumberFromString, input, country)?.valid,
    );
    expect(valid.length).toBeGreaterThan(1_000);
    expect(list.length - valid.length).toBeGreaterThan(1_000);
  });

  it('are in place in the compiled service, as `npm start` loads it', () => {
    // The global setup builds dist/ as `npm start`'s prestart does; read it the way the service does.
    const script = `
      const { normalizeNumber } = require('./dist/src/messages/recipients.js');
      const { compiledPatternsInPlace } = require('./dist/src/messages/phone-patterns.js');
      process.stdout.write(JSON.stringify({ inPlace: compiledPatternsInPlace(), number: normalizeNumber('(415) 555-0132', 'US') }));`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '..', '..') });
    expect(JSON.parse(out.toString())).toEqual({ inPlace: true, number: '+14155550132' });
  });
});
