import type { Device } from '../../devices/device.entity';
import type { SettingsPatch } from '../../devices/devices.service';
import { HEARTBEAT_MINUTES_MAX, MAX_SENDS_PER_DAY, SEND_DELAY_MAX } from '../../devices/devices.schemas';
import { badRequest, validationFailed } from '../../http/errors';
import { LIMIT_PERIODS, SIM_SELECTION_MODES } from './integrator.views';

// SMSGate's settings (PATCH/PUT /settings, client-go domain_settings.go) onto our phone settings.

const CAMEL = /[A-Z]/g;
const snake = (key: string) => key.replace(CAMEL, (c) => `_${c.toLowerCase()}`);

export interface SettingsChange {
  /** What applies to every phone alike. */
  patch: SettingsPatch;
  /** The pause bounds given, set against each phone's own (ownPart). */
  interval: { min?: number; max?: number };
  /** A limit given without its period. */
  limitAlone?: number;
  /** webhooks.signing_key: the account's SMSGate signing key. */
  newKey?: string;
}

/** The keys we map, each checked; anything else is refused with its name, and then nothing applies. */
export function settingsChange(body: Record<string, unknown>): SettingsChange {
  const patch: SettingsPatch = {};
  const refused: { key: string; why: string }[] = [];
  let newKey: string | undefined;
  // Set against each phone's own settings (ownPart): the pause bounds one at a time, a limit without its period.
  const interval: { min?: number; max?: number } = {};
  let limitAlone: number | undefined;
  for (const [name, section] of Object.entries(body)) {
    if (section === null || section === undefined) continue;
    for (const [rawKey, value] of Object.entries(section as Record<string, unknown>)) {
      const key = `${name}.${snake(rawKey)}`;
      if (value === null || value === undefined) continue;
      // A whole number within /v1's bounds for the same setting (devices.schemas), else refused.
      const within = (min: number, max: number): number | undefined => {
        if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
        refused.push({ key, why: `must be a whole number from ${min} to ${max}` });
        return undefined;
      };
      let n: number | undefined;
      if (key === 'messages.send_interval_min') {
        if ((n = within(0, SEND_DELAY_MAX)) !== undefined) interval.min = n;
      } else if (key === 'messages.send_interval_max') {
        if ((n = within(0, SEND_DELAY_MAX)) !== undefined) interval.max = n;
      } else if (key === 'messages.limit_period' && value === 'Disabled') {
        Object.assign(patch, { maxSendsPerMinute: null, maxSendsPerHour: null, maxSendsPerDay: null });
      } else if (key === 'messages.limit_period' && typeof value === 'string' && Object.hasOwn(LIMIT_PERIODS, value)) {
        const { field, max } = LIMIT_PERIODS[value];
        const limit =
          (section as Record<string, unknown>).limit_value ?? (section as Record<string, unknown>).limitValue;
        if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > max) {
          refused.push({ key: 'messages.limit_value', why: `must be a whole number from 1 to ${max} with ${value}` });
        } else
          Object.assign(patch, {
            maxSendsPerMinute: null,
            maxSendsPerHour: null,
            maxSendsPerDay: null,
            [field]: limit,
          });
      } else if (key === 'messages.limit_value') {
        const given = section as Record<string, unknown>;
        // With its period, the branch above takes it; alone, it changes the limit each phone has.
        if (given.limit_period === undefined && given.limitPeriod === undefined) {
          if ((n = within(1, MAX_SENDS_PER_DAY)) !== undefined) limitAlone = n;
        }
      } else if (
        key === 'messages.sim_selection_mode' &&
        typeof value === 'string' &&
        Object.hasOwn(SIM_SELECTION_MODES, value)
      ) {
        patch.simSelection = SIM_SELECTION_MODES[value];
        if (value === 'OSDefault') patch.clearPreferredSim = true;
      } else if (key === 'messages.processing_order' && (value === 'FIFO' || value === 'LIFO')) {
        patch.processingOrder = value === 'LIFO' ? 'lifo' : 'fifo';
      } else if (key === 'webhooks.signing_key' && typeof value === 'string' && /^[\x21-\x7e]{16,256}$/.test(value)) {
        newKey = value;
      } else if (key === 'ping.interval_seconds') {
        if ((n = within(60, HEARTBEAT_MINUTES_MAX * 60)) !== undefined)
          patch.heartbeatIntervalMinutes = Math.round(n / 60);
      } else refused.push({ key, why: 'this value is not supported by this server' });
    }
  }
  if (refused.length > 0) {
    throw validationFailed(refused.map(({ key, why }) => ({ field: `body.${key}`, message: `${key}: ${why}` })));
  }
  return { patch, interval, limitAlone, newKey };
}

/**
 * The part of a settings change that depends on the phone's own settings. Their max is the longest
 * pause, ours the pause plus its jitter: a max alone keeps the phone's min, a min alone its max. A
 * limit without its period changes the limit the phone has (refused when it has none).
 */
export function ownPart(
  phone: Pick<
    Device,
    'sendDelaySeconds' | 'sendDelayJitterSeconds' | 'maxSendsPerMinute' | 'maxSendsPerHour' | 'maxSendsPerDay'
  >,
  interval: { min?: number; max?: number },
  limitAlone: number | undefined,
): SettingsPatch {
  const own: SettingsPatch = {};
  if (interval.min !== undefined || interval.max !== undefined) {
    const min = interval.min ?? phone.sendDelaySeconds;
    const max = interval.max ?? phone.sendDelaySeconds + phone.sendDelayJitterSeconds;
    if (max < min) throw badRequest('send_interval_max must not be below send_interval_min.');
    Object.assign(own, { sendDelaySeconds: min, sendDelayJitterSeconds: max - min });
  }
  if (limitAlone !== undefined) {
    // The period settingsView shows for the phone: the first limit it has.
    const period = Object.entries(LIMIT_PERIODS).find(([, { field }]) => phone[field] != null);
    const at = 'body.messages.limit_value';
    if (!period)
      throw validationFailed([
        { field: at, message: 'messages.limit_value: no limit is on: send messages.limit_period with it' },
      ]);
    const [name, { field, max }] = period;
    if (limitAlone > max) {
      throw validationFailed([
        { field: at, message: `messages.limit_value: must be a whole number from 1 to ${max} with ${name}` },
      ]);
    }
    own[field] = limitAlone;
  }
  return own;
}
