// CSV as RFC 4180 writes it: fields separated by commas, quoted when they hold a comma, a quote or a
// line break, a quote inside doubled. Pure (no imports): the dashboard's exports use it too.

/** A CSV text of `rows` under `header`, CR LF line ends as RFC 4180 says. */
export function toCsv(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null | undefined>>,
): string {
  const field = (value: string | number | boolean | null | undefined) => {
    const text = value === null || value === undefined ? '' : String(value);
    // A leading =, +, - or @ would run as a formula in a spreadsheet: a quote mark keeps it text.
    const safe = /^[=+\-@]/.test(text) && !/^\+\d+$/.test(text) ? `'${text}` : text;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return [header, ...rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}
