import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { FieldError } from '../http/errors';

export interface Recipients {
  /** E.164, de-duplicated after normalisation, first occurrence kept, in the order given. */
  numbers: string[];
  errors: FieldError[];
}

/** Normalises `to` to E.164; national numbers use `defaultCountry`. Invalid entries become body.to[i] errors. */
export function normalizeRecipients(to: string[], defaultCountry?: string): Recipients {
  const seen = new Set<string>();
  const numbers: string[] = [];
  const errors: FieldError[] = [];
  to.forEach((raw, index) => {
    const parsed = parsePhoneNumberFromString(raw.trim(), defaultCountry as CountryCode | undefined);
    if (!parsed || !parsed.isValid()) {
      errors.push({
        field: `body.to[${index}]`,
        message: defaultCountry
          ? `to[${index}] is not a valid phone number`
          : `to[${index}] is not a valid phone number (use E.164, e.g. +14155550123)`,
      });
      return;
    }
    const e164 = parsed.number;
    if (seen.has(e164)) return;
    seen.add(e164);
    numbers.push(e164);
  });
  return { numbers, errors };
}
