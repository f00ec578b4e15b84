// Pure helper, also imported by workflow code: no Node modules here.

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** "90s", "15m", "1h", "1.5h", "2d" or a bare number of milliseconds → milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) throw new Error(`not a duration: "${text}" (use e.g. 90s, 15m, 1h, 2d)`);
  const ms = Number(match[1]) * UNITS[match[2] ?? 'ms'];
  if (!Number.isFinite(ms) || ms <= 0) throw new Error(`duration must be positive: "${text}"`);
  return Math.round(ms);
}

/** A comma list of durations, e.g. the webhook retry schedule "1m,5m,15m,1h". */
export function parseDurationList(text: string): number[] {
  return text.split(',').map((part) => parseDuration(part));
}
