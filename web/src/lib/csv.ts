// CSV as RFC 4180 writes it: fields separated by commas, quoted when they hold a comma, a quote or a
// line break, a quote inside doubled. Reading also takes semicolons (spreadsheets in many locales
// save those) and CR LF or LF line ends.

/** The rows of a CSV text, each a list of its fields. */
export function parseCsv(text: string): string[][] {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const separator = !firstLine.includes(',') && firstLine.includes(';') ? ';' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === separator) {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) rows.push([...row, field]);
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

const HEADERS = /^(phone|phone.?number|number|mobile|msisdn|to|recipient|tel|telephone|cell)$/i;

/**
 * The numbers of a CSV file of recipients: the column whose header names a phone number, else the
 * first column whose cells look like numbers (digits, spaces, +, -, parentheses, dots).
 */
export function numbersFromCsv(text: string): string[] {
  const rows = parseCsv(text);
  if (rows.length === 0) return [];
  const header = rows[0].findIndex((f) => HEADERS.test(f.trim()));
  if (header >= 0)
    return rows
      .slice(1)
      .map((r) => (r[header] ?? '').trim())
      .filter(Boolean);
  const looksLikeNumber = (f: string) => /^\+?[\d\s().-]{5,}$/.test(f.trim());
  const width = Math.max(...rows.map((r) => r.length));
  let column = 0;
  for (let c = 0; c < width; c++) {
    if (rows.some((r) => looksLikeNumber(r[c] ?? ''))) {
      column = c;
      break;
    }
  }
  // A first row that is not a number is a header naming the column otherwise.
  const body = looksLikeNumber(rows[0][column] ?? '') ? rows : rows.slice(1);
  return body.map((r) => (r[column] ?? '').trim()).filter(Boolean);
}

/** A CSV of recipients with other columns: each row's values by column header, for `{field}` templates. */
export interface CsvFields {
  /** The headers of the columns other than the number's, as written. */
  fields: string[];
  /** Per row (numbers as written in the file): its other columns' values by header. */
  rows: Array<{ number: string; values: Record<string, string> }>;
}

/** The other columns of a CSV whose header names its phone column; null when it has none. */
export function fieldsFromCsv(text: string): CsvFields | null {
  const rows = parseCsv(text);
  if (rows.length < 2) return null;
  const header = rows[0].map((f) => f.trim());
  const phone = header.findIndex((f) => HEADERS.test(f));
  const fields = header.filter((f, i) => i !== phone && f !== '');
  if (phone < 0 || fields.length === 0) return null;
  return {
    fields,
    rows: rows
      .slice(1)
      .filter((r) => (r[phone] ?? '').trim() !== '')
      .map((r) => ({
        number: r[phone].trim(),
        values: Object.fromEntries(
          header.flatMap((f, i) => (i === phone || f === '' ? [] : [[f, (r[i] ?? '').trim()]])),
        ),
      })),
  };
}

// One writer for the dashboard's exports and the API's CSV answers.
export { toCsv } from '../../../src/lib/csv';
