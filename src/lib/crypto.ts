import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters from a CSPRNG over [0-9A-Za-z], without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) out += BASE62[randomInt(62)];
  return out;
}

/** `length` characters from `alphabet`, uniformly. */
export function randomFrom(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** A bearer secret: `bytes` random bytes, base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A numeric code such as 042917, uniformly distributed. */
export function randomDigits(length: number): string {
  return String(randomInt(10 ** length)).padStart(length, '0');
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time comparison of two strings (false when lengths differ). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
