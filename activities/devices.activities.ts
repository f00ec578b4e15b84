import { RequestContext, type MikroORM } from '@mikro-orm/postgresql';
import type { OfflineInput, OfflineResult, PresenceService } from '../src/devices/presence.service';

/** The liveness workflow's activities; each call has its own EntityManager. */
export function createDevicesActivities(presence: PresenceService, orm: MikroORM) {
  // A fork per call, also as the request context, so hooks that run inside (webhook fan-out) share it.
  const withFork = <T>(run: () => Promise<T>) => RequestContext.create(orm.em.fork(), run);

  return {
    markDeviceOffline: (input: OfflineInput): Promise<OfflineResult> => withFork(() => presence.markOffline(input)),
    async markDeviceOnline({ deviceId }: { deviceId: string }): Promise<void> {
      await withFork(() => presence.markOnline(deviceId));
    },
  };
}

export type DevicesActivities = ReturnType<typeof createDevicesActivities>;
