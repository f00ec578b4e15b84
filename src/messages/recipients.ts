import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { FieldError } from '../http/errors';

export interface Recipients {
  /** E.164, de-duplicated after normalisation, first occurrence kept, in the order given. */
  numbers: string[];
  errors: FieldError[];
}

/** One phone number as E.164 (national numbers in `defaultCountry`), or null when it is not a valid one. */
export function normalizeNumber(raw: string, defaultCountry?: string): string | null {
  const parsed = parsePhoneNumberFromString(raw.trim(), defaultCountry as CountryCode | undefined);
  return parsed && parsed.isValid() ? parsed.number : null;
}

/** Normalises `to` to E.164; national numbers use `defaultCountry`. Invalid entries become body.to[i] errors. */
export function normalizeRecipients(to: string[], defaultCountry?: string): Recipients {
  const seen = new Set<string>();
  const numbers: string[] = [];
  const errors: FieldError[] = [];
  to.forEach((raw, index) => {
    const e164 = normalizeNumber(raw, defaultCountry);
    if (!e164) {
      errors.push({
        field: `body.to[${index}]`,
        message: defaultCountry
          ? `to[${index}] is not a valid phone number`
          : `to[${index}] is not a valid phone number (use E.164, e.g. +14155550123)`,
      });
      return;
    }
    if (seen.has(e164)) return;
    seen.add(e164);
    numbers.push(e164);
  });
  return { numbers, errors };
}
