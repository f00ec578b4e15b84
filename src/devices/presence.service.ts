import type { EntityManager } from '@mikro-orm/postgresql';
import type { Event } from '../events/event.entity';
import { transaction } from '../db/transaction';
import type { EventsService } from '../events/events.service';
import type { Clock } from '../lib/clock';
import { deviceRowsRepository } from './device-rows.repository';
import { devicesRepository } from './devices.repository';
import { deviceView } from './devices.views';

export interface OfflineInput {
  deviceId: string;
  /** The last heartbeat the workflow saw (epoch ms). */
  lastHeartbeatAt: number;
  /** The workflow's now (epoch ms): its timer decides when, the database decides whether. */
  now: number;
  missedHeartbeats: number;
}

export type OfflineResult =
  | { status: 'offline' }
  | { status: 'gone' }
  | { status: 'alive'; lastHeartbeatAt: number; heartbeatIntervalMinutes: number };

/**
 * Online and offline transitions for the liveness workflow's activities. Both are guarded UPDATEs,
 * so a retried activity, or one racing a heartbeat, changes nothing twice and emits one event.
 */
export function createPresenceService({
  em,
  events,
  clock,
}: {
  em: () => EntityManager;
  events: EventsService;
  clock: Clock;
}) {
  // Run in the transaction that marks a phone offline (failover moves its waiting messages there).
  const offlineHooks: Array<(tx: EntityManager, device: { id: string; userId: string }) => Promise<void>> = [];

  async function transition(
    tx: EntityManager,
    deviceId: string,
    name: 'device.online' | 'device.offline',
  ): Promise<Event> {
    const device = await deviceRowsRepository.freshOrFail(tx, deviceId);
    return events.emit(tx, { userId: device.userId, name, data: deviceView(device), deviceId });
  }

  return {
    /**
     * Offline only when neither the workflow nor the database knows of a heartbeat within
     * missed × interval (the database's interval: a lost settings signal cannot mislead it).
     */
    async markOffline(input: OfflineInput): Promise<OfflineResult> {
      return transaction(em(), async (tx): Promise<OfflineResult> => {
        const moved = await devicesRepository.markOffline(
          tx,
          input.deviceId,
          new Date(input.lastHeartbeatAt),
          new Date(input.now),
          input.missedHeartbeats,
          clock.now(),
        );
        if (moved) {
          const event = await transition(tx, input.deviceId, 'device.offline');
          for (const hook of offlineHooks) await hook(tx, { id: input.deviceId, userId: event.userId });
          return { status: 'offline' };
        }
        const device = await deviceRowsRepository.fresh(tx, input.deviceId);
        if (!device || device.unpairedAt) return { status: 'gone' };
        if (!device.online) return { status: 'offline' };
        return {
          status: 'alive',
          lastHeartbeatAt: Math.max(input.lastHeartbeatAt, device.lastHeartbeatAt?.getTime() ?? 0),
          heartbeatIntervalMinutes: device.heartbeatIntervalMinutes,
        };
      });
    },

    /** Work to do in the same transaction when a phone goes offline. */
    onOffline(hook: (tx: EntityManager, device: { id: string; userId: string }) => Promise<void>): void {
      offlineHooks.push(hook);
    },

    /** Online again; a no-op when the heartbeat's own request already did it. */
    async markOnline(deviceId: string): Promise<boolean> {
      return transaction(em(), async (tx) => {
        const moved = await devicesRepository.markOnline(tx, deviceId, clock.now());
        if (moved) await transition(tx, deviceId, 'device.online');
        return moved;
      });
    },
  };
}

export type PresenceService = ReturnType<typeof createPresenceService>;
