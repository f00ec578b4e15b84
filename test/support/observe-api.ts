// What the service's clients saw (the test and its simulated phones), for the tests that judge a
// whole run: test/chaos and test/cluster.
import { expect } from 'vitest';

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

/** Every message's status, read page by page through GET /v1/messages (`get` adds the API key). */
export async function messageStatuses(get: (path: string) => Promise<Response>): Promise<Map<string, string>> {
  const statuses = new Map<string, string>();
  for (let cursor: string | undefined = ''; cursor !== undefined;) {
    const page = (await (
      await get(`/v1/messages?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    ).json()) as { data: Array<{ id: string; status: string }>; next_cursor?: string };
    for (const message of page.data) statuses.set(message.id, message.status);
    cursor = page.next_cursor;
  }
  return statuses;
}

/** Texts the phones sent, per message id. */
export function textsSent(phones: Array<{ sendCounts: Map<string, number> }>): Map<string, number> {
  const sends = new Map<string, number>();
  for (const phone of phones) for (const [id, n] of phone.sendCounts) sends.set(id, (sends.get(id) ?? 0) + n);
  return sends;
}

/** One request a webhook endpoint received. */
export interface Hook {
  /** The event's id (its body's `id`). */
  id: string;
  event: string;
  messageId: string;
  deliveryId: string;
  /** Test time of the request, in seconds. */
  at?: string;
  /** When it arrived (Date.now()). */
  receivedAt?: number;
  answered?: number;
}

/** Deliveries the service still has open (pending or retrying), as GET /v1/webhooks/deliveries lists them. */
export async function openDeliveries(get: (path: string) => Promise<Response>): Promise<number> {
  let open = 0;
  for (const status of ['pending', 'retrying']) {
    const page = (await (await get(`/v1/webhooks/deliveries?status=${status}&limit=1`)).json()) as { data: unknown[] };
    open += page.data.length;
  }
  return open;
}

/**
 * The event ids per (message, event name), and the delivery ids per event, the endpoint saw; one of
 * each expected (a delivery's retries keep its id), and some first attempts refused (retries seen).
 */
export function expectOneDeliveryPerEvent(hooks: Hook[]) {
  const eventsOf = new Map<string, Set<string>>();
  const deliveriesOf = new Map<string, Set<string>>();
  for (const hook of hooks) {
    const k = `${hook.messageId} ${hook.event}`;
    eventsOf.set(k, (eventsOf.get(k) ?? new Set()).add(hook.id));
    deliveriesOf.set(hook.id, (deliveriesOf.get(hook.id) ?? new Set()).add(hook.deliveryId));
  }
  expect([...eventsOf.entries()].filter(([, ids]) => ids.size !== 1)).toEqual([]);
  expect([...deliveriesOf.entries()].filter(([, ids]) => ids.size !== 1)).toEqual([]);
  expect(hooks.some((h) => h.answered === 503)).toBe(true);
  return { eventsOf, deliveriesOf };
}
