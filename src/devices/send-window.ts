// A phone's send window (`send_window`): the days and hours, in the phone's time zone, when its
// outbox hands out messages. Outside it messages wait; estimates and stale deadlines count only the
// time it is open. Days are ISO weekdays (1 = Monday … 7 = Sunday); `start` and `end` are "HH:MM"
// local times on the same day (`end` may be "24:00"), start before end.

export interface SendWindow {
  timezone: string;
  days: number[];
  start: string;
  end: string;
}

const DAY_MS = 86_400_000;
/** Estimates stop walking the calendar this far ahead and count the rest as open time. */
const MAX_DAYS = 3_660;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timezone: string): Intl.DateTimeFormat {
  let format = formats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timezone, format);
  }
  return format;
}

/** The IANA name as the runtime spells it ("europe/berlin" → "Europe/Berlin"), or null when unknown. */
export function canonicalTimezone(name: string): string | null {
  // Offsets ("+01:00") and abbreviations are not places: a window follows the place's own clock changes.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** "HH:MM" → minutes after midnight; "24:00" is 1440 (end of day only); null when malformed. */
export function minutesOf(time: string): number | null {
  const match = /^([01]\d|2[0-4]):([0-5]\d)$/.exec(time);
  if (!match) return null;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  return minutes > 1440 ? null : minutes;
}

interface Local {
  year: number;
  month: number;
  day: number;
  /** Minutes after local midnight, with seconds as a fraction. */
  minutes: number;
}

function localOf(timezone: string, at: number): Local {
  const parts: Record<string, number> = {};
  for (const part of formatFor(timezone).formatToParts(new Date(at))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    minutes: parts.hour * 60 + parts.minute + parts.second / 60,
  };
}

/** How far the zone's clock is ahead of UTC at an instant (ms). */
function offsetAt(timezone: string, at: number): number {
  const local = localOf(timezone, at);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, 0, 0, 0) + Math.round(local.minutes * 60_000);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant a local date and time has in the zone (a time skipped by a clock change moves past the gap). */
function instantOf(timezone: string, year: number, month: number, day: number, minutes: number): number {
  const guess = Date.UTC(year, month - 1, day, 0, minutes);
  const first = guess - offsetAt(timezone, guess);
  const second = guess - offsetAt(timezone, first);
  return second;
}

/** ISO weekday (1 = Monday … 7 = Sunday) of a calendar date. */
const weekdayOf = (year: number, month: number, day: number) =>
  ((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7) + 1;

/** Whether the window is open at an instant (null: no window, always open). */
export function isOpen(window: SendWindow | null, at: Date): boolean {
  if (!window) return true;
  const local = localOf(window.timezone, at.getTime());
  return (
    window.days.includes(weekdayOf(local.year, local.month, local.day)) &&
    local.minutes >= minutesOf(window.start)! &&
    local.minutes < minutesOf(window.end)!
  );
}

/** The window's open spans [start, end) in epoch ms from `from` on, in order, for at most MAX_DAYS days. */
export function* openSpans(window: SendWindow, from: number): Generator<[number, number]> {
  const start = minutesOf(window.start)!;
  const end = minutesOf(window.end)!;
  const first = localOf(window.timezone, from);
  for (let i = 0; i < MAX_DAYS; i++) {
    const date = new Date(Date.UTC(first.year, first.month - 1, first.day) + i * DAY_MS);
    const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (!window.days.includes(weekdayOf(y, m, d))) continue;
    const opens = Math.max(instantOf(window.timezone, y, m, d, start), from);
    const closes = instantOf(window.timezone, y, m, d, end);
    if (closes > opens) yield [opens, closes];
  }
}

/**
 * When each amount of sending work (seconds, ascending) is done, counted from `from`, if sending
 * happens only while the window is open: the wall-clock instants (epoch ms), one per amount. Work
 * that ends exactly when the window closes is done then; work that starts there waits for the next
 * opening (`startsAt` true: the instants at which sends begin rather than end).
 */
export function windowedTimes(window: SendWindow, from: number, works: number[], startsAt = false): number[] {
  const out: number[] = [];
  const spans = openSpans(window, from);
  let span = spans.next();
  // Open time used before the current span began.
  let before = 0;
  let last = from;
  for (const work of works) {
    const ms = work * 1000;
    for (;;) {
      if (span.done) {
        // Past the calendar walked: the rest counts as open time.
        out.push(last + (ms - before));
        break;
      }
      const [opens, closes] = span.value;
      const length = closes - opens;
      const into = ms - before;
      if (startsAt ? into < length : into <= length) {
        out.push(opens + into);
        break;
      }
      before += length;
      last = closes;
      span = spans.next();
    }
  }
  return out;
}
