import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../lib/clock';
import { Event, type EventName } from './event.entity';

export interface EmitInput {
  userId: string;
  name: EventName;
  /** The resource as the API renders it (Message or Device view). */
  data: Record<string, unknown>;
  messageId?: string | null;
  deviceId?: string | null;
  /**
   * Only this webhook receives it, whatever it subscribes to: the ping of POST /v1/webhooks/{id}/test.
   * Without it, every enabled webhook of the account subscribed to the event does.
   */
  webhookId?: string;
}

/** What else happens, in the same transaction, for every event (one webhook delivery per endpoint). */
export type FanOut = (tx: EntityManager, event: Event, input: EmitInput) => Promise<void>;

/** Called after the transaction that recorded events has committed (starts delivery workflows). */
export type AfterCommit = (events: Event[]) => Promise<void>;

/**
 * The one place events are recorded. `emit` must run inside the transaction that makes the state
 * change (`tx`), so the change, its event and the deliveries it causes commit together
 * (transactional outbox). After the commit the emitter calls `committed(events)`; whatever that
 * fails to start, the reconciler starts later.
 */
export function createEventsService({ clock }: { clock: Clock }) {
  const fanOuts: FanOut[] = [];
  const afterCommits: AfterCommit[] = [];

  /** Many events of one state change (a sweep, a disabled phone), inserted together. */
  async function emitMany(tx: EntityManager, inputs: EmitInput[]): Promise<Event[]> {
    const now = clock.now();
    const events = inputs.map((input) =>
      tx.create(Event, {
        userId: input.userId,
        name: input.name,
        data: input.data,
        messageId: input.messageId ?? null,
        deviceId: input.deviceId ?? null,
        createdAt: now,
      }),
    );
    await tx.flush();
    for (const [i, event] of events.entries()) for (const fanOut of fanOuts) await fanOut(tx, event, inputs[i]);
    return events;
  }

  return {
    emitMany,

    /** Registers what else happens, in the same transaction, for every event (webhook deliveries). */
    onEmit(fanOut: FanOut) {
      fanOuts.push(fanOut);
    },
    /** Registers what happens once the events' transaction committed (start delivery workflows). */
    onCommitted(hook: AfterCommit) {
      afterCommits.push(hook);
    },

    async emit(tx: EntityManager, input: EmitInput): Promise<Event> {
      const [event] = await emitMany(tx, [input]);
      return event;
    },

    /**
     * Runs the after-commit hooks. Never throws: the state change has committed, so its caller has
     * succeeded; a hook that fails (Temporal unreachable) is repaired by the reconciler.
     */
    async committed(events: Event[]): Promise<void> {
      if (events.length === 0) return;
      for (const hook of afterCommits) {
        try {
          await hook(events);
        } catch {
          // Each hook logs its own failure; the reconciler finds what was not started.
        }
      }
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
