// What the service's clients saw (the test and its simulated phones), for the tests that judge a
// whole run: test/chaos and test/cluster.

/** A message still open: not yet given an outcome by its phone. */
const OPEN = new Set(['queued', 'dispatched']);

/**
 * Every request the test and the phones make to the api (at `base`, or any of several api processes),
 * seen on the way (global fetch): its status, the messages each outbox fetch handed out (with when
 * that fetch began) and when the service accepted each message's outcome (the report's answer shows
 * it no longer open).
 */
export function observeApi(base: string | string[]) {
  const origins = new Set([base].flat());
  /** Status 0: no answer (refused, reset, timed out). */
  const seen: Array<{ method: string; path: string; startedAt: number; status: number; error?: string }> = [];
  const handOuts: Array<{ id: string; requestedAt: number }> = [];
  const acceptedAt = new Map<string, number>();
  const real = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!origins.has(url.origin)) return real(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const startedAt = Date.now();
    const res = await real(input, init).catch((error: Error) => {
      // A phone being stopped aborts its own requests: not the service's doing.
      if (error.name !== 'AbortError')
        seen.push({ method, path: url.pathname, startedAt, status: 0, error: `${error.name}: ${error.message}` });
      throw error;
    });
    const answeredAt = Date.now();
    seen.push({ method, path: url.pathname, startedAt, status: res.status });
    if (res.ok && method === 'GET' && url.pathname === '/v1/device/outbox') {
      const body = (await res.clone().json()) as { data: Array<{ id: string }> };
      for (const row of body.data) handOuts.push({ id: row.id, requestedAt: startedAt });
    }
    if (res.ok && method === 'POST' && url.pathname === '/v1/device/messages/status') {
      const body = (await res.clone().json()) as { data: Array<{ id: string; message?: { status: string } }> };
      for (const item of body.data) {
        if (item.message && !OPEN.has(item.message.status) && !acceptedAt.has(item.id))
          acceptedAt.set(item.id, answeredAt);
      }
    }
    return res;
  };
  return { seen, handOuts, acceptedAt, restore: () => (globalThis.fetch = real) };
}
