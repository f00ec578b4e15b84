import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction';
import type { ProcessingOrder } from '../devices/device.entity';
import { devicesRepository, type PacingRow } from '../devices/devices.repository';
import { isOpen } from '../devices/send-window';
import { forbidden } from '../http/errors';
import type { Page } from '../http/pagination';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import type { Metrics } from '../metrics/metrics';
import type { PlansService } from '../plans/plans.service';
import type { EventsService } from '../events/events.service';
import type { Message } from './message.entity';
import { messagesRepository } from './messages.repository';
import { inboundRepository } from './inbound.repository';
import { cutText, INBOUND_BODY_MAX, INBOUND_SENDER_MAX } from './inbound-limits';
import { outboxRepository } from './outbox.repository';
import { plainOutbox } from './plain-outbox';
import { chooseSims } from './sim-selection';
import { messageView } from './messages.views';
import type { OutcomesService } from './outcomes.service';

export interface PhoneMessagesDeps {
  em: () => EntityManager;
  clock: Clock;
  plans: PlansService;
  outcomes: OutcomesService;
  events: EventsService;
  metrics: Metrics['phone'];
  /** Where a received text kept only in part is logged (./inbound-limits.ts). */
  logger?: Logger;
  /** A paced phone's fetch used up its max_sends_per_minute/hour: it should hear when the pace frees. */
  onPacedOut?: (deviceId: string) => void;
}

export interface InboundInput {
  body: string;
  receivedAt: Date;
  sender: string;
  fingerprint?: string | null;
  simSubscriptionId?: number | null;
  /** A data SMS: the port it came to (`body` is its bytes, base64, never cut). */
  dataPort?: number | null;
}

/**
 * How many messages a paced phone may be handed for the first time now; null when it has no pace.
 * Takes the phone's paced-outbox lock first, so the count includes every earlier fetch's.
 */
async function allowance(tx: EntityManager, deviceId: string, pace: PacingRow, now: Date): Promise<number | null> {
  // Each limit: at most `count` handed out in the trailing `ms`.
  const limits = [
    { count: pace.maxSendsPerMinute, ms: 60_000 },
    { count: pace.maxSendsPerHour, ms: 3_600_000 },
    { count: pace.maxSendsPerDay, ms: 86_400_000 },
    { count: pace.sendingCapacity, ms: pace.sendingCapacityMinutes * 60_000 },
  ].filter((limit): limit is { count: number; ms: number } => limit.count !== null);
  if (limits.length === 0) return null;
  await devicesRepository.lockPacedOutbox(tx, deviceId);
  const sent = await outboxRepository.dispatchedSince(
    tx,
    deviceId,
    limits.map((limit) => new Date(now.getTime() - limit.ms)),
  );
  return Math.max(0, Math.min(...limits.map((limit, i) => limit.count - sent[i])));
}

/** The phone's side of messaging: its outbox, inbound texts and its own message list. */
export function createPhoneMessagesService(deps: PhoneMessagesDeps) {
  const { em, clock } = deps;

  return {
    /**
     * Hands out what the phone may send now, high priority first, then oldest first (newest first
     * with its processing_order lifo), marking queued ones dispatched, each new one naming no SIM
     * given one by the phone's sim_selection. `order` overrides the phone's (SMSGate's app asks). A message stays in the outbox until an outcome is reported, so a phone that
     * lost it gets it again; lapsed (unknown) and final ones never come back. A paced phone gets no
     * more new ones than its max_sends_per_minute/hour and sending capacity allow over the trailing
     * minute, hour and period, and nothing at all outside its send window or while its outbox is
     * paused for the platform's limit.
     */
    async outbox(deviceId: string, limit: number, order?: ProcessingOrder): Promise<Message[]> {
      let pacedOut = false;
      const messages =
        (await plainOutbox(em(), clock.now(), deviceId, limit, order)) ??
        (await transaction(em(), async (tx) => {
          const now = clock.now();
          const pace = await devicesRepository.pacingOf(tx, deviceId);
          if (pace?.sendWindow && !isOpen(pace.sendWindow, now)) return [];
          // The phone reported the platform's limit: nothing, not even what it holds, until the period frees.
          if (pace?.pausedUntil && pace.pausedUntil.getTime() > now.getTime()) {
            pacedOut = true;
            return [];
          }
          const fresh = pace ? await allowance(tx, deviceId, pace, now) : null;
          const { moves, sends, forSend } = await outboxRepository.takeOutbox(
            tx,
            deviceId,
            now,
            limit,
            fresh,
            order ?? pace?.processingOrder,
          );
          if (pace) await chooseSims(tx, deviceId, pace.simSelection, moves, forSend);
          await deps.outcomes.follow(tx, moves);
          pacedOut = fresh !== null && sends >= fresh;
          return moves.map((m) => m.message);
        }));
      if (pacedOut) deps.onPacedOut?.(deviceId);
      deps.metrics.outboxFetches.inc();
      deps.metrics.outboxMessages.inc(messages.length);
      return messages;
    },

    /**
     * Stores an inbound text once per fingerprint, race-free; returns whether it was new. `extend`
     * writes what another feature keeps with a new message (an MMS's attachments) in its transaction,
     * and returns what the message's events carry besides its resource.
     */
    async inbound(
      deviceId: string,
      input: InboundInput,
      extend?: (tx: EntityManager, message: Message) => Promise<Record<string, unknown>>,
    ): Promise<{ inserted: boolean; message: Message; extra?: Record<string, unknown> }> {
      const fingerprint =
        input.fingerprint ??
        // Phones that send none are de-duplicated on what they did send.
        createHash('sha256').update(`${input.sender}\n${input.receivedAt.toISOString()}\n${input.body}`).digest('hex');
      // Cut after the fingerprint: a repeat of the same long text is still the same text.
      const body = input.dataPort != null ? input.body : cutText(input.body, INBOUND_BODY_MAX);
      const sender = cutText(input.sender, INBOUND_SENDER_MAX);
      const result = await transaction(em(), async (tx) => {
        const device = await devicesRepository.receiver(tx, deviceId);
        if (!device.receiveEnabled) {
          throw forbidden('receive_disabled', 'Receiving is turned off for this phone (receive_enabled is false).');
        }
        const message = await inboundRepository.insertInbound(tx, {
          userId: device.userId,
          deviceId,
          body,
          dataPort: input.dataPort ?? null,
          sender,
          simSubscriptionId: input.simSubscriptionId ?? null,
          fingerprint,
          receivedAt: input.receivedAt,
          now: clock.now(),
        });
        if (!message) {
          return { inserted: false, message: await inboundRepository.inboundByFingerprint(tx, deviceId, fingerprint) };
        }
        await devicesRepository.addReceived(tx, deviceId);
        await deps.plans.countReceived(tx, device.userId, 1);
        const extra = extend ? await extend(tx, message) : undefined;
        await deps.events.emit(tx, {
          userId: message.userId,
          name: message.dataPort != null ? 'message.data_received' : 'message.received',
          data: { ...messageView(message), ...extra },
          messageId: message.id,
          deviceId: message.deviceId,
        });
        return { inserted: true, message, extra };
      });
      deps.metrics.inbound.inc({ result: result.inserted ? 'new' : 'duplicate' });
      if (result.inserted && (body !== input.body || sender !== input.sender)) {
        // Kept, not refused: what was cut off is in the log, so an operator can still read it.
        for (const [field, kept, whole] of [
          ['body', body, input.body],
          ['sender', sender, input.sender],
        ] as const) {
          if (kept !== whole) deps.metrics.inboundCut.inc({ field });
        }
        deps.logger?.warn(
          {
            deviceId,
            messageId: result.message.id,
            fingerprint,
            bodyLength: input.body.length,
            senderLength: input.sender.length,
            // The rest of the text; the sender's is not logged (phone numbers never are).
            cutBody: body === input.body ? undefined : input.body.slice(body.length),
          },
          `inbound: a received text kept in part (text at most ${INBOUND_BODY_MAX}, sender at most ${INBOUND_SENDER_MAX} characters)`,
        );
      }
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
