import * as yup from 'yup';

const name = () => yup.string().trim().min(1).max(100);
const text = () => yup.string().trim().max(200).nullable();
const int = () => yup.number().typeError('${path} must be an integer').integer('${path} must be an integer');
const simId = () => int().min(0).max(2_147_483_647).nullable();

const phoneSettings = {
  name: name(),
  enabled: yup.boolean().typeError('${path} must be true or false'),
  receive_enabled: yup.boolean().typeError('${path} must be true or false'),
  send_delay_seconds: int().min(0).max(3600),
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
  yup.object({ ...phoneSettings, heartbeat_interval_minutes: int().min(1).max(1440) }),
);

/** PATCH /v1/device: the phone may not change its own heartbeat interval. */
export const patchOwnDeviceBody = noContradiction(yup.object(phoneSettings));

export type PatchDeviceBody = yup.InferType<typeof patchDeviceBody>;

const isPlainObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

const phoneFacts = {
  app_version_code: int().min(0).max(2_147_483_647).nullable(),
  app_version_name: text(),
  os_api_level: int().min(0).max(10_000).nullable(),
  os_version: text(),
  push_token: yup.string().trim().min(1).max(4096),
};

export const pairBody = yup.object({
  code: yup.string().trim().required().max(64),
  hardware_key: yup.string().trim().required().min(1).max(200),
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
  sims: yup
    .mixed<Record<string, unknown>[]>()
    .test(
      'sims',
      '${path} must be an array of SIM descriptors',
      (v) => v === undefined || (Array.isArray(v) && v.length <= 16 && v.every(isPlainObject)),
    ),
  telemetry: yup
    .mixed<Record<string, unknown>>()
    .test('telemetry', '${path} must be an object', (v) => v === undefined || isPlainObject(v)),
});

export type HeartbeatBody = yup.InferType<typeof heartbeatBody>;

export const pushTokenBody = yup.object({
  token: yup.string().trim().required().min(1).max(4096),
});
