import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAIRING_REFUSAL_REASONS } from '../../src/devices/device.entity';

// docs/phones.md is where a person whose SMSGate app closed on a refused code finds what to do: the
// section says so, and its table explains every reason the API records (src/devices/device.entity.ts).
const phones = readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'phones.md'), 'utf8');

describe('docs/phones.md on refused pairing codes', () => {
  const section = phones.slice(
    phones.indexOf('**If the app closes after *Continue*, the code was refused.**'),
    phones.indexOf('**5. The phone arrives**'),
  );

  it('says what to do when the app closes after a refused code: a new code, in the By Code tab', () => {
    expect(section.length).toBeGreaterThan(0);
    expect(section).toMatch(/\*\*Create a new code\*\*/);
    expect(section).toMatch(/\*\*Type it in the \*By Code\* tab\*\*/);
    expect(section).toMatch(/mistyped in its first three characters matches none of your codes/);
  });

  it('explains every reason a refusal is recorded for, and the code lifetime the card uses', () => {
    for (const reason of PAIRING_REFUSAL_REASONS) expect(section).toContain(`| \`${reason}\`:`);
    expect(phones).toMatch(/Create a pairing code\*\* \(valid 30 minutes, one phone\)/);
  });
});
