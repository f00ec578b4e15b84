import type { EntityManager } from '@mikro-orm/postgresql';
import { createCredentialCache, type ChangeFeed } from '../lib/credential-cache';
import { DEVICES_CHANNEL } from './phone-channel';
import { transaction } from '../db/transaction';
import type { EventsService } from '../events/events.service';
import { notFound, unauthenticated } from '../http/errors';
import type { Clock } from '../lib/clock';
import { sha256 } from '../lib/crypto';
import type { Device, ProcessingOrder, SimSelection } from './device.entity';
import { deviceRowsRepository } from './device-rows.repository';
import { devicesRepository } from './devices.repository';
import type { Liveness } from './liveness';
import type { Push } from './push';
import { deviceView } from './devices.views';
import type { SendWindow } from './send-window';

interface PhoneCredential {
  id: string;
  userId: string;
  deviceId: string;
}

export interface DevicesDeps {
  em: () => EntityManager;
  clock: Clock;
  events: EventsService;
  liveness: Liveness;
  push: Push;
  feed: ChangeFeed;
}

/** Settings a PATCH may change; absent fields stay as they are. */
export interface SettingsPatch {
  name?: string;
  enabled?: boolean;
  receiveEnabled?: boolean;
  heartbeatIntervalMinutes?: number;
  sendDelaySeconds?: number;
  sendDelayJitterSeconds?: number;
  maxSendsPerMinute?: number | null;
  maxSendsPerHour?: number | null;
  maxSendsPerDay?: number | null;
  simSelection?: SimSelection;
  processingOrder?: ProcessingOrder;
  sendingCapacity?: number | null;
  sendingCapacityMinutes?: number;
  sendWindow?: SendWindow | null;
  preferredSimSubscriptionId?: number | null;
  clearPreferredSim?: boolean;
}

/** What a heartbeat reports; absent fields stay as they are. */
export interface HeartbeatInput {
  appVersionCode?: number | null;
  appVersionName?: string | null;
  osApiLevel?: number | null;
  osVersion?: string | null;
  pushToken?: string;
  sims?: Record<string, unknown>[];
  telemetry?: Record<string, unknown>;
}

/** Runs inside the transaction that stops a phone (disabled or unpaired): messaging fails its outbox. */
export type DeviceStoppedHook = (tx: EntityManager, device: Device, why: 'disabled' | 'unpaired') => Promise<void>;

/** The phones of an account: settings, default, unpairing, device-token auth and heartbeats. */
export function createDevicesService({ em, clock, events, liveness, push, feed }: DevicesDeps) {
  const stoppedHooks: DeviceStoppedHook[] = [];
  // A phone's token is checked on every request it makes: remembered, and dropped when the phone's
  // row changes (the devices trigger of the phone channel) or here when this process unpairs it.
  const tokens = createCredentialCache<PhoneCredential>({ feed, channel: DEVICES_CHANNEL, clock });

  /** A live (paired) phone of the account, locked for the transaction; anything else is 404. */
  async function lockOwned(tx: EntityManager, userId: string, id: string): Promise<Device> {
    const device = await deviceRowsRepository.lockPaired(tx, userId, id);
    if (!device) throw notFound('device');
    return device;
  }

  async function update(userId: string, id: string, patch: SettingsPatch, from: 'api' | 'phone'): Promise<Device> {
    let intervalChanged = false;
    const device = await transaction(em(), async (tx) => {
      const device = await lockOwned(tx, userId, id);
      const wasEnabled = device.enabled;
      if (patch.name !== undefined) device.name = patch.name;
      if (patch.enabled !== undefined) device.enabled = patch.enabled;
      if (patch.receiveEnabled !== undefined) device.receiveEnabled = patch.receiveEnabled;
      if (patch.sendDelaySeconds !== undefined) device.sendDelaySeconds = patch.sendDelaySeconds;
      if (patch.sendDelayJitterSeconds !== undefined) device.sendDelayJitterSeconds = patch.sendDelayJitterSeconds;
      if (patch.maxSendsPerMinute !== undefined) device.maxSendsPerMinute = patch.maxSendsPerMinute;
      if (patch.maxSendsPerHour !== undefined) device.maxSendsPerHour = patch.maxSendsPerHour;
      if (patch.maxSendsPerDay !== undefined) device.maxSendsPerDay = patch.maxSendsPerDay;
      if (patch.simSelection !== undefined) device.simSelection = patch.simSelection;
      if (patch.processingOrder !== undefined) device.processingOrder = patch.processingOrder;
      if (patch.sendingCapacity !== undefined) device.sendingCapacity = patch.sendingCapacity;
      if (patch.sendingCapacityMinutes !== undefined) device.sendingCapacityMinutes = patch.sendingCapacityMinutes;
      if (patch.sendWindow !== undefined) device.sendWindow = patch.sendWindow;
      if (patch.preferredSimSubscriptionId !== undefined)
        device.preferredSimSubscriptionId = patch.preferredSimSubscriptionId;
      if (patch.clearPreferredSim === true) device.preferredSimSubscriptionId = null;
      if (patch.heartbeatIntervalMinutes !== undefined) {
        intervalChanged = patch.heartbeatIntervalMinutes !== device.heartbeatIntervalMinutes;
        device.heartbeatIntervalMinutes = patch.heartbeatIntervalMinutes;
      }
      await deviceRowsRepository.writeChanges(tx);
      if (wasEnabled && !device.enabled) for (const hook of stoppedHooks) await hook(tx, device, 'disabled');
      return device;
    });
    if (intervalChanged) liveness.settingsChanged(device);
    // The phone changed its own settings: it knows. Otherwise it is told at once.
    if (from === 'api') push.settingsChanged(device);
    return device;
  }

  async function unpair(userId: string, id: string): Promise<void> {
    await transaction(em(), async (tx) => {
      const device = await lockOwned(tx, userId, id);
      device.unpairedAt = clock.now();
      device.tokenHash = null;
      device.isDefault = false;
      await deviceRowsRepository.writeChanges(tx);
      for (const hook of stoppedHooks) await hook(tx, device, 'unpaired');
    });
    tokens.forget(id);
    liveness.unpaired(id);
  }

  return {
    onStopped(hook: DeviceStoppedHook): void {
      stoppedHooks.push(hook);
    },

    /** Paired phones, the default one first, then newest. */
    list: (userId: string) => deviceRowsRepository.listPaired(em(), userId),

    async get(userId: string, id: string): Promise<Device> {
      const device = await deviceRowsRepository.paired(em(), userId, id);
      if (!device) throw notFound('device');
      return device;
    },

    update,
    unpair,

    /** Exactly one default per account: the others are cleared in the same transaction. */
    async setDefault(userId: string, id: string): Promise<Device> {
      return transaction(em(), async (tx) => {
        await devicesRepository.lockAllOf(tx, userId);
        const device = await lockOwned(tx, userId, id);
        await devicesRepository.clearDefaultExcept(tx, userId, id, clock.now());
        device.isDefault = true;
        await deviceRowsRepository.writeChanges(tx);
        return device;
      });
    },

    /** The phone behind a device token; unknown and revoked tokens are null. */
    async authenticate(token: string): Promise<{ userId: string; deviceId: string } | null> {
      if (token.length > 200) return null;
      // Looked up by hash: the token itself is never compared, so timing leaks nothing.
      const hash = sha256(token);
      const found = await tokens.lookup(hash, async () => {
        const phone = await devicesRepository.byToken(em(), hash);
        return phone && { id: phone.deviceId, ...phone };
      });
      return found && { userId: found.userId, deviceId: found.deviceId };
    },

    /** The phone's token, if remembered, is looked up again on its next request. */
    forgetToken: (deviceId: string) => tokens.forget(deviceId),

    /** Stops hearing of phone changes (process shutdown). */
    stopCache: () => tokens.stop(),

    /** Stores what the phone reports; a phone that was offline is online again (device.online). */
    async heartbeat(userId: string, id: string, input: HeartbeatInput): Promise<Device> {
      let cameBack = false;
      const device = await transaction(em(), async (tx) => {
        const device = await deviceRowsRepository.lockPaired(tx, userId, id);
        // Unpaired between authentication and here: the token is no longer valid.
        if (!device) throw unauthenticated();
        if (input.appVersionCode !== undefined) device.appVersionCode = input.appVersionCode;
        if (input.appVersionName !== undefined) device.appVersionName = input.appVersionName;
        if (input.osApiLevel !== undefined) device.osApiLevel = input.osApiLevel;
        if (input.osVersion !== undefined) device.osVersion = input.osVersion;
        if (input.sims !== undefined) device.sims = input.sims;
        if (input.telemetry !== undefined) device.telemetry = input.telemetry;
        if (input.pushToken !== undefined && input.pushToken !== device.pushToken) {
          device.pushToken = input.pushToken;
          device.pushTokenInvalidReason = null;
          device.pushTokenInvalidatedAt = null;
        }
        device.lastHeartbeatAt = clock.now();
        cameBack = !device.online;
        device.online = true;
        await deviceRowsRepository.writeChanges(tx);
        if (cameBack) {
          await events.emit(tx, { userId, name: 'device.online', data: deviceView(device), deviceId: device.id });
        }
        return device;
      });
      liveness.heartbeat(device, cameBack);
      return device;
    },

    /** A new token from the phone: whatever FCM said about the old one no longer applies. */
    async setPushToken(userId: string, id: string, token: string): Promise<void> {
      await transaction(em(), async (tx) => {
        const device = await lockOwned(tx, userId, id);
        device.pushToken = token;
        device.pushTokenInvalidReason = null;
        device.pushTokenInvalidatedAt = null;
        await deviceRowsRepository.writeChanges(tx);
      });
    },
  };
}

export type DevicesService = ReturnType<typeof createDevicesService>;
