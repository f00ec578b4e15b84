import { countSegments, type SegmentInfo } from '../../../src/messages/segments';
import { fieldKey, fieldsOf, missingFields, render, valuesOf } from '../../../src/messages/placeholders';
import type { CsvFields } from './csv';
import { toE164 } from './numbers';

// A message written as a template over a CSV's columns: what each recipient gets, and what is wrong
// before anything is sent (a field no column has, a row with an empty field). The API fills the
// template the same way (src/messages/placeholders.ts), so the preview is what the phone sends.

export interface Personalised {
  /** The template's fields no column of the CSV has, as written in the text. */
  unknown: string[];
  /** Per recipient (E.164) its text, in the order given. */
  texts: Array<{ e164: string; text: string }>;
  /** The recipients with an empty value (or no row) for a field the template uses, and which fields. */
  empty: Array<{ e164: string; missing: string[] }>;
  /** The longest text's segments: what each recipient may cost at most. */
  longest: SegmentInfo & { chars: number };
  /** The values to send with the API's `variables`, per recipient. */
  variables: (e164: string) => Record<string, string>;
}

/** The CSV's rows by number (E.164, first row kept), as the Send form checks recipients. */
export function rowsByNumber(csv: CsvFields, country: string | null): Map<string, Record<string, string>> {
  const byNumber = new Map<string, Record<string, string>>();
  for (const row of csv.rows) {
    const e164 = toE164(row.number, country);
    if (e164 && !byNumber.has(e164)) byNumber.set(e164, row.values);
  }
  return byNumber;
}

/**
 * The template over the CSV's columns for these recipients; null when it is not one (the text uses
 * no field, or no CSV with other columns was added): then it is sent as written.
 */
export function personalise(
  template: string,
  csv: CsvFields | null,
  byNumber: Map<string, Record<string, string>>,
  recipients: string[],
): Personalised | null {
  const used = fieldsOf(template);
  if (!csv || used.length === 0) return null;
  const known = new Set(csv.fields.map(fieldKey));
  const unknown = used.filter((field) => !known.has(fieldKey(field)));
  const values = (e164: string) => byNumber.get(e164) ?? {};
  const texts = recipients.map((e164) => ({ e164, text: render(template, valuesOf(values(e164))) }));
  const empty = recipients
    .map((e164) => ({
      e164,
      missing: missingFields(template, valuesOf(values(e164))).filter((f) => known.has(fieldKey(f))),
    }))
    .filter((row) => row.missing.length > 0);
  const longest = texts.reduce(
    (most, { text }) => {
      const info = countSegments(text);
      const chars = [...text].length;
      return info.segments > most.segments || (info.segments === most.segments && chars > most.chars)
        ? { ...info, chars }
        : most;
    },
    { ...countSegments(''), chars: 0 },
  );
  // Only the fields the template uses travel with the send.
  const variables = (e164: string) => {
    const row = valuesOf(values(e164));
    return Object.fromEntries(used.map((field) => [field, row.get(fieldKey(field)) ?? '']));
  };
  return { unknown, texts, empty, longest, variables };
}
