// A template's `{field}` placeholders, filled per recipient from that recipient's values. The API
// (a send's `variables`) and the dashboard's Send screen (its preview) both read templates here, so
// the preview is the text the phone sends. Field names match whatever their case and surrounding
// spaces: `{Name}`, `{ name }` and a CSV column headed "name" are one field.

const PLACEHOLDER = /\{([^{}\r\n]{1,64})\}/g;

/** The one form of a field name, for matching. */
export const fieldKey = (name: string): string => name.trim().toLowerCase();

/** The fields a template uses, each once, in the order they first appear (as written there). */
export function fieldsOf(template: string): string[] {
  const seen = new Map<string, string>();
  for (const match of template.matchAll(PLACEHOLDER)) {
    const key = fieldKey(match[1]);
    if (key && !seen.has(key)) seen.set(key, match[1].trim());
  }
  return [...seen.values()];
}

/** A recipient's values by field key. */
export function valuesOf(values: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(values).map(([name, value]) => [fieldKey(name), value]));
}

/** The template with each placeholder replaced by its value; one without a value stays as written. */
export function render(template: string, values: Map<string, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => values.get(fieldKey(name)) ?? whole);
}

/** Of the fields a template uses, those a recipient has no text for (absent, empty or blank). */
export function missingFields(template: string, values: Map<string, string>): string[] {
  return fieldsOf(template).filter((field) => !(values.get(fieldKey(field)) ?? '').trim());
}
