import type { MikroORM } from '@mikro-orm/postgresql';
import { WorkflowIdReusePolicy, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import type { deviceLivenessWorkflow } from '../../workflows';
import {
  deviceHeartbeatSignal,
  deviceSettingsSignal,
  deviceUnpairedSignal,
  deviceWorkflowId,
} from '../../workflows/definitions';
import { createBackground } from './background';
import { Device } from './device.entity';
import type { Sweep } from '../reconciler/reconciler.service';

export interface LivenessDeps {
  temporal: Client;
  config: Config;
  orm: MikroORM;
  clock: Clock;
  logger: Logger;
}

/**
 * The API's side of the liveness workflow (workflows/device-liveness.ts). Every message is a
 * signal-with-start, so a start lost in a crash is repaired by the next heartbeat.
 */
export function createLiveness({ temporal, config, orm, clock, logger }: LivenessDeps) {
  const background = createBackground(logger);
  const thresholdMs = (device: Device) =>
    config.offlineAfterMissedHeartbeats * device.heartbeatIntervalMinutes * 60_000;

  async function signal(device: Device, send: 'heartbeat' | 'settings'): Promise<void> {
    const common = {
      workflowId: deviceWorkflowId(device.id),
      taskQueue: config.temporal.taskQueue,
      args: [
        {
          deviceId: device.id,
          heartbeatIntervalMinutes: device.heartbeatIntervalMinutes,
          missedHeartbeats: config.offlineAfterMissedHeartbeats,
        },
      ] as Parameters<typeof deviceLivenessWorkflow>,
      // Unpairing ends the workflow; a re-paired phone (same row, same id) starts it again.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    };
    if (send === 'heartbeat') {
      await temporal.workflow.signalWithStart<typeof deviceLivenessWorkflow>('deviceLivenessWorkflow', {
        ...common,
        signal: deviceHeartbeatSignal,
      });
    } else {
      await temporal.workflow.signalWithStart<typeof deviceLivenessWorkflow, [{ heartbeatIntervalMinutes: number }]>(
        'deviceLivenessWorkflow',
        {
          ...common,
          signal: deviceSettingsSignal,
          signalArgs: [{ heartbeatIntervalMinutes: device.heartbeatIntervalMinutes }],
        },
      );
    }
  }

  async function recordSignal(deviceId: string, at: Date): Promise<void> {
    await orm.em.fork().execute('update devices set last_signal_at = ? where id = ?', [at, deviceId]);
  }

  return {
    /**
     * Tells the workflow of a heartbeat, at most once per third of the offline threshold (a busy
     * phone costs a few history events an hour), and always when the phone was offline or is new.
     */
    heartbeat(device: Device, force = false): void {
      const now = clock.now();
      const last = device.lastSignalAt?.getTime();
      if (!force && last !== undefined && now.getTime() - last < thresholdMs(device) / 3) return;
      background.run('liveness heartbeat signal', async () => {
        await signal(device, 'heartbeat');
        await recordSignal(device.id, now);
      });
    },

    /** A new heartbeat interval applies at once. */
    settingsChanged(device: Device): void {
      background.run('liveness settings signal', () => signal(device, 'settings'));
    },

    /**
     * The reconciler's sweep: paired phones whose workflow was never signalled (the start at pairing
     * was lost and no heartbeat came since) get one now, so every paired phone is watched.
     */
    sweep(graceMs = 60_000): Sweep {
      return {
        name: 'device-liveness',
        run: async (em) => {
          const devices = await em.find(
            Device,
            { unpairedAt: null, lastSignalAt: null, pairedAt: { $lt: new Date(clock.now().getTime() - graceMs) } },
            { limit: 100, orderBy: { pairedAt: 'asc' } },
          );
          for (const device of devices) {
            await signal(device, 'heartbeat');
            await recordSignal(device.id, clock.now());
          }
          return devices.length;
        },
      };
    },

    /** Resolves when every signal in flight has been sent or has failed (tests, shutdown). */
    idle: () => background.idle(),

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
