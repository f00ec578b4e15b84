import { toE164 } from './numbers';

export interface RecipientCheck {
  raw: string;
  /** E.164 when valid. */
  e164?: string;
  invalid?: boolean;
  duplicateOf?: number;
}

/**
 * Splits pasted text on new lines, commas and semicolons. A piece is one number when it reads as one
 * whole (`(415) 555-0125`, `+1 415 555 0101`); it is split on spaces only when every part is a number
 * (`+14155550101 +14155550102`), else it stays one entry, shown as typed.
 */
export function splitRecipients(text: string, country: string | null): string[] {
  return text
    .split(/[\n,;]+/)
    .map((piece) => piece.trim())
    .filter(Boolean)
    .flatMap((piece) => {
      if (!/\s/.test(piece) || toE164(piece, country)) return [piece];
      const parts = piece.split(/\s+/);
      return parts.every((part) => toE164(part, country)) ? parts : [piece];
    });
}

/** Checks each number as the API will (national numbers in `country`), marking repeats of an earlier one. */
export function checkRecipients(text: string, country: string | null): RecipientCheck[] {
  const seen = new Map<string, number>();
  return splitRecipients(text, country).map((raw, index) => {
    const e164 = toE164(raw, country);
    if (!e164) return { raw, invalid: true };
    const first = seen.get(e164);
    if (first !== undefined) return { raw, e164, duplicateOf: first };
    seen.set(e164, index);
    return { raw, e164 };
  });
}
