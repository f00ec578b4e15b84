import * as yup from '../lib/yup';
import { freeJson, int, text as limitedText, trimmedText } from '../lib/fields';
import { canonicalTimezone, minutesOf } from './send-window';
import { PROCESSING_ORDERS, SIM_SELECTIONS } from './device.entity';

const oneOf = <T extends string>(values: readonly T[]) =>
  yup.string().oneOf([...values], `\${path} must be one of ${values.join(', ')}`) as yup.StringSchema<T | undefined>;

const name = () => trimmedText(100).min(1);
const text = () => trimmedText(200).nullable();
const simId = () => int(0).nullable();

export const MAX_SENDS_PER_MINUTE = 1000;
export const MAX_SENDS_PER_HOUR = 60_000;
export const MAX_SENDS_PER_DAY = 1_000_000;
/** The most texts a sending capacity may allow per period, and the longest period (a day), in minutes. */
export const SENDING_CAPACITY_MAX = 100_000;
export const SENDING_CAPACITY_MINUTES_MAX = 1440;
/** The longest pause between two sends, and the most it may vary, in seconds. */
export const SEND_DELAY_MAX = 3600;
/** The longest heartbeat interval, in minutes (a day). */
export const HEARTBEAT_MINUTES_MAX = 1440;

const time = (pattern: RegExp, what: string) => limitedText(5).required().matches(pattern, `\${path} must be ${what}`);

/** Days and hours in the phone's time zone when its outbox hands out messages; null: always. */
const sendWindow = () =>
  yup
    .object({
      timezone: trimmedText(64)
        .required()
        // Stored as the runtime spells the zone, whatever the case it was sent in.
        .transform((value: unknown) => (typeof value === 'string' ? (canonicalTimezone(value) ?? value) : value))
        .test('timezone', '${path} must be an IANA time zone such as Europe/Berlin', (value) =>
          value === undefined ? true : canonicalTimezone(value) !== null,
        ),
      days: yup
        .array(int(1, 7).required())
        .min(1, '${path} must name at least one day (1 = Monday … 7 = Sunday)')
        .max(7, '${path} must name each day at most once')
        .required()
        // Each day once, Monday first.
        .transform((value: unknown) =>
          Array.isArray(value) && value.every((day) => typeof day === 'number')
            ? [...new Set(value as number[])].sort((a, b) => a - b)
            : value,
        ),
      start: time(/^([01]\d|2[0-3]):[0-5]\d$/, 'a local time HH:MM (00:00 to 23:59)'),
      end: time(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'a local time HH:MM (00:01 to 24:00)'),
    })
    .nullable()
    .default(undefined)
    .test('window_hours', function (value) {
      if (!value?.start || !value.end) return true;
      const [start, end] = [minutesOf(value.start), minutesOf(value.end)];
      if (start === null || end === null || start < end) return true;
      return this.createError({ path: `${this.path}.end`, message: `${this.path}.end must be later than start` });
    });

const phoneSettings = {
  name: name(),
  enabled: yup.boolean().typeError('${path} must be true or false'),
  receive_enabled: yup.boolean().typeError('${path} must be true or false'),
  send_delay_seconds: int(0, SEND_DELAY_MAX),
  send_delay_jitter_seconds: int(0, SEND_DELAY_MAX),
  max_sends_per_minute: int(1, MAX_SENDS_PER_MINUTE).nullable(),
  max_sends_per_hour: int(1, MAX_SENDS_PER_HOUR).nullable(),
  max_sends_per_day: int(1, MAX_SENDS_PER_DAY).nullable(),
  sending_capacity: int(1, SENDING_CAPACITY_MAX).nullable(),
  sending_capacity_minutes: int(1, SENDING_CAPACITY_MINUTES_MAX),
  send_window: sendWindow(),
  preferred_sim_subscription_id: simId(),
  clear_preferred_sim: yup.boolean().typeError('${path} must be true or false'),
  sim_selection: oneOf(SIM_SELECTIONS),
  processing_order: oneOf(PROCESSING_ORDERS),
};

// Naming a SIM and clearing it in one request is a contradiction, not a preference.
const noContradiction = (schema: yup.AnyObjectSchema) =>
  schema.test('clear_preferred_sim', function (value) {
    if (value?.clear_preferred_sim === true && value.preferred_sim_subscription_id != null) {
      return this.createError({
        path: 'clear_preferred_sim',
        message: 'clear_preferred_sim cannot be combined with preferred_sim_subscription_id',
      });
    }
    return true;
  });

/** PATCH /v1/devices/{id}: every field optional, only sent fields change. */
export const patchDeviceBody = noContradiction(
  yup.object({ ...phoneSettings, heartbeat_interval_minutes: int(1, HEARTBEAT_MINUTES_MAX) }),
);

/** PATCH /v1/device: the phone may not change its own heartbeat interval. */
export const patchOwnDeviceBody = noContradiction(yup.object(phoneSettings));

export type PatchDeviceBody = yup.InferType<typeof patchDeviceBody>;

const phoneFacts = {
  app_version_code: int(0).nullable(),
  app_version_name: text(),
  os_api_level: int(0, 10_000).nullable(),
  os_version: text(),
  push_token: trimmedText(4096).min(1),
};

export const pairBody = yup.object({
  code: trimmedText(64).required(),
  hardware_key: trimmedText(200).required().min(1),
  name: name(),
  brand: text(),
  build_id: text(),
  manufacturer: text(),
  model: text(),
  ...phoneFacts,
});

export type PairBody = yup.InferType<typeof pairBody>;

export const heartbeatBody = yup.object({
  ...phoneFacts,
  sims: freeJson<Record<string, unknown>[]>('array of objects', { maxBytes: 8192, maxDepth: 4, maxItems: 16 }),
  telemetry: freeJson<Record<string, unknown>>('object', { maxBytes: 8192, maxDepth: 5 }),
});

export type HeartbeatBody = yup.InferType<typeof heartbeatBody>;

export const pushTokenBody = yup.object({
  token: trimmedText(4096).required().min(1),
});
