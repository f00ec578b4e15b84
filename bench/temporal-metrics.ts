// What the Temporal dev server did, from its Prometheus metrics: RPCs its services served and the
// persistence operations they ran, summed by operation. Two readings apart give the work a request
// kind costs Temporal (the dev server's CPU alone does not say what it was spent on).

export type Counts = Map<string, number>;

// Counters only; each line `name{labels} value`.
const COUNTED = /^(service_requests|persistence_requests|visibility_persistence_requests)\{([^}]*)\} ([0-9.e+]+)$/;

/** The dev server's counters now, keyed `service_requests frontend StartWorkflowExecution`. */
export async function readTemporalCounts(metricsUrl: string): Promise<Counts> {
  const text = await (await fetch(metricsUrl)).text();
  const counts: Counts = new Map();
  for (const line of text.split('\n')) {
    const match = COUNTED.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries(
      [...match[2].matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value] as const),
    );
    const key = [match[1], labels.service_name ?? '', labels.operation ?? ''].join(' ');
    counts.set(key, (counts.get(key) ?? 0) + Number(match[3]));
  }
  return counts;
}

/** Each counter's growth between two readings per request, largest first (those under 0.05 left out). */
export function perRequest(before: Counts, after: Counts, requests: number): Array<[string, number]> {
  return [...after]
    .map(([key, value]): [string, number] => [key, (value - (before.get(key) ?? 0)) / requests])
    .filter(([, n]) => n >= 0.05)
    .sort((a, b) => b[1] - a[1]);
}

/**
 * Waits until the Temporal server has done the work that requests left behind (no service request
 * but polls counted for a second, at most three minutes); its last reading.
 */
export async function untilQuiet(metricsUrl: string): Promise<Counts> {
  const busy = (counts: Counts) =>
    [...counts]
      .filter(([key]) => key.startsWith('service_requests') && !key.includes('Poll'))
      .reduce((sum, [, n]) => sum + n, 0);
  let last = await readTemporalCounts(metricsUrl);
  for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = await readTemporalCounts(metricsUrl);
    if (busy(now) === busy(last)) return now;
    last = now;
  }
  return last;
}
