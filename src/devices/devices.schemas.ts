import * as yup from 'yup';
import { freeJson, int, trimmedText } from '../lib/fields';

const name = () => trimmedText(100).min(1);
const text = () => trimmedText(200).nullable();
const simId = () => int(0).nullable();

const phoneSettings = {
  name: name(),
  enabled: yup.boolean().typeError('${path} must be true or false'),
  receive_enabled: yup.boolean().typeError('${path} must be true or false'),
  send_delay_seconds: int(0, 3600),
  preferred_sim_subscription_id: simId(),
  clear_preferred_sim: yup.boolean().typeError('${path} must be true or false'),
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
  yup.object({ ...phoneSettings, heartbeat_interval_minutes: int(1, 1440) }),
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
