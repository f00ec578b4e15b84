import { parsePhoneNumberFromString } from 'libphonenumber-js';

export interface RecipientCheck {
  raw: string;
  /** E.164 when valid. */
  e164?: string;
  error?: string;
  duplicateOf?: number;
}

/**
 * Splits pasted text on new lines, commas and semicolons; a piece that is not one number as a whole
 * (`+1 415 555 0101` is) is split on spaces too, so `+14155550101 +14155550102` is two.
 */
export function splitRecipients(text: string): string[] {
  return text
    .split(/[\n,;]+/)
    .map((piece) => piece.trim())
    .filter(Boolean)
    .flatMap((piece) =>
      /\s/.test(piece) && !parsePhoneNumberFromString(piece)?.isValid() ? piece.split(/\s+/) : [piece],
    );
}

/** Checks each number as the API will (E.164 via libphonenumber), marking repeats of an earlier one. */
export function checkRecipients(text: string): RecipientCheck[] {
  const seen = new Map<string, number>();
  return splitRecipients(text).map((raw, index) => {
    const parsed = parsePhoneNumberFromString(raw);
    if (!parsed || !parsed.isValid())
      return { raw, error: 'not a valid number (use +country code, e.g. +14155550123)' };
    const e164 = parsed.number;
    const first = seen.get(e164);
    if (first !== undefined) return { raw, e164, duplicateOf: first };
    seen.set(e164, index);
    return { raw, e164 };
  });
}
