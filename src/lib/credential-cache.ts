import type { Clock } from './clock';

/** What the cache needs of the notifier (src/db/listen-notify.ts). */
export interface ChangeFeed {
  subscribe(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
  onState(listener: (listening: boolean) => void): () => void;
  listening(): boolean;
}

export interface CredentialCacheOptions {
  /** Told the id of every credential that changed (revoked, expired, deleted, token replaced), in any process. */
  feed: ChangeFeed;
  channel: string;
  clock: Clock;
  /** A bound on staleness should a notification ever be missed while the connection looked fine. */
  ttlMs?: number;
  maxEntries?: number;
}

interface Entry<T> {
  value: T;
  id: string;
  cachedAt: number;
}

/**
 * Who a presented secret (by its hash) belongs to, remembered so an authenticated request costs no
 * lookup. Only known credentials are kept (a key created a moment ago works at once), and only while
 * this process hears every change through the feed: a change anywhere drops the entry when it
 * commits; losing the feed drops everything and stops caching until it listens again. The service
 * that changes a credential also calls `forget` itself, so this process never waits for the echo.
 */
export function createCredentialCache<T extends { id: string; expiresAt?: Date | null }>(
  options: CredentialCacheOptions,
) {
  const { feed, channel, clock, ttlMs = 60_000, maxEntries = 10_000 } = options;
  const byHash = new Map<string, Entry<T>>();
  const hashesById = new Map<string, Set<string>>();
  // Bumped on every change heard: a lookup that started before it must not store what it read.
  let generation = 0;
  let subscribed = false;
  let subscribing: Promise<void> | undefined;
  let stops: Array<() => unknown> = [];
  let stopped = false;

  function clear() {
    generation++;
    byHash.clear();
    hashesById.clear();
  }

  function forget(id: string) {
    generation++;
    for (const hash of hashesById.get(id) ?? []) byHash.delete(hash);
    hashesById.delete(id);
  }

  function start() {
    subscribing ??= (async () => {
      stops.push(
        feed.onState((listening) => {
          if (!listening) clear();
        }),
      );
      const unsubscribe = await feed.subscribe(channel, forget);
      if (stopped) return void (await unsubscribe());
      stops.push(unsubscribe);
      subscribed = true;
    })();
    return subscribing;
  }

  function store(hash: string, value: T) {
    if (byHash.size >= maxEntries) clear();
    byHash.set(hash, { value, id: value.id, cachedAt: clock.now().getTime() });
    let hashes = hashesById.get(value.id);
    if (!hashes) hashesById.set(value.id, (hashes = new Set()));
    hashes.add(hash);
  }

  return {
    /** The credential behind `hash`: from memory when it may be trusted, else from `load`. */
    async lookup(hash: string, load: () => Promise<T | null | undefined>): Promise<T | null> {
      const now = clock.now().getTime();
      const trusted = subscribed && feed.listening();
      const hit = trusted ? byHash.get(hash) : undefined;
      if (hit && now - hit.cachedAt < ttlMs && !(hit.value.expiresAt && hit.value.expiresAt.getTime() <= now)) {
        return hit.value;
      }
      if (hit) forget(hit.id);
      if (!subscribed && !stopped) void start().catch(() => undefined);
      const before = generation;
      const value = (await load()) ?? null;
      if (value && trusted && generation === before && feed.listening()) store(hash, value);
      return value;
    },

    forget,

    async stop(): Promise<void> {
      stopped = true;
      await subscribing?.catch(() => undefined);
      const stopping = stops;
      stops = [];
      subscribed = false;
      subscribing = undefined;
      clear();
      for (const stop of stopping) await stop();
    },
  };
}

export type CredentialCache<T extends { id: string; expiresAt?: Date | null }> = ReturnType<
  typeof createCredentialCache<T>
>;
