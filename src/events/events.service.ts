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
}

/** Called after the transaction that recorded events has committed (starts delivery workflows). */
export type AfterCommit = (events: Event[]) => Promise<void>;

/**
 * The one place events are recorded. `emit` must run inside the transaction that makes the state
 * change (`tx`), so the change and its event commit together (transactional outbox). The webhooks
 * feature extends this with one delivery row per subscribed endpoint, in the same transaction.
 */
export function createEventsService({ clock }: { clock: Clock }) {
  const fanOuts: Array<(tx: EntityManager, event: Event) => Promise<void>> = [];
  const afterCommits: AfterCommit[] = [];

  return {
    /** Registers what else happens, in the same transaction, for every event (webhook deliveries). */
    onEmit(fanOut: (tx: EntityManager, event: Event) => Promise<void>) {
      fanOuts.push(fanOut);
    },
    /** Registers what happens once the events' transaction committed (start delivery workflows). */
    onCommitted(hook: AfterCommit) {
      afterCommits.push(hook);
    },

    async emit(tx: EntityManager, input: EmitInput): Promise<Event> {
      const event = tx.create(Event, {
        userId: input.userId,
        name: input.name,
        data: input.data,
        messageId: input.messageId ?? null,
        deviceId: input.deviceId ?? null,
        createdAt: clock.now(),
      });
      await tx.flush();
      for (const fanOut of fanOuts) await fanOut(tx, event);
      return event;
    },

    /** Runs the after-commit hooks; failures are left to the reconciler, which finds what was not started. */
    async committed(events: Event[]): Promise<void> {
      if (events.length === 0) return;
      for (const hook of afterCommits) await hook(events);
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
