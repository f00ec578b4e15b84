import type { EntityManager } from '@mikro-orm/postgresql';
import { accountsRepository } from '../accounts/accounts.repository';
import { devicesRepository } from '../devices/devices.repository';
import type { EventsService } from '../events/events.service';
import type { Clock } from '../lib/clock';
import { failoverRepository } from './failover.repository';
import { messageView } from './messages.views';
import { paceOf, placement } from './outbox';

export interface FailoverDeps {
  clock: Clock;
  events: EventsService;
  staleWindowMs: number;
}

/**
 * Failover (account setting `failover`): when a phone goes offline, its messages not yet handed out
 * move to another online, enabled phone of the account, in the transaction that marks it offline.
 * Each moved message gets `message.rerouted` (its `device_id` is the new phone; `previous_device_id`
 * the old one). Dispatched messages stay: the old phone may still send and report them.
 */
export function createFailoverService(deps: FailoverDeps) {
  async function reroute(tx: EntityManager, device: { id: string; userId: string }): Promise<string[]> {
    const settings = await accountsRepository.settings(tx, device.userId);
    if (!settings?.failover) return [];
    const target = await devicesRepository.failoverTarget(tx, device.userId, device.id);
    if (!target) return [];
    const now = deps.clock.now();
    const waiting = await failoverRepository.lockReroutable(tx, device.id);
    const place = await devicesRepository.takeOver(tx, target.id, waiting.total, waiting.high);
    if (!place) return [];
    const { estimate: _estimate, ...deadlines } = placement({
      sendableAt: now,
      resumeAt: place.pausedUntil,
      ahead: place.ahead,
      count: waiting.total,
      pace: paceOf(place),
      staleWindowMs: deps.staleWindowMs,
      ttlSeconds: null,
    });
    const ids = await failoverRepository.reroute(tx, {
      from: device.id,
      to: target.id,
      now,
      ahead: place.ahead,
      deadlines,
    });
    await devicesRepository.settle(tx, [{ deviceId: device.id, left: waiting.total, leftHigh: waiting.high, sent: 0 }]);
    if (ids.length === 0) return ids;
    const messages = await failoverRepository.freshMessages(tx, ids);
    await deps.events.emitMany(
      tx,
      messages.map((message) => ({
        userId: message.userId,
        name: 'message.rerouted' as const,
        data: { ...messageView(message), previous_device_id: device.id },
        messageId: message.id,
        deviceId: message.deviceId,
      })),
    );
    return ids;
  }

  return { reroute };
}

export type FailoverService = ReturnType<typeof createFailoverService>;
