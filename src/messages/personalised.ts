import { MAX_FIELD_ERRORS, validationFailed, type FieldError } from '../http/errors';
import { missingFields, render, valuesOf } from './placeholders';
import { BODY_MAX } from './messages.schemas';
import { normalizeNumber } from './recipients';
import { countSegments, type SegmentInfo } from './segments';

// A personalised send: one batch whose messages each carry their own text (a template filled per
// recipient, or a retry's texts as they were sent). Its segments are counted on the longest text.

/**
 * POST /v1/messages with `variables`: the template filled for each `to` entry. A recipient lacking
 * a field the template uses, or whose text runs past BODY_MAX, is a 422 naming that entry.
 */
export function renderVariables(template: string, rows: Array<Record<string, string>>): string[] {
  const errors: FieldError[] = [];
  let total = 0;
  const texts = rows.map((row, index) => {
    const values = valuesOf(row);
    const missing = missingFields(template, values);
    const text = render(template, values);
    const problem =
      missing.length > 0
        ? `variables[${index}] has no text for ${missing.map((field) => `{${field}}`).join(', ')}`
        : text.length > BODY_MAX
          ? `variables[${index}] makes the text ${text.length} characters, more than ${BODY_MAX}`
          : null;
    if (problem) {
      total += 1;
      if (errors.length < MAX_FIELD_ERRORS) errors.push({ field: `body.variables[${index}]`, message: problem });
    }
    return text;
  });
  if (total > 0) throw validationFailed(errors, total);
  return texts;
}

/**
 * Texts given per `to` entry, as the send's de-duplicated `numbers` (E.164) take them: a number
 * listed twice gets its first entry's text, as it keeps its first place.
 */
export function textsOfNumbers(to: string[], texts: string[], numbers: string[], defaultCountry?: string): string[] {
  const first = new Map<string, string>();
  to.forEach((raw, index) => {
    const e164 = normalizeNumber(raw, defaultCountry);
    if (e164 && !first.has(e164)) first.set(e164, texts[index]);
  });
  return numbers.map((number) => first.get(number) ?? '');
}

/** The send's segments and encoding: the longest text's count, UCS-2 when any text needs it. */
export function segmentsOfTexts(texts: string[]): { perText: number[]; batch: SegmentInfo } {
  const counted = texts.map(countSegments);
  const longest = counted.reduce((most, info) => (info.segments > most.segments ? info : most), counted[0]);
  const encoding = counted.some((info) => info.encoding === 'ucs2') ? 'ucs2' : 'gsm7';
  return { perText: counted.map((info) => info.segments), batch: { ...longest, encoding } };
}
