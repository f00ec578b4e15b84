import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowIdReusePolicy, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { StartKind, Starter } from '../../temporal/starter';
import {
  deviceHeartbeatSignal,
  deviceSettingsSignal,
  deviceUnpairedSignal,
  deviceWorkflowId,
  type DeviceLivenessInput,
} from '../../workflows/definitions';
import { livenessSearchAttributes } from '../../workflows/search-attributes';
import type { Config } from '../config';
import type { Background } from '../lib/background';
import type { Clock } from '../lib/clock';
import type { Device } from './device.entity';
import { devicesRepository } from './devices.repository';

export interface LivenessDeps {
  temporal: Client;
  config: Config;
  em: () => EntityManager;
  clock: Clock;
  background: Background;
  starter: Starter;
}

interface Watched {
  id: string;
  userId: string;
  heartbeatIntervalMinutes: number;
}

/**
 * The API's side of the liveness workflow (workflows/device-liveness.ts). A heartbeat is a
 * signal-with-start through the starter, recorded in `last_signal_at`, so a start lost in a crash
 * is repaired by the next heartbeat or the reconciler.
 */
export function createLiveness({ temporal, config, em, clock, background, starter }: LivenessDeps) {
  const thresholdMs = (device: Device) =>
    config.offlineAfterMissedHeartbeats * device.heartbeatIntervalMinutes * 60_000;

  const options = (device: Watched) => ({
    workflowId: deviceWorkflowId(device.id),
    taskQueue: config.temporal.taskQueue,
    args: [
      {
        deviceId: device.id,
        heartbeatIntervalMinutes: device.heartbeatIntervalMinutes,
        missedHeartbeats: config.offlineAfterMissedHeartbeats,
      } satisfies DeviceLivenessInput,
    ],
    // Unpairing ends the workflow; a re-paired phone (same row, same id) starts it again.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });

  const searchAttributes = (device: Watched) =>
    livenessSearchAttributes({ userId: device.userId, deviceId: device.id });

  const starts: StartKind<Watched> = {
    name: 'device-liveness',
    workflowType: 'deviceLivenessWorkflow',
    async start(client, device, startOptions) {
      await client.workflow.signalWithStart('deviceLivenessWorkflow', {
        ...options(device),
        typedSearchAttributes: startOptions.typedSearchAttributes,
        signal: deviceHeartbeatSignal,
      });
    },
    searchAttributes,
    markStarted: (ids) => devicesRepository.markSignalled(em(), ids, clock.now()),
    unstarted: async (before, limit) =>
      (await devicesRepository.unsignalled(em(), before, limit)).map((row) => ({
        id: row.id,
        userId: row.userId,
        heartbeatIntervalMinutes: row.heartbeatIntervalMinutes,
      })),
  };

  // The settings signal, by signal-with-start through the starter too. Nothing to record or repair:
  // the next heartbeat's start carries the interval from the row.
  const settingsStarts: StartKind<Watched> = {
    name: 'device-liveness-settings',
    workflowType: 'deviceLivenessWorkflow',
    async start(client, device, startOptions) {
      await client.workflow.signalWithStart('deviceLivenessWorkflow', {
        ...options(device),
        typedSearchAttributes: startOptions.typedSearchAttributes,
        signal: deviceSettingsSignal,
        signalArgs: [{ heartbeatIntervalMinutes: device.heartbeatIntervalMinutes }],
      });
    },
    searchAttributes,
    markStarted: async () => {},
    unstarted: async () => [],
  };

  return {
    starts,

    /**
     * Tells the workflow of a heartbeat, at most once per third of the offline threshold (a busy
     * phone costs a few history events an hour), and always when the phone was offline or is new.
     */
    heartbeat(device: Device, force = false): void {
      const last = device.lastSignalAt?.getTime();
      if (!force && last !== undefined && clock.now().getTime() - last < thresholdMs(device) / 3) return;
      starter.enqueue(starts, [
        { id: device.id, userId: device.userId, heartbeatIntervalMinutes: device.heartbeatIntervalMinutes },
      ]);
    },

    /** A new heartbeat interval applies at once (a workflow that ended meanwhile starts again with it). */
    settingsChanged(device: Device): void {
      starter.enqueue(settingsStarts, [
        { id: device.id, userId: device.userId, heartbeatIntervalMinutes: device.heartbeatIntervalMinutes },
      ]);
    },

    /** Ends the workflow; if this is lost, the workflow ends itself at its next deadline. */
    unpaired(deviceId: string): void {
      background.run('liveness unpair signal', async () => {
        try {
          await temporal.workflow.getHandle(deviceWorkflowId(deviceId)).signal(deviceUnpairedSignal);
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        }
      });
    },
  };
}

export type Liveness = ReturnType<typeof createLiveness>;
