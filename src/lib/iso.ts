/** A nullable timestamp as the interface writes it: RFC 3339 in UTC, or null. */
export const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

// RFC 3339 section 5.6 date-time: full-date "T" full-time, the offset required (Z or ±hh:mm).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const leap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysIn = (year: number, month: number) =>
  month === 2 ? (leap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * An RFC 3339 timestamp as a Date, or null when it is not one. Every part must be in its range
 * (month 01-12, the day within its month, hour 00-23, minute 00-59, an offset's hour 00-23 and minute
 * 00-59, as the RFC's grammar says): Date.parse would roll `T40:00` or `11-31` over into the next day.
 * A leap second (`:60`) is refused: JavaScript dates cannot hold one.
 */
export function parseTimestamp(text: string): Date | null {
  const match = RFC3339.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const [sign, offsetHour, offsetMinute] = [match[8], Number(match[9] ?? 0), Number(match[10] ?? 0)];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || offsetHour > 23 || offsetMinute > 59) return null;
  const fraction = match[7] ? Math.floor(Number(match[7]) * 1000) : 0;
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute) * 60_000;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: that one reads years 0-99 as 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, fraction);
  return new Date(date.getTime() - offsetMs);
}
