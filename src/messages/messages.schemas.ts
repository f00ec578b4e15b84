import * as yup from '../lib/yup';
import { pageFields } from '../http/pagination';
import { int, text, timestamp, trimmedText, uuid } from '../lib/fields';
import { canonicalTimezone } from '../devices/send-window';
import { PRIORITIES } from './batch.entity';
import { MESSAGE_STATUSES } from './message.entity';
import { CIPHERTEXT_FORMAT, ENCRYPTED_BODY_MAX, ENCRYPTED_NUMBER_MAX, isCiphertext } from './encrypted';

export const BODY_MAX = 1600;
export const SCHEDULE_HORIZON_MS = 7 * 86_400_000;
/** The longest ttl_seconds: the scheduling horizon. */
export const TTL_MAX_SECONDS = 7 * 86_400;

/**
 * The most entries `to` may list, repeats included: no plan's batch limit is larger (the largest
 * seeded plan allows 5,000). Checked before anything is done per entry (messages.service admitSize).
 */
export const RECIPIENTS_MAX = 10_000;

/** A personalised send's fields per recipient: how many, and how long each value may be. */
export const VARIABLE_FIELDS_MAX = 50;
export const VARIABLE_VALUE_MAX = 500;

const isVariablesRow = (row: unknown): row is Record<string, string> =>
  typeof row === 'object' &&
  row !== null &&
  !Array.isArray(row) &&
  Object.keys(row).length <= VARIABLE_FIELDS_MAX &&
  Object.entries(row).every(
    ([name, value]) => name.length <= 64 && typeof value === 'string' && value.length <= VARIABLE_VALUE_MAX,
  );

/** A plain send's recipients: numbers in any format libphonenumber reads. */
export const NUMBER_MAX = 64;

/** `to`: one to RECIPIENTS_MAX recipients, each checked by `entry` when it is given. */
export const recipientList = <E extends yup.Schema>(entry?: E) =>
  yup
    .array(entry)
    .min(1, '${path} must name at least one recipient')
    .max(RECIPIENTS_MAX, '${path} must have at most ${max} entries')
    .required();

/** Whether the send being validated is encrypted (from a field's test: the object above it). */
function inEncryptedSend(context: yup.TestContext): boolean {
  const send = (context.from?.[0]?.value ?? context.parent) as { encrypted?: unknown } | undefined;
  return send?.encrypted === true;
}

/**
 * A field of the send: plain text up to `plainMax` characters, or with `encrypted` ciphertext in the
 * app's format (longer than the text it holds), never plain text the server could read.
 */
const plainOrCiphertext = (plainMax: number, encryptedMax: number) =>
  text(encryptedMax)
    .test({
      name: 'plain_max',
      message: `\${path} must be at most ${plainMax} characters`,
      params: { plainMax },
      test(value) {
        return !value || inEncryptedSend(this) || value.length <= plainMax;
      },
    })
    .test('ciphertext', `\${path} must be ciphertext (${CIPHERTEXT_FORMAT}) when encrypted is true`, function (value) {
      return !value || !inEncryptedSend(this) || isCiphertext(value);
    });

/**
 * A data SMS's bytes as base64 (padded, RFC 4648), within the bounds SMSGate's server gives its
 * dataMessage (client-go DataMessage: base64, 4..65535 characters).
 */
export const DATA_BASE64_MAX = 65_535;
export const base64Data = () =>
  text(DATA_BASE64_MAX)
    .min(4, '${path} must be at least ${min} characters')
    .matches(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/, {
      message: '${path} must be base64 (padded)',
      excludeEmptyString: true,
    });

/** A data SMS: bytes to an application port (Android's sendDataMessage); one SMS, sent as is. */
export const dataContent = () =>
  yup
    .object({
      base64: base64Data().required(),
      port: int(1, 65_535).required(),
    })
    .default(undefined)
    .nullable();

export const sendBody = yup.object({
  body: plainOrCiphertext(BODY_MAX, ENCRYPTED_BODY_MAX)
    .min(1, '${path} must not be empty')
    // A send is a text (body) or a data SMS (data), never both.
    .test('content', '', function (value) {
      const data = (this.parent as { data?: unknown }).data;
      if (data != null && value !== undefined && value !== null)
        return this.createError({ message: `${this.path} cannot be combined with data` });
      if (data == null && (value === undefined || value === null))
        return this.createError({ message: `${this.path} is a required field` });
      return true;
    }),
  data: dataContent(),
  // Body and recipients are ciphertext in the SMSGate app's format, for the owner's phone to decrypt.
  encrypted: yup.boolean().default(false),
  to: recipientList(plainOrCiphertext(NUMBER_MAX, ENCRYPTED_NUMBER_MAX).required()),
  device_id: uuid().nullable(),
  scheduled_at: timestamp()
    .nullable()
    .test('future', '${path} must be in the future', (value) => !value || value.getTime() > Date.now())
    .test(
      'horizon',
      '${path} must be at most 7 days ahead',
      (value) => !value || value.getTime() <= Date.now() + SCHEDULE_HORIZON_MS,
    ),
  sim_subscription_id: int(0).nullable(),
  // A personalised send: body is a template whose `{field}` placeholders are filled, for to[i], from
  // variables[i] (./personalised.ts). One batch still: each message carries its own text.
  variables: yup
    .array(yup.mixed<Record<string, string>>().required())
    .max(RECIPIENTS_MAX, '${path} must have at most ${max} entries')
    .default(undefined)
    .nullable()
    .test({
      name: 'variables',
      params: { fieldsMax: VARIABLE_FIELDS_MAX, valueMax: VARIABLE_VALUE_MAX },
      test(value) {
        if (value == null) return true;
        const send = this.parent as { to?: unknown; encrypted?: unknown; data?: unknown };
        if (send.encrypted === true || send.data != null)
          return this.createError({ message: '${path} cannot be combined with encrypted or data' });
        if (Array.isArray(send.to) && send.to.length !== value.length)
          return this.createError({ message: '${path} must have one entry for each entry of to' });
        const bad = value.findIndex((row) => !isVariablesRow(row));
        if (bad >= 0)
          return this.createError({
            path: `${this.path}[${bad}]`,
            message: `\${path} must be an object of at most ${VARIABLE_FIELDS_MAX} fields, each text of at most ${VARIABLE_VALUE_MAX} characters`,
          });
        return true;
      },
    }),
  // Its messages lapse to unknown this long after they become sendable, unless sent by then.
  ttl_seconds: int(1, TTL_MAX_SECONDS).nullable(),
  priority: yup
    .string()
    .oneOf([...PRIORITIES], '${path} must be high or normal')
    .default('normal')
    // null is taken as absent (normal), and the document says so (a nullable string).
    .nullable()
    .transform((value: unknown) => (value === null ? undefined : value)),
});
export type SendBody = yup.InferType<typeof sendBody>;

export const listBatchesQuery = yup.object({ ...pageFields() });

/** GET /v1/devices/{id}/estimate: a send of this many recipients, as POST /v1/messages would place it. */
export const estimateQuery = yup.object({
  recipients: int(0, RECIPIENTS_MAX).default(0),
  priority: yup
    .string()
    .oneOf([...PRIORITIES], '${path} must be high or normal')
    .default('normal'),
  scheduled_at: timestamp().nullable(),
});
export type EstimateQuery = yup.InferType<typeof estimateQuery>;

const commaIds = () =>
  text(3700).test(
    'uuids',
    '${path} must be comma-separated device ids',
    (value) => !value || value.split(',').every((id) => /^[0-9a-f-]{36}$/i.test(id.trim())),
  );

export const listMessagesQuery = yup.object({
  ...pageFields(),
  device_ids: commaIds(),
  direction: yup.string().oneOf(['outbound', 'inbound']),
  status: yup.string().oneOf([...MESSAGE_STATUSES]),
  batch_id: uuid(),
  q: trimmedText(200),
  from: timestamp(),
  to: timestamp(),
  order: yup.string().oneOf(['asc', 'desc']).default('desc'),
});
export type ListMessagesQuery = yup.InferType<typeof listMessagesQuery>;

/** The longest span GET /v1/stats/daily covers. */
export const DAILY_STATS_MAX_DAYS = 90;

/** The time zone a count's calendar days are in: an IANA name, any case, UTC unless given. */
export const timezoneField = () =>
  trimmedText(64)
    .default('UTC')
    .transform((value: unknown) => (typeof value === 'string' ? (canonicalTimezone(value) ?? value) : value))
    .test('timezone', '${path} must be an IANA time zone such as Europe/Berlin', (value) =>
      value === undefined ? true : canonicalTimezone(value) !== null,
    );

/** GET /v1/stats/daily: the last `days` calendar days (today included) in `timezone`. */
export const dailyStatsQuery = yup.object({
  days: int(1, DAILY_STATS_MAX_DAYS).default(14),
  timezone: timezoneField(),
});
export type DailyStatsQuery = yup.InferType<typeof dailyStatsQuery>;
