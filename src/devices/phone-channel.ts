import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../lib/clock';
import { devicesRepository } from './devices.repository';
import { isOpen } from './send-window';
import type { Notifier } from '../db/listen-notify';
import type { Logger } from '../lib/logger';

/** What the database triggers NOTIFY when a phone has new work or settings (Migration…PhoneChannel). */
export const DEVICES_CHANNEL = 'phone_gateway_devices';

/** NOTIFYed when a phone has reported the last message it held while more waits (outcomes.report). */
export const DRAINED_CHANNEL = 'phone_gateway_drained';

/**
 * What a phone is told: new sendable work in its outbox, a changed setting it applies, a change of
 * whether it forwards received texts. Each route names them in its own protocol.
 */
export type PhoneEvent = 'outbox' | 'settings' | 'receiving';

/**
 * What the channel asks of the phones' outboxes, all phones in one query each (the messages feature's
 * outbox repository, passed in by the composition root).
 */
export interface OutboxProbes {
  /** Per phone, the ids of the messages due now, newest first, joined by commas. */
  newestDue(em: EntityManager, deviceIds: string[], now: Date): Promise<Map<string, string>>;
  /** The phones whose pace (per minute, hour or day) is spent now. */
  pacedOut(em: EntityManager, deviceIds: string[], now: Date): Promise<Set<string>>;
  /** Per phone, whether it holds handed-out messages and when it last took one. */
  leases(
    em: EntityManager,
    deviceIds: string[],
    now: Date,
  ): Promise<Map<string, { leased: boolean; handedOutAt: string | null }>>;
}

export interface PhoneChannelOptions {
  orm: MikroORM;
  outbox: OutboxProbes;
  clock: Clock;
  logger: Logger;
  /** Tells which phone changed, from any process; without it (or while it cannot listen) polls carry it. */
  notifier?: Notifier;
  /** How often the open streams' phones are looked at, all of them in one query, while nothing listens. */
  pollMs?: number;
  /** The same while notifications arrive: only a safety net then. */
  listeningPollMs?: number;
  /** Comment lines that keep proxies from closing an idle stream (their sse/config.go: 15 s). */
  keepAliveMs?: number;
}

export interface PhoneConnection {
  send(event: PhoneEvent): void;
  keepAlive(): void;
  /** The phone was unpaired: its stream ends (the app reconnects, and its token is refused). */
  end(): void;
}

/** What is compared between two looks at a phone: a change is an event. */
interface Snapshot {
  live: boolean;
  settings: string;
  receiving: boolean;
  /** The newest queued, sendable message; another one appearing means new work. */
  newestQueued: string | null;
  /** Its send window is open (or it has none): work waiting for the window is news when it opens. */
  open: boolean;
  /** Its max_sends_per_minute/hour allow nothing new now: work waiting for its pace is news when it frees. */
  pacedOut: boolean;
  /** It holds handed-out messages it has not reported yet. */
  leased: boolean;
  /** When it was last handed a message: a change says it fetched since the last look. */
  handedOutAt: string | null;
}

/**
 * The phones' live channel (our `GET /v1/device/events` and the SMSGate app's event stream), fed by
 * what the database says rather than by in-process calls. A phone with an open stream is looked at again as soon as
 * the database NOTIFYs that it changed (a send accepted by any process, a scheduled batch coming due
 * in the worker, a settings change anywhere), and all of them periodically in one indexed query, so
 * a lost notification costs at most `listeningPollMs` (or `pollMs` while nothing listens). Each look
 * compares with the last one and tells the phone what changed: new sendable messages, more of them
 * once it has reported all it was handed, settings, the webhook list.
 */
export function createPhoneChannel({
  orm,
  outbox,
  clock,
  logger,
  notifier,
  pollMs = 2_000,
  listeningPollMs = 15_000,
  keepAliveMs = 15_000,
}: PhoneChannelOptions) {
  const connections = new Map<string, Set<PhoneConnection>>();
  const known = new Map<string, Snapshot>();
  let poller: NodeJS.Timeout | undefined;
  let keeper: NodeJS.Timeout | undefined;
  let polling: Promise<void> | null = null;
  let unsubscribe: Promise<(() => Promise<void>) | null> | null = null;
  let stopState: (() => void) | null = null;
  // Phones a notification named, looked at together on the next tick.
  const due = new Set<string>();
  const drained = new Set<string>();
  let dueTimer: NodeJS.Timeout | undefined;

  async function look(deviceIds: string[]): Promise<Map<string, Snapshot>> {
    const em = orm.em.fork();
    const now = clock.now();
    const [rows, due, leases, pacedOut] = await Promise.all([
      devicesRepository.channelStates(em, deviceIds),
      outbox.newestDue(orm.em.fork(), deviceIds, now),
      outbox.leases(orm.em.fork(), deviceIds, now),
      outbox.pacedOut(orm.em.fork(), deviceIds, now),
    ]);
    return new Map(
      rows.map((row) => [
        row.id,
        {
          live: row.live,
          settings: row.settings,
          receiving: row.receiving,
          newestQueued: due.get(row.id) ?? null,
          open: isOpen(row.sendWindow, now),
          pacedOut: pacedOut.has(row.id),
          leased: leases.get(row.id)?.leased ?? false,
          handedOutAt: leases.get(row.id)?.handedOutAt ?? null,
        },
      ]),
    );
  }

  function tell(deviceId: string, event: PhoneEvent) {
    for (const connection of connections.get(deviceId) ?? []) connection.send(event);
  }

  /** `emptied`: phones said to have reported all they held (this look tells them of the rest). */
  async function poll(only?: string[], emptied: ReadonlySet<string> = new Set()): Promise<void> {
    const deviceIds = (only ?? [...connections.keys()]).filter((id) => connections.has(id));
    if (deviceIds.length === 0) return;
    try {
      const now = await look(deviceIds);
      for (const deviceId of deviceIds) {
        if (!connections.has(deviceId)) continue;
        const before = known.get(deviceId);
        const after = now.get(deviceId);
        if (!after || !after.live) {
          for (const connection of connections.get(deviceId) ?? []) connection.end();
          continue;
        }
        known.set(deviceId, after);
        if (!before) continue;
        // Outside its send window the phone would fetch nothing: it hears of the work when the window opens.
        const newWork = after.newestQueued !== null && after.newestQueued !== before.newestQueued;
        const opened = after.newestQueued !== null && !before.open;
        // Likewise a phone whose pace let it fetch nothing hears of the work when its pace frees.
        const freed = after.newestQueued !== null && before.pacedOut && !after.pacedOut;
        // A fetch hands out a page at most; a phone that reported all it was handed while more waits
        // is told again, once per page (a phone that pulls only when told would otherwise wait).
        const more =
          after.newestQueued !== null &&
          !after.leased &&
          (emptied.has(deviceId) || before.leased || after.handedOutAt !== before.handedOutAt);
        if (after.open && (newWork || opened || more || freed)) tell(deviceId, 'outbox');
        if (after.settings !== before.settings) tell(deviceId, 'settings');
        if (after.receiving !== before.receiving) tell(deviceId, 'receiving');
      }
    } catch (error) {
      logger.warn({ err: error }, 'phone channel: could not look at the phones');
    }
  }

  /** One look at a time, so two looks never compare against each other's half-written snapshots. */
  function serially(only?: string[], emptied?: ReadonlySet<string>): Promise<void> {
    const next: Promise<void> = (polling ?? Promise.resolve()).then(() => poll(only, emptied));
    const tracked = next.finally(() => {
      if (polling === tracked) polling = null;
    });
    polling = tracked;
    return next;
  }

  function noticed(deviceId: string) {
    if (!connections.has(deviceId)) return;
    due.add(deviceId);
    dueTimer ??= setTimeout(() => {
      dueTimer = undefined;
      const ids = [...due];
      const emptied = new Set(drained);
      due.clear();
      drained.clear();
      void serially(ids, emptied);
    }, 20);
  }

  function noticedDrained(deviceId: string) {
    if (!connections.has(deviceId)) return;
    drained.add(deviceId);
    noticed(deviceId);
  }

  function every(ms: number) {
    clearInterval(poller);
    poller = setInterval(() => void serially(), ms);
    poller.unref();
  }

  function startTimers() {
    if (poller) return;
    every(notifier?.listening() ? listeningPollMs : pollMs);
    keeper = setInterval(() => {
      for (const set of connections.values()) for (const connection of set) connection.keepAlive();
    }, keepAliveMs);
    keeper.unref();
    if (notifier) {
      stopState = notifier.onState((listening) => {
        if (poller) every(listening ? listeningPollMs : pollMs);
        // Whatever happened while nothing listened is found by looking at every phone now.
        if (listening) void serially();
      });
      const subscribe = (channel: string, handler: (deviceId: string) => void) =>
        notifier.subscribe(channel, handler).catch((error) => {
          logger.warn({ err: error, channel }, 'phone channel: could not subscribe');
          return null;
        });
      unsubscribe = Promise.all([subscribe(DEVICES_CHANNEL, noticed), subscribe(DRAINED_CHANNEL, noticedDrained)]).then(
        (stops) => async () => {
          for (const stop of stops) await stop?.();
        },
      );
    }
  }

  function stopTimers() {
    clearInterval(poller);
    clearInterval(keeper);
    clearTimeout(dueTimer);
    dueTimer = undefined;
    due.clear();
    drained.clear();
    poller = undefined;
    keeper = undefined;
    stopState?.();
    stopState = null;
    const leaving = unsubscribe;
    unsubscribe = null;
    void leaving?.then((stop) => stop?.());
  }

  return {
    /**
     * Registers a phone's stream: first listening, then its snapshot, so anything queued from then on
     * is news (the app pulls its messages as soon as the stream opens). Returns the unregister function.
     */
    async open(deviceId: string, connection: PhoneConnection): Promise<() => void> {
      const set = connections.get(deviceId) ?? new Set();
      set.add(connection);
      connections.set(deviceId, set);
      let registered = true;
      const unregister = () => {
        if (!registered) return;
        registered = false;
        set.delete(connection);
        if (set.size === 0 && connections.get(deviceId) === set) {
          connections.delete(deviceId);
          known.delete(deviceId);
        }
        if (connections.size === 0) stopTimers();
      };
      try {
        startTimers();
        await unsubscribe;
        const snapshot = (await look([deviceId])).get(deviceId);
        if (snapshot && !known.has(deviceId)) known.set(deviceId, snapshot);
      } catch (error) {
        unregister();
        throw error;
      }
      return unregister;
    },

    /** Looks at every open stream's phone once more, after any look under way (tests wait on it). */
    lookNow: (): Promise<void> => serially(),

    /** Streams open in this process (tests, metrics). */
    size: () => [...connections.values()].reduce((n, set) => n + set.size, 0),
  };
}

export type PhoneChannel = ReturnType<typeof createPhoneChannel>;
