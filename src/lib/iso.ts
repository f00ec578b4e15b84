/** A nullable timestamp as the interface writes it: RFC 3339 in UTC, or null. */
export const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);
