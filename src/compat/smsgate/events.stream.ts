import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../lib/logger';

/** The push events the app acts on (client-go domain_upstream.go PushEventType). */
export type StreamEvent = 'MessageEnqueued' | 'SettingsUpdated' | 'WebhooksUpdated';

export interface StreamHubOptions {
  orm: MikroORM;
  clock: Clock;
  logger: Logger;
  /** How often the open streams' phones are looked at, all of them in one query. */
  pollMs?: number;
  /** Comment lines that keep proxies from closing an idle stream (their sse/config.go: 15 s). */
  keepAliveMs?: number;
}

export interface StreamConnection {
  send(event: StreamEvent): void;
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
}

/**
 * The app's Server-Sent Events channel (server modules/sse/service.go), fed by what the database
 * says rather than by in-process calls: every api process looks at the phones whose streams it holds
 * once per `pollMs`, in one indexed query for all of them, and tells each phone what changed (new
 * sendable messages, settings, the webhook list). So a send accepted by any process, a scheduled
 * batch coming due in the worker, or a settings change anywhere reaches the phone within `pollMs`,
 * and the cost is one query per interval per process, not per phone.
 */
export function createStreamHub({ orm, clock, logger, pollMs = 2_000, keepAliveMs = 15_000 }: StreamHubOptions) {
  const connections = new Map<string, Set<StreamConnection>>();
  const known = new Map<string, Snapshot>();
  let poller: NodeJS.Timeout | undefined;
  let keeper: NodeJS.Timeout | undefined;
  let polling = false;

  async function look(deviceIds: string[]): Promise<Map<string, Snapshot>> {
    const rows = await orm.em
      .fork()
      .execute<{ id: string; live: boolean; settings: string; receiving: boolean; newest_queued: string | null }[]>(
        `select d.id,
              d.unpaired_at is null and d.token_hash is not null as live,
              concat_ws(':', d.enabled, d.heartbeat_interval_minutes, d.send_delay_seconds,
                        d.preferred_sim_subscription_id) as settings,
              d.receive_enabled as receiving,
              (select m.id from messages m
                where m.device_id = d.id and m.direction = 'outbound' and m.status = 'queued'
                  and m.available_at <= ? and (m.stale_at is null or m.stale_at > ?)
                  and not exists (select 1 from batches b where b.id = m.batch_id and b.status = 'scheduled')
                order by m.available_at desc, m.created_at desc limit 1) as newest_queued
         from devices d where d.id = any(?::uuid[])`,
        [clock.now(), clock.now(), `{${deviceIds.join(',')}}`],
      );
    return new Map(
      rows.map((row) => [
        row.id,
        { live: row.live, settings: row.settings, receiving: row.receiving, newestQueued: row.newest_queued },
      ]),
    );
  }

  function tell(deviceId: string, event: StreamEvent) {
    for (const connection of connections.get(deviceId) ?? []) connection.send(event);
  }

  async function poll(): Promise<void> {
    if (polling || connections.size === 0) return;
    polling = true;
    try {
      const now = await look([...connections.keys()]);
      for (const deviceId of connections.keys()) {
        const before = known.get(deviceId);
        const after = now.get(deviceId);
        if (!after || !after.live) {
          for (const connection of connections.get(deviceId) ?? []) connection.end();
          continue;
        }
        known.set(deviceId, after);
        if (!before) continue;
        if (after.newestQueued && after.newestQueued !== before.newestQueued) tell(deviceId, 'MessageEnqueued');
        if (after.settings !== before.settings) tell(deviceId, 'SettingsUpdated');
        // receive_enabled decides whether the sms:received webhook is listed.
        if (after.receiving !== before.receiving) tell(deviceId, 'WebhooksUpdated');
      }
    } catch (error) {
      logger.warn({ err: error }, 'smsgate event stream: could not look at the phones');
    } finally {
      polling = false;
    }
  }

  function startTimers() {
    if (poller) return;
    poller = setInterval(() => void poll(), pollMs);
    keeper = setInterval(() => {
      for (const set of connections.values()) for (const connection of set) connection.keepAlive();
    }, keepAliveMs);
    poller.unref();
    keeper.unref();
  }

  function stopTimers() {
    clearInterval(poller);
    clearInterval(keeper);
    poller = undefined;
    keeper = undefined;
  }

  return {
    /**
     * Registers a phone's stream after taking its snapshot, so anything queued from now on is news
     * (the app pulls its messages as soon as the stream opens). Returns the unregister function.
     */
    async open(deviceId: string, connection: StreamConnection): Promise<() => void> {
      const snapshot = (await look([deviceId])).get(deviceId);
      if (snapshot && !known.has(deviceId)) known.set(deviceId, snapshot);
      const set = connections.get(deviceId) ?? new Set();
      set.add(connection);
      connections.set(deviceId, set);
      startTimers();
      let registered = true;
      return () => {
        if (!registered) return;
        registered = false;
        set.delete(connection);
        if (set.size === 0 && connections.get(deviceId) === set) {
          connections.delete(deviceId);
          known.delete(deviceId);
        }
        if (connections.size === 0) stopTimers();
      };
    },

    /** Streams open in this process (tests, metrics). */
    size: () => [...connections.values()].reduce((n, set) => n + set.size, 0),
  };
}

export type StreamHub = ReturnType<typeof createStreamHub>;
