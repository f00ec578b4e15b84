import * as yup from './yup';
import { parseTimestamp } from './iso';

// Shared yup fields: one definition of what a uuid, an email, a piece of text or a whole number is.
// Text that reaches Postgres or a phone is also screened before validation (src/http/input-guard.ts):
// no NUL or other control characters, no lone surrogates, no deep nesting. Every scalar takes only
// its own JSON type (./yup.ts): nothing here converts a client's value, let alone calls into it.

export const INT32_MAX = 2_147_483_647;

/** A string of at most `max` characters. */
export const text = (max: number) => yup.string().max(max, '${path} must be at most ${max} characters');

/** The same, with surrounding white space removed (only from strings: other types fail as such). */
export const trimmedText = (max: number) =>
  text(max).transform((value: unknown) => (typeof value === 'string' ? value.trim() : value));

/** A whole number within an int32 column's range unless narrowed. */
export const int = (min = -INT32_MAX - 1, max = INT32_MAX) =>
  yup
    .number()
    .typeError('${path} must be a whole number')
    .integer('${path} must be a whole number')
    .min(min, '${path} must be at least ${min}')
    .max(max, '${path} must be at most ${max}');

/**
 * A UUID in its text form, of any version: the ids this service makes are version 7 (./ids.ts), which
 * yup's own uuid test (versions 1 to 5) refuses.
 */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const uuid = (message = '${path} must be a UUID') =>
  yup.string().matches(UUID, { name: 'uuid', message, excludeEmptyString: false });

// Characters that print as nothing: an address holding one looks like another account's.
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/g;

/**
 * The one form of an email address, for storing and for every lookup (register, login, reset,
 * Google sign-in): NFKC (a full-width `ｅ` is an `e`), invisible characters removed, trimmed, lower case.
 */
export const normalizeEmail = (email: string): string =>
  email.normalize('NFKC').replace(INVISIBLE, '').trim().toLowerCase();

/** An address as given (trimmed); the accounts service stores and looks it up as normalizeEmail says. */
export const email = () => trimmedText(254).matches(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, '${path} must be an email address');

/** RFC 3339 text only (./iso.ts parseTimestamp): no number, no date without its time and offset, no rollover. */
export const timestamp = () =>
  yup
    .date()
    .typeError('${path} must be an RFC 3339 timestamp')
    .transform((value: unknown) => (typeof value === 'string' ? (parseTimestamp(value) ?? new Date(NaN)) : value));

/** A query string's flag: true, 1, false or 0. */
export const booleanQuery = () =>
  yup
    .boolean()
    .transform((value: unknown) =>
      value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value,
    )
    .typeError('${path} must be true or false');

export const pathId = () => yup.object({ id: uuid().required() });

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** How deep a JSON value nests (1 for a scalar); stops counting past `limit`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    if (item && typeof item === 'object') for (const inner of Object.values(item)) stack.push([inner, depth + 1]);
  }
  return deepest;
}

export interface FreeJsonLimits {
  maxBytes: number;
  maxDepth: number;
  /** For arrays: how many items. */
  maxItems?: number;
}

/**
 * Free-form JSON a phone reports (telemetry, SIM descriptors), stored as it comes: bounded in size
 * and depth so one heartbeat cannot store megabytes. `shape` says what the top level must be.
 */
export const freeJson = <T extends object>(shape: 'object' | 'array of objects', limits: FreeJsonLimits) =>
  yup.mixed<T>().test({
    name: 'free_json',
    params: { shape, ...limits },
    test(value) {
      if (value === undefined) return true;
      const items = Array.isArray(value) ? value : [];
      const ok = shape === 'object' ? isPlainObject(value) : Array.isArray(value) && items.every(isPlainObject);
      if (!ok)
        return this.createError({
          message: `\${path} must be ${shape === 'object' ? 'an object' : 'an array of objects'}`,
        });
      if (limits.maxItems !== undefined && items.length > limits.maxItems)
        return this.createError({ message: `\${path} must have at most ${limits.maxItems} items` });
      if (depthOf(value, limits.maxDepth) > limits.maxDepth)
        return this.createError({ message: `\${path} must nest at most ${limits.maxDepth} levels` });
      if (Buffer.byteLength(JSON.stringify(value)) > limits.maxBytes)
        return this.createError({ message: `\${path} must be at most ${limits.maxBytes} bytes of JSON` });
      return true;
    },
  });
