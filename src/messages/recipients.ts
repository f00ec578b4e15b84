import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { MAX_FIELD_ERRORS, type FieldError } from '../http/errors';
import { keepCompiledPatterns } from './phone-patterns';

keepCompiledPatterns();

export interface Recipients {
  /** E.164, de-duplicated after normalisation, first occurrence kept, in the order given. */
  numbers: string[];
  errors: FieldError[];
  /** Every invalid entry, listed in `errors` or not. */
  invalidCount: number;
}

/** One phone number as E.164 (national numbers in `defaultCountry`), or null when it is not a valid one. */
export function normalizeNumber(raw: string, defaultCountry?: string): string | null {
  const parsed = parsePhoneNumberFromString(raw.trim(), defaultCountry as CountryCode | undefined);
  return parsed && parsed.isValid() ? parsed.number : null;
}

/**
 * Normalises `to` to E.164; national numbers use `defaultCountry`. Invalid entries become body.to[i]
 * errors: the first MAX_FIELD_ERRORS are listed, `invalidCount` counts them all. A repeated entry is
 * parsed once.
 */
export function normalizeRecipients(to: string[], defaultCountry?: string): Recipients {
  const seen = new Set<string>();
  const parsed = new Map<string, string | null>();
  const numbers: string[] = [];
  const errors: FieldError[] = [];
  let invalidCount = 0;
  to.forEach((raw, index) => {
    let e164 = parsed.get(raw);
    if (e164 === undefined) {
      e164 = normalizeNumber(raw, defaultCountry);
      parsed.set(raw, e164);
    }
    if (!e164) {
      invalidCount += 1;
      if (errors.length < MAX_FIELD_ERRORS) {
        errors.push({
          field: `body.to[${index}]`,
          // The hint once: a send with many invalid numbers gets a list, not a manual.
          message:
            defaultCountry || errors.length > 0
              ? `to[${index}] is not a valid phone number`
              : `to[${index}] is not a valid phone number (use E.164, e.g. +14155550123)`,
        });
      }
      return;
    }
    if (seen.has(e164)) return;
    seen.add(e164);
    numbers.push(e164);
  });
  return { numbers, errors, invalidCount };
}
