import * as yup from 'yup';
import { parseDuration } from './lib/duration';

// The kinds of value src/config.ts reads from the environment, each with the one-line message a bad
// value stops the process with.

export const duration = (fallback: string) =>
  yup
    .string()
    .default(fallback)
    .test('duration', '${path} must be a duration such as 90s, 15m, 1h or 2d', (value) => {
      try {
        parseDuration(value ?? '');
        return true;
      } catch {
        return false;
      }
    });

/** true, false, 1 or 0; undefined when unset. */
export const flag = () =>
  yup
    .boolean()
    .transform((value, original) =>
      typeof original === 'string'
        ? (({ true: true, '1': true, false: false, '0': false } as Record<string, boolean>)[original.toLowerCase()] ??
          original)
        : value,
    )
    .typeError('${path} must be true or false');

export const bool = (fallback: boolean) => flag().default(fallback);

export const url = (protocols: string[]) =>
  yup.string().test('url', `\${path} must be a URL (${protocols.join(', ')})`, (value) => {
    if (value === undefined) return true;
    try {
      return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
    } catch {
      return false;
    }
  });

export const int = (fallback: number, min: number, max: number) =>
  yup
    .number()
    .typeError('${path} must be a whole number')
    .integer('${path} must be a whole number')
    .min(min)
    .max(max)
    .default(fallback);

export const rate = (fallback: number) =>
  yup
    .number()
    .typeError('${path} must be a positive number')
    .positive('${path} must be a positive number')
    .max(1_000_000)
    .default(fallback);
