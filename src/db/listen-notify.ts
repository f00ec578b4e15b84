import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../lib/logger';
import { acquireConnection, releaseConnection, type PgConnection as ListeningClient } from './connection';
import { query, sql } from './sql';

type Handler = (payload: string) => void;

const CHANNEL_NAME = /^[a-z][a-z0-9_]{0,62}$/;

export interface NotifierOptions {
  orm: MikroORM;
  logger: Logger;
  /** Wait before listening again after the connection was lost. */
  retryMs?: number;
}

/**
 * "Something changed", told to every api process through Postgres LISTEN/NOTIFY: never state (a
 * listener reads what changed from the database), so a lost notification costs latency, not
 * correctness. `notify` runs in the caller's transaction and is delivered when it commits, not if it
 * rolls back; identical notifications of one transaction arrive once. One connection of the ORM's
 * pool listens, and only while someone subscribes.
 */
export function createNotifier({ orm, logger, retryMs = 1_000 }: NotifierOptions) {
  const handlers = new Map<string, Set<Handler>>();
  const stateListeners = new Set<(listening: boolean) => void>();
  let client: ListeningClient | null = null;
  const listened = new Set<string>();
  let connecting: Promise<void> | null = null;
  let retry: NodeJS.Timeout | undefined;

  const setListening = (listening: boolean) => {
    for (const listener of stateListeners) listener(listening);
  };

  const onNotification = (message: { channel: string; payload?: string }) => {
    for (const handler of handlers.get(message.channel) ?? []) {
      try {
        handler(message.payload ?? '');
      } catch (error) {
        logger.warn({ err: error, channel: message.channel }, 'notification handler failed');
      }
    }
  };

  const detachers = new WeakMap<ListeningClient, () => void>();

  /** Our listeners on a pooled connection, removed before it goes back to the pool. */
  function attach(connection: ListeningClient) {
    const onError = (error?: Error) => lost(connection, error);
    const onEnd = () => lost(connection);
    connection.on('notification', onNotification);
    connection.on('error', onError);
    connection.on('end', onEnd);
    detachers.set(connection, () => {
      connection.removeListener('notification', onNotification);
      connection.removeListener('error', onError);
      connection.removeListener('end', onEnd);
    });
  }
  const detach = (connection: ListeningClient) => detachers.get(connection)?.();

  function lost(from: ListeningClient, error?: Error) {
    if (client !== from) return;
    client = null;
    listened.clear();
    detach(from);
    // The pool sees the broken connection (knex marks it disposed) and replaces it.
    void releaseConnection(orm, from).catch(() => undefined);
    setListening(false);
    logger.warn({ err: error }, 'notifier lost its connection; listening again shortly');
    scheduleConnect();
  }

  function scheduleConnect() {
    if (retry || handlers.size === 0) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, retryMs);
    retry.unref();
  }

  async function connect(): Promise<void> {
    if (client || connecting || handlers.size === 0) return connecting ?? undefined;
    connecting = (async () => {
      let connection: ListeningClient | undefined;
      try {
        connection = await acquireConnection(orm);
        attach(connection);
        client = connection;
        await sync();
        setListening(true);
      } catch (error) {
        if (connection) {
          if (client === connection) {
            client = null;
            listened.clear();
          }
          detach(connection);
          await releaseConnection(orm, connection).catch(() => undefined);
        }
        logger.warn({ err: error }, 'notifier could not listen; trying again shortly');
        scheduleConnect();
      } finally {
        connecting = null;
      }
    })();
    return connecting;
  }

  /** Brings the connection's LISTENs in line with the subscribed channels. */
  async function sync(): Promise<void> {
    const current = client;
    if (!current) return;
    if (handlers.size === 0) return release(current);
    for (const channel of handlers.keys()) {
      if (listened.has(channel)) continue;
      listened.add(channel);
      await current.query(`listen ${channel}`);
    }
    for (const channel of listened) {
      if (handlers.has(channel)) continue;
      listened.delete(channel);
      await current.query(`unlisten ${channel}`);
    }
  }

  /** Nobody listens any more: the connection goes back to the pool. */
  async function release(current: ListeningClient) {
    client = null;
    listened.clear();
    detach(current);
    await current.query('unlisten *').catch(() => undefined);
    await releaseConnection(orm, current).catch(() => undefined);
    setListening(false);
  }

  return {
    /** In the caller's transaction: every listener of `channel`, in every process, hears `payload` on commit. */
    async notify(tx: EntityManager, channel: string, payload: string): Promise<void> {
      await query(tx, sql`select pg_notify(${channel}, ${payload})`);
    },

    /**
     * Hears `channel` until the returned function is called; resolves once listening (or once it
     * gave up for now: it keeps trying, and `onState` says when it listens).
     */
    async subscribe(channel: string, handler: Handler): Promise<() => Promise<void>> {
      if (!CHANNEL_NAME.test(channel)) throw new Error(`not a channel name: ${channel}`);
      const set = handlers.get(channel) ?? new Set<Handler>();
      set.add(handler);
      handlers.set(channel, set);
      await connect();
      const current = client;
      if (current) await sync().catch((error) => lost(current, error));
      let subscribed = true;
      return async () => {
        if (!subscribed) return;
        subscribed = false;
        set.delete(handler);
        if (set.size > 0) return;
        handlers.delete(channel);
        if (handlers.size === 0) {
          clearTimeout(retry);
          retry = undefined;
        }
        const current = client;
        await sync().catch((error) => current && lost(current, error));
      };
    },

    /** Told whenever listening starts or stops (callers poll more often while it does not listen). */
    onState(listener: (listening: boolean) => void): () => void {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },

    listening: () => client !== null,
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
