import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { DevicesActivities } from '../activities/devices.activities';
import {
  deviceHeartbeatSignal,
  deviceLivenessQuery,
  deviceSettingsSignal,
  deviceUnpairedSignal,
  type DeviceLivenessInput,
} from './definitions';
import { DeviceId, LivenessStatus } from './search-attributes';
import { keepSearchAttributes } from './searchable';

const { markDeviceOffline, markDeviceOnline } = proxyActivities<DevicesActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5s', maximumInterval: '1 minute' },
});

const MINUTE = 60_000;

/**
 * The liveness of one phone (id `device-<deviceId>`), from pairing until unpaired. A heartbeat only
 * records its time: it never cancels the timer. When the deadline (last heartbeat + missed × interval)
 * fires, the workflow recomputes it and sleeps again, or marks the phone offline. A heartbeat while
 * offline marks it online. Settings changes wake it so a new interval applies at once.
 */
export async function deviceLivenessWorkflow(input: DeviceLivenessInput): Promise<void> {
  const signalsPerRun = input.signalsPerRun ?? 200;
  let lastHeartbeatAt = input.lastHeartbeatAt ?? Date.now();
  let online = input.online ?? true;
  let interval = input.heartbeatIntervalMinutes;
  let totalSignals = input.totalSignals ?? 0;
  let signalsThisRun = 0;
  let cameBack = false;
  let settingsChanged = false;
  let unpaired = false;
  const threshold = () => input.missedHeartbeats * interval * MINUTE;

  setHandler(deviceHeartbeatSignal, () => {
    lastHeartbeatAt = Date.now();
    signalsThisRun += 1;
    totalSignals += 1;
    if (!online) cameBack = true;
  });
  setHandler(deviceSettingsSignal, ({ heartbeatIntervalMinutes }) => {
    signalsThisRun += 1;
    totalSignals += 1;
    if (heartbeatIntervalMinutes !== interval) {
      interval = heartbeatIntervalMinutes;
      settingsChanged = true;
    }
  });
  setHandler(deviceUnpairedSignal, () => {
    unpaired = true;
  });
  setHandler(deviceLivenessQuery, () => ({
    online,
    lastHeartbeatAt,
    heartbeatIntervalMinutes: interval,
    deadline: lastHeartbeatAt + threshold(),
    totalSignals,
  }));

  // Set at start; a run continued from one started before the attributes existed gets them here.
  keepSearchAttributes([
    [DeviceId, input.deviceId],
    [LivenessStatus, online ? 'online' : 'offline'],
  ]);

  const historyFull = () => signalsThisRun >= signalsPerRun || workflowInfo().continueAsNewSuggested;

  while (!unpaired) {
    if (cameBack) {
      cameBack = false;
      await markDeviceOnline({ deviceId: input.deviceId });
      online = true;
      keepSearchAttributes([[LivenessStatus, 'online']]);
      continue;
    }
    if (historyFull()) break;
    if (!online) {
      // Offline: nothing to time, only a heartbeat (or the end) moves it.
      await condition(() => unpaired || cameBack || historyFull());
      continue;
    }
    const wait = lastHeartbeatAt + threshold() - Date.now();
    if (wait > 0) {
      // Heartbeats are not in the predicate: they move the deadline without cancelling the timer.
      await condition(() => unpaired || settingsChanged || historyFull(), wait);
      settingsChanged = false;
      continue;
    }
    const result = await markDeviceOffline({
      deviceId: input.deviceId,
      lastHeartbeatAt,
      now: Date.now(),
      missedHeartbeats: input.missedHeartbeats,
    });
    if (result.status === 'gone') {
      keepSearchAttributes([[LivenessStatus, 'unpaired']]);
      return;
    }
    if (result.status === 'alive') {
      // The database knew better: a later heartbeat (the API signals at most every third of the
      // threshold) or another interval (a settings signal that was lost).
      lastHeartbeatAt = Math.max(lastHeartbeatAt, result.lastHeartbeatAt);
      interval = result.heartbeatIntervalMinutes;
      continue;
    }
    online = false;
    keepSearchAttributes([[LivenessStatus, 'offline']]);
  }
  if (unpaired) {
    keepSearchAttributes([[LivenessStatus, 'unpaired']]);
    return;
  }
  await continueAsNew<typeof deviceLivenessWorkflow>({
    ...input,
    heartbeatIntervalMinutes: interval,
    lastHeartbeatAt,
    online,
    totalSignals,
  });
}
