// Percentiles and the formatting every figure of the bench shares.

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  max: number;
  /** p50 of each round, to show drift between rounds. */
  rounds: number[];
}

export function percentile(samples: number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  // Nearest rank: the smallest sample with at least q of them at or below it.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function summarize(rounds: number[][]): Summary {
  const all = rounds.flat();
  return {
    n: all.length,
    p50: percentile(all, 0.5),
    p95: percentile(all, 0.95),
    max: all.length ? Math.max(...all) : NaN,
    rounds: rounds.map((r) => percentile(r, 0.5)),
  };
}

export const ms = (value: number) =>
  Number.isNaN(value)
    ? '—'
    : value < 10
      ? `${value.toFixed(2)} ms`
      : value < 100
        ? `${value.toFixed(1)} ms`
        : `${Math.round(value)} ms`;

export const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;

export const int = (value: number) => (Number.isNaN(value) ? '—' : Math.round(value).toLocaleString('en-US'));

export function ratio(value: number, base: number): string {
  const r = value / base;
  if (!Number.isFinite(r)) return '—';
  return `${r.toFixed(r < 1 ? 2 : r < 10 ? 1 : 0)}×`;
}

export function latencyLine(s: Summary): string {
  const rounds = s.rounds.length > 1 ? `  rounds p50: ${s.rounds.map((r) => r.toFixed(r < 10 ? 2 : 1)).join(' ')}` : '';
  return `p50 ${ms(s.p50)}  p95 ${ms(s.p95)}  (n=${s.n})${rounds}`;
}

/** The least-squares line through (x, y) points: its slope and the slope's standard error. */
export function leastSquares(points: Array<[number, number]>): { slope: number; stderr: number } {
  const n = points.length;
  if (n < 3) return { slope: NaN, stderr: NaN };
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  const slope = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0) / sxx;
  const residuals = points.reduce((sum, [x, y]) => sum + (y - my - slope * (x - mx)) ** 2, 0);
  return { slope, stderr: Math.sqrt(residuals / (n - 2) / sxx) };
}
