import { newIds } from '../lib/ids';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sql } from '../db/sql';
import type { Clock } from '../lib/clock';
import type { Event, EventName } from './event.entity';
import { eventsRepository } from './events.repository';

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

/** An emitted event with what it was emitted with. */
export interface Emitted {
  event: Event;
  input: EmitInput;
}

/**
 * What else happens, in the same transaction, for every batch of events (the webhooks feature
 * subscribes: one delivery per endpoint). A subscriber registers its own after-commit work.
 */
export type Subscriber = (tx: EntityManager, emitted: Emitted[]) => Promise<void>;

/**
 * The one place events are recorded. `emit` runs inside the transaction that makes the state
 * change (`tx`, from `transaction()`), so the change, its events and what subscribers add commit
 * together (transactional outbox).
 */
export function createEventsService({ clock }: { clock: Clock }) {
  const subscribers: Subscriber[] = [];

  /** Events with their ids and time, not yet recorded. */
  function stage(inputs: EmitInput[]): Emitted[] {
    const now = clock.now();
    const ids = newIds(inputs.length);
    return inputs.map((input, index) => ({
      input,
      event: {
        id: ids[index]!,
        userId: input.userId,
        name: input.name,
        data: input.data,
        messageId: input.messageId ?? null,
        deviceId: input.deviceId ?? null,
        createdAt: now,
      } as Event,
    }));
  }

  /** What subscribers add for events recorded in `tx`. */
  async function publish(tx: EntityManager, emitted: Emitted[]): Promise<void> {
    if (emitted.length === 0) return;
    for (const subscriber of subscribers) await subscriber(tx, emitted);
  }

  /** Many events of one state change (a sweep, a batch of reports), inserted together. */
  async function emitMany(tx: EntityManager, inputs: EmitInput[]): Promise<Event[]> {
    if (inputs.length === 0) return [];
    const emitted = stage(inputs);
    await eventsRepository.insertMany(
      tx,
      emitted.map((e) => e.event),
    );
    await publish(tx, emitted);
    return emitted.map((e) => e.event);
  }

  return {
    emitMany,

    /**
     * `emitMany` with the insert in another statement (a round trip saved): the insert to put in it,
     * then `publish` once it ran, in the same transaction.
     */
    staged(inputs: EmitInput[]) {
      const emitted = stage(inputs);
      return {
        insert: (after: Sql) =>
          emitted.length === 0
            ? null
            : eventsRepository.inserted(
                emitted.map((e) => e.event),
                after,
              ),
        publish: (tx: EntityManager) => publish(tx, emitted),
      };
    },

    async emit(tx: EntityManager, input: EmitInput): Promise<Event> {
      const [event] = await emitMany(tx, [input]);
      return event;
    },

    /** Registers what else happens, in the same transaction, for every batch of events. */
    subscribe(subscriber: Subscriber) {
      subscribers.push(subscriber);
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
