// Where a phone's messages stand in its outbox: each message's stale deadline is the time it should
// have been sent (its sendable time + its position in the phone's outbox × the time per message) +
// STALE_WINDOW, and the batch's estimated completion is when its last message should have been sent.
//
// The time per message is the phone's pause (send_delay_seconds, plus half its jitter on average)
// plus SECONDS_PER_MESSAGE, or longer when the phone's pace (max_sends_per_minute/hour/day, its sending
// capacity per period) allows fewer: 30 per 30 minutes is a minute a message. That is the pace's
// steady rate: a phone that starts with its period's whole capacity sends the first texts sooner,
// so a deadline counted this way is never earlier than the text can go. With a send window the time counts only while the window is open. A high-priority send
// counts only the high-priority messages ahead of it. A send's ttl_seconds caps its deadlines.

import type { PacingRow } from '../devices/devices.repository';
import { windowedTimes, type SendWindow } from '../devices/send-window';

// What a phone needs per message beyond the delay it is told to keep: our estimate of send time.
export const SECONDS_PER_MESSAGE = 5;

/** A phone's settings that set its pace. */
export interface Pace {
  sendDelaySeconds: number;
  jitterSeconds: number;
  maxPerMinute: number | null;
  maxPerHour: number | null;
  maxPerDay: number | null;
  /** At most `count` texts in any trailing `minutes` (the phone's platform limit); null: none known. */
  capacity: { count: number; minutes: number } | null;
  window: SendWindow | null;
}

/** The pace of a phone's row. */
export const paceOf = (row: PacingRow): Pace => ({
  sendDelaySeconds: row.sendDelaySeconds,
  jitterSeconds: row.sendDelayJitterSeconds,
  maxPerMinute: row.maxSendsPerMinute,
  maxPerHour: row.maxSendsPerHour,
  maxPerDay: row.maxSendsPerDay,
  capacity: row.sendingCapacity != null ? { count: row.sendingCapacity, minutes: row.sendingCapacityMinutes } : null,
  window: row.sendWindow,
});

export const NO_PACE: Pace = {
  sendDelaySeconds: 0,
  jitterSeconds: 0,
  maxPerMinute: null,
  maxPerHour: null,
  maxPerDay: null,
  capacity: null,
  window: null,
};

export interface PlacementInput {
  /** When the batch's messages became sendable (accept time, or scheduled_at on release). */
  sendableAt: Date;
  /** Messages already waiting on the phone (of the send's priority or higher). */
  ahead: number;
  count: number;
  pace: Pace;
  staleWindowMs: number;
  /** The send's own lifetime, from when it became sendable; null: the stale window alone. */
  ttlSeconds: number | null;
  /**
   * When the phone's outbox resumes after a pause for its platform's limit (devices.paused_until):
   * nothing goes before then, so its messages are placed from then (the ttl still counts from
   * sendableAt). Null or past: no pause.
   */
  resumeAt?: Date | null;
}

/** Seconds a phone takes per message at its pace. */
export function secondsPerMessage(pace: Pace): number {
  return Math.max(
    pace.sendDelaySeconds + pace.jitterSeconds / 2 + SECONDS_PER_MESSAGE,
    pace.maxPerMinute ? 60 / pace.maxPerMinute : 0,
    pace.maxPerHour ? 3600 / pace.maxPerHour : 0,
    pace.maxPerDay ? 86_400 / pace.maxPerDay : 0,
    pace.capacity ? (pace.capacity.minutes * 60) / pace.capacity.count : 0,
  );
}

/**
 * Stale deadlines of a batch's messages in position order: the n-th (from 0) is
 * `firstStaleAt + n × perMessageSeconds`, or `staleAts[n]` when given (a send window makes them
 * uneven), never later than `ttlAt`.
 */
export interface Deadlines {
  firstStaleAt: Date;
  perMessageSeconds: number;
  staleAts: Date[] | null;
  ttlAt: Date | null;
}

export function placement(input: PlacementInput): Deadlines & { estimate: Date } {
  const perMessageSeconds = secondsPerMessage(input.pace);
  const sendable = input.sendableAt.getTime();
  const ttlAt = input.ttlSeconds != null ? new Date(sendable + input.ttlSeconds * 1000) : null;
  const start = Math.max(sendable, input.resumeAt?.getTime() ?? sendable);
  const window = input.pace.window;
  if (!window) {
    return {
      perMessageSeconds,
      firstStaleAt: new Date(start + input.staleWindowMs + input.ahead * perMessageSeconds * 1000),
      staleAts: null,
      ttlAt,
      estimate: new Date(start + Math.round((input.ahead + input.count) * perMessageSeconds * 1000)),
    };
  }
  // The n-th message starts once the open time of everything ahead of it has passed.
  const works = Array.from({ length: input.count }, (_, n) => (input.ahead + n) * perMessageSeconds);
  const starts = windowedTimes(window, start, works, true);
  const [done] = windowedTimes(window, start, [(input.ahead + input.count) * perMessageSeconds]);
  const staleAts = starts.map((at) => new Date(Math.round(at) + input.staleWindowMs));
  return {
    perMessageSeconds,
    firstStaleAt: staleAts[0] ?? new Date(start + input.staleWindowMs),
    staleAts,
    ttlAt,
    estimate: new Date(Math.round(done)),
  };
}
