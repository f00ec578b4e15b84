import { randomFillSync } from 'node:crypto';

// The variant's hex digit (RFC 9562: binary 10xx) for a random one.
const VARIANT: Record<string, string> = Object.fromEntries(
  [...'0123456789abcdef'].map((digit) => [digit, (8 | (parseInt(digit, 16) & 3)).toString(16)]),
);

/**
 * New row ids: UUIDs of version 7 (RFC 9562), the time in milliseconds first and 74 random bits
 * after. A table's new rows then go to the end of its primary key rather than to a page anywhere in
 * it (a random id costs each insert a descent to a leaf of its own and splits pages everywhere).
 */
export function newIds(count: number, now = Date.now()): string[] {
  const time = now.toString(16).padStart(12, '0');
  const prefix = `${time.slice(0, 8)}-${time.slice(8)}-7`;
  // 19 random hex digits an id, from 10 bytes.
  const random = randomFillSync(Buffer.allocUnsafe(10 * count)).toString('hex');
  const ids = new Array<string>(count);
  for (let i = 0, at = 0; i < count; i += 1, at += 20) {
    ids[i] =
      `${prefix}${random.slice(at, at + 3)}-${VARIANT[random[at + 3]!]}${random.slice(at + 4, at + 7)}-` +
      random.slice(at + 7, at + 19);
  }
  return ids;
}

export const newId = (now?: number): string => newIds(1, now)[0]!;
