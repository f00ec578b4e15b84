// Where a phone's messages stand in its queue: each message's stale deadline is its sendable time +
// STALE_WINDOW + its position in the phone's queue × (send_delay_seconds + 5 s), and the batch's
// estimated completion is when its last message should have been sent.

// What a phone needs per message beyond the delay it is told to keep: our estimate of send time.
export const SECONDS_PER_MESSAGE = 5;

export interface PlacementInput {
  /** When the batch's messages became sendable (accept time, or scheduled_at on release). */
  sendableAt: Date;
  /** Messages already waiting on the phone. */
  ahead: number;
  count: number;
  sendDelaySeconds: number;
  staleWindowMs: number;
}

export function placement(input: PlacementInput) {
  const perMessageSeconds = input.sendDelaySeconds + SECONDS_PER_MESSAGE;
  const start = input.sendableAt.getTime();
  return {
    perMessageSeconds,
    /** The deadline of the batch's first message; each next one is perMessageSeconds later. */
    firstStaleAt: new Date(start + input.staleWindowMs + input.ahead * perMessageSeconds * 1000),
    estimate: new Date(start + (input.ahead + input.count) * perMessageSeconds * 1000),
  };
}
