import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction';
import { devicesRepository } from '../devices/devices.repository';
import { forbidden } from '../http/errors';
import type { Page } from '../http/pagination';
import type { Clock } from '../lib/clock';
import type { Metrics } from '../metrics/metrics';
import type { PlansService } from '../plans/plans.service';
import type { EventsService } from '../events/events.service';
import type { Message } from './message.entity';
import { messagesRepository } from './messages.repository';
import { messageView } from './messages.views';
import type { OutcomesService } from './outcomes.service';

export interface PhoneMessagesDeps {
  em: () => EntityManager;
  clock: Clock;
  plans: PlansService;
  outcomes: OutcomesService;
  events: EventsService;
  metrics: Metrics['phone'];
}

export interface InboundInput {
  body: string;
  receivedAt: Date;
  sender: string;
  fingerprint?: string | null;
  simSubscriptionId?: number | null;
}

/** The phone's side of messaging: its outbox, inbound texts and its own message list. */
export function createPhoneMessagesService(deps: PhoneMessagesDeps) {
  const { em, clock } = deps;

  return {
    /**
     * Hands out what the phone may send now, oldest first, marking queued ones dispatched. A message
     * stays in the outbox until an outcome is reported, so a phone that lost it gets it again;
     * lapsed (unknown) and final ones never come back.
     */
    async outbox(deviceId: string, limit: number): Promise<Message[]> {
      const messages = await transaction(em(), async (tx) => {
        const moves = await messagesRepository.takeOutbox(tx, deviceId, clock.now(), limit);
        await deps.outcomes.follow(tx, moves);
        return moves.map((m) => m.message);
      });
      deps.metrics.outboxFetches.inc();
      deps.metrics.outboxMessages.inc(messages.length);
      return messages;
    },

    /** Stores an inbound text once per fingerprint, race-free; returns whether it was new. */
    async inbound(deviceId: string, input: InboundInput): Promise<{ inserted: boolean; message: Message }> {
      const fingerprint =
        input.fingerprint ??
        // Phones that send none are de-duplicated on what they did send.
        createHash('sha256').update(`${input.sender}\n${input.receivedAt.toISOString()}\n${input.body}`).digest('hex');
      const result = await transaction(em(), async (tx) => {
        const device = await devicesRepository.receiver(tx, deviceId);
        if (!device.receive_enabled) {
          throw forbidden('receive_disabled', 'Receiving is turned off for this phone (receive_enabled is false).');
        }
        const message = await messagesRepository.insertInbound(tx, {
          userId: device.user_id,
          deviceId,
          body: input.body,
          sender: input.sender,
          simSubscriptionId: input.simSubscriptionId ?? null,
          fingerprint,
          receivedAt: input.receivedAt,
          now: clock.now(),
        });
        if (!message) {
          return { inserted: false, message: await messagesRepository.inboundByFingerprint(tx, deviceId, fingerprint) };
        }
        await devicesRepository.addReceived(tx, deviceId);
        await deps.plans.countReceived(tx, device.user_id, 1);
        await deps.events.emit(tx, {
          userId: message.userId,
          name: 'message.received',
          data: messageView(message),
          messageId: message.id,
          deviceId: message.deviceId,
        });
        return { inserted: true, message };
      });
      deps.metrics.inbound.inc({ result: result.inserted ? 'new' : 'duplicate' });
      return result;
    },

    /** GET /v1/device/messages: the phone's own messages, newest first. */
    list: (deviceId: string, query: { direction?: string; cursor?: string; limit: number }): Promise<Page<Message>> =>
      messagesRepository.list(
        em(),
        { deviceIds: [deviceId], direction: query.direction },
        { cursor: query.cursor, limit: query.limit, order: 'desc' },
      ),

    view: messageView,
  };
}

export type PhoneMessagesService = ReturnType<typeof createPhoneMessagesService>;
