import { SCOPES } from '../api-keys/api-key.entity';
import { PAIRING_REFUSAL_REASONS, PROCESSING_ORDERS, SIM_SELECTIONS } from '../devices/device.entity';
import { EVENT_NAMES } from '../events/event.entity';
import { PRIORITIES } from '../messages/batch.entity';
import { MESSAGE_STATUSES } from '../messages/message.entity';
import { OPT_OUT_SOURCES } from '../opt-outs/opt-out.entity';
import { DELIVERY_STATUSES } from '../webhooks/delivery.entity';
import type { JsonSchema } from './yup-to-json-schema';

// The response resources, written once, mirroring the *.views.ts serialisers field for field
// (test/openapi/views.test.ts checks that each view renders exactly these keys).

const str: JsonSchema = { type: 'string' };
const int: JsonSchema = { type: 'integer' };
const bool: JsonSchema = { type: 'boolean' };
const ts: JsonSchema = { type: 'string', format: 'date-time' };
const id: JsonSchema = { type: 'string', format: 'uuid' };
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type, 'null'] });
const any = (description: string): JsonSchema => ({ description });

/** An object whose every listed field is always present (the spec's rule for responses). */
export const object = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

export const resources: Record<string, JsonSchema> = {
  Batch: object(
    {
      id,
      body: str,
      device_id: id,
      status: str,
      recipient_count: int,
      recipient_preview: str,
      segments: { ...int, description: 'SMS segments each message of the send takes.' },
      encoding: { type: 'string', enum: ['gsm7', 'ucs2'], description: 'GSM-7, or UCS-2 when a character needs it.' },
      dispatched_count: int,
      sent_count: int,
      delivered_count: int,
      failed_count: int,
      unknown_count: int,
      priority: {
        type: 'string',
        enum: [...PRIORITIES],
        description: "high goes first in its phone's outbox; its estimate counts only high-priority messages ahead.",
      },
      ttl_seconds: {
        ...nullable(int),
        description:
          'Its messages lapse to unknown this long after they became sendable unless sent; null: the stale window.',
      },
      scheduled_at: nullable(ts),
      estimated_completion_at: nullable(ts),
      completed_at: nullable(ts),
      error: nullable(str),
      cancelled_at: {
        ...nullable(ts),
        description: 'When POST /v1/batches/{id}/cancel cancelled the send (its undispatched messages failed `cancelled`).',
      },
      created_at: ts,
      updated_at: ts,
    },
    'One send to one or more recipients.',
  ),
  Message: object({
    id,
    batch_id: { ...nullable(id), description: 'Null for inbound messages.' },
    device_id: id,
    direction: { type: 'string', enum: ['outbound', 'inbound'] },
    status: { type: 'string', enum: [...MESSAGE_STATUSES] },
    body: str,
    segments: { ...int, description: 'SMS segments the text takes.' },
    encoding: { type: 'string', enum: ['gsm7', 'ucs2'] },
    recipient: { ...nullable(str), description: 'Outbound only.' },
    sender: { ...nullable(str), description: 'Inbound only.' },
    sim_subscription_id: nullable(int),
    error_code: nullable(str),
    error_message: nullable(str),
    dispatched_at: nullable(ts),
    sent_at: nullable(ts),
    delivered_at: nullable(ts),
    failed_at: nullable(ts),
    received_at: nullable(ts),
    created_at: ts,
    updated_at: ts,
  }),
  OptOut: object(
    {
      phone_number: { ...str, description: 'E.164.' },
      source: {
        type: 'string',
        enum: [...OPT_OUT_SOURCES],
        description: 'inbound: the number texted an opt-out keyword; api: added through the API or dashboard.',
      },
      message_id: { ...nullable(id), description: 'The inbound text that opted out (source inbound).' },
      created_at: ts,
    },
    "A number on the account's suppression list: sends to it are not made.",
  ),
  OutboxRow: object(
    {
      id: { ...id, description: 'The message id.' },
      batch_id: id,
      body: str,
      to: str,
      sim_subscription_id: nullable(int),
    },
    'What a phone fetches to send.',
  ),
  Estimate: object(
    {
      device_id: id,
      recipients: int,
      ahead: { ...int, description: 'Texts waiting on the phone ahead of the send.' },
      seconds_per_message: {
        type: 'number',
        description:
          "The phone's pace: its delay and jitter, or its max_sends_per_minute/hour or sending capacity if slower.",
      },
      paused_until: nullable(ts),
      starts_at: { ...ts, description: 'When the send would be sendable: now, or scheduled_at.' },
      finishes_at: {
        ...ts,
        description:
          'When its last text would go (with 0 recipients: when the queue ahead is done), counting only ' +
          "open time of the send window and the pause for the platform's limit; what POST /v1/messages " +
          'would give as estimated_completion_at.',
      },
      duration_seconds: { ...int, description: 'finishes_at − starts_at, in seconds.' },
    },
    "How long a send of `recipients` would take on a phone at its pace, behind what it has queued.",
  ),
  Device: object(
    {
      id,
      name: str,
      enabled: bool,
      is_default: bool,
      online: bool,
      receive_enabled: bool,
      heartbeat_interval_minutes: int,
      send_delay_seconds: int,
      send_delay_jitter_seconds: {
        ...int,
        description: 'A random extra pause of up to this many seconds the phone adds to send_delay_seconds.',
      },
      max_sends_per_minute: {
        ...nullable(int),
        description: 'The outbox hands out no more new messages in any trailing minute; null: unlimited.',
      },
      max_sends_per_hour: {
        ...nullable(int),
        description:
          'The same over any trailing hour (Android allows 30 per 30 minutes unless lifted); null: unlimited.',
      },
      max_sends_per_day: {
        ...nullable(int),
        description: 'The same over any trailing 24 hours; what is over it waits for the next day. null: unlimited.',
      },
      sending_capacity: {
        ...nullable(int),
        description:
          "What the phone's platform lets it send: at most this many texts in any trailing " +
          'sending_capacity_minutes. Stock Android lets one app send 30 per 30 minutes and then asks on the ' +
          'phone; a phone paired through the SMSGate app starts at 30, raise it once the limit is lifted on the ' +
          'phone. The outbox is paced to it, and estimates and stale deadlines count it. null: no limit known.',
      },
      sending_capacity_minutes: { ...int, description: 'The period of sending_capacity, in minutes (default 30).' },
      paused_until: {
        ...nullable(ts),
        description:
          "The phone reported the platform's limit (RESULT_ERROR_LIMIT_EXCEEDED): its outbox hands out nothing " +
          'until then, and the texts the limit refused are handed out again after it.',
      },
      queue_depth: { ...int, description: 'Texts waiting on the phone: queued, or handed out without an outcome yet.' },
      send_window: {
        oneOf: [
          object(
            {
              timezone: { ...str, description: 'IANA time zone of the phone, e.g. Europe/Berlin.' },
              days: {
                type: 'array',
                items: { type: 'integer', minimum: 1, maximum: 7 },
                description: '1 = Monday … 7 = Sunday.',
              },
              start: { ...str, description: 'Local time HH:MM the window opens.' },
              end: { ...str, description: 'Local time HH:MM it closes (24:00: midnight), after start.' },
            },
            "Days and hours in the phone's time zone when its outbox hands out messages; outside them messages wait.",
          ),
          { type: 'null' },
        ],
      },
      preferred_sim_subscription_id: nullable(int),
      sim_selection: {
        type: 'string',
        enum: [...SIM_SELECTIONS],
        description:
          'The SIM of a message that names none, chosen when it is handed out and recorded on it: os_default, the ' +
          "phone's default SIM (or preferred_sim_subscription_id); round_robin, the phone's SIMs in turn; random, " +
          'any of them. A send that names a SIM keeps it.',
      },
      processing_order: {
        type: 'string',
        enum: [...PROCESSING_ORDERS],
        description: 'The outbox hands out oldest first (fifo) or newest first (lifo); high priority first either way.',
      },
      sent_count: int,
      received_count: int,
      brand: nullable(str),
      manufacturer: nullable(str),
      model: nullable(str),
      os_version: nullable(str),
      os_api_level: nullable(int),
      app_version_code: nullable(int),
      app_version_name: nullable(str),
      last_heartbeat_at: nullable(ts),
      push_token_invalid_reason: nullable(str),
      push_token_invalidated_at: nullable(ts),
      sims: any('Array of SIM descriptors with subscription_id, carrier, slot, country.'),
      telemetry: any('Free-form object (battery, network, storage, uptime, timezone, locale).'),
      created_at: ts,
      updated_at: ts,
    },
    'A paired phone.',
  ),
  PairingCode: object({
    code: { ...str, description: "Typed into the phone app (the SMSGate app's Private Token)." },
    expires_at: ts,
    id: { ...id, description: 'Polled at GET /v1/devices/pairing-codes/{id}.' },
    pair_url: { ...str, description: 'phonegateway://pair?code=…&server=…, read by the simulator (npm run phone -- --pair-url).' },
    smsgate_api_url: {
      ...str,
      description: "The SMSGate Android app's API URL for this service: <PUBLIC_URL>/compat/smsgate/api/mobile/v1.",
    },
  }),
  PairingCodeStatus: object({
    consumed: { ...bool, description: 'True once a phone has paired with the code.' },
    device: { oneOf: [ref('Device'), { type: 'null' }] },
    expires_at: ts,
  }),
  PairingRefusal: object(
    {
      id,
      pairing_code_id: { ...id, description: 'The account’s code the attempt named.' },
      reason: {
        type: 'string',
        enum: [...PAIRING_REFUSAL_REASONS],
        description:
          'wrong: its first three characters are this code’s, the rest are not (mistyped, or a guess); used: the ' +
          'code had paired a phone already; expired: past expires_at; rate_limited: too many wrong codes from the ' +
          'phone’s network, at this code or at the account’s codes, within 10 minutes; device_limit: the plan’s ' +
          'device limit was reached (the code stays unused).',
      },
      attempts: { ...int, description: 'Refused attempts with this code for this reason.' },
      created_at: { ...ts, description: 'The first of them.' },
      last_attempt_at: { ...ts, description: 'The latest of them.' },
    },
    'Refused pairing attempts with one of the account’s codes for one reason. Nothing of what was typed is kept.',
  ),
  Webhook: object({
    id,
    url: str,
    name: nullable(str),
    device_id: {
      ...nullable(id),
      description:
        'The one phone whose events it receives (messages through it, texts received on it, its own events); ' +
        'null: every event of the account.',
    },
    events: { type: 'array', items: { type: 'string', enum: [...EVENT_NAMES] } },
    enabled: bool,
    disabled_reason: nullable(str),
    success_count: int,
    failure_count: int,
    last_attempt_at: nullable(ts),
    last_success_at: nullable(ts),
    last_failure_at: nullable(ts),
    created_at: ts,
    updated_at: ts,
  }),
  Delivery: object(
    {
      id,
      webhook_id: id,
      url: str,
      event: { type: 'string', enum: [...EVENT_NAMES] },
      status: { type: 'string', enum: [...DELIVERY_STATUSES] },
      message_id: nullable(id),
      device_id: nullable(id),
      payload: any('The body that was (or will be) sent.'),
      attempt_count: int,
      http_status: nullable(int),
      response_excerpt: nullable(str),
      error: nullable(str),
      created_at: ts,
      last_attempt_at: nullable(ts),
      next_attempt_at: nullable(ts),
      delivered_at: nullable(ts),
      abandoned_at: nullable(ts),
    },
    'One webhook delivery and its attempts.',
  ),
  APIKey: object({
    id,
    name: str,
    prefix: str,
    scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
    use_count: int,
    created_at: ts,
    expires_at: nullable(ts),
    last_used_at: nullable(ts),
    revoked_at: nullable(ts),
  }),
  Token: object(
    {
      id,
      prefix: str,
      scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
      api_key_id: nullable(id),
      created_at: ts,
      expires_at: ts,
    },
    'A short-lived token: used as an API key is, with these scopes, until it expires or is revoked. ' +
      'api_key_id is the key that minted it (null: a dashboard session); it ends with that key.',
  ),
  User: object({
    id,
    email: str,
    name: nullable(str),
    avatar_url: nullable(str),
    role: str,
    has_password: bool,
    google_linked: bool,
    email_verified_at: nullable(ts),
    last_login_at: nullable(ts),
    deletion_requested_at: nullable(ts),
    onboarding: any('Onboarding state.'),
    created_at: ts,
    updated_at: ts,
  }),
  SessionView: object({
    id,
    current: { ...bool, description: 'True for the session making the request.' },
    ip: nullable(str),
    user_agent: nullable(str),
    created_at: ts,
    last_seen_at: ts,
    expires_at: { ...ts, description: 'When it ends if it stays idle.' },
  }),
  Plan: object({
    id: str,
    name: str,
    active: bool,
    batch_limit: int,
    daily_limit: int,
    device_limit: int,
    monthly_limit: int,
    webhook_limit: int,
    monthly_price_cents: int,
    yearly_price_cents: int,
  }),
  Limits: object(
    {
      plan_id: str,
      plan_name: str,
      batch_limit: int,
      daily_limit: int,
      device_limit: int,
      monthly_limit: int,
      webhook_limit: int,
    },
    "The account's plan.",
  ),
  UsageView: object({ received_this_month: int, received_today: int, sent_this_month: int, sent_today: int }),
  Stats: object({ devices: int, received: int, sent: int }),
  DailyStats: object({
    timezone: str,
    days: {
      type: 'array',
      items: object({ date: { ...str, format: 'date' }, sent: int, delivered: int, failed: int }),
    },
  }),
  FieldError: object({
    field: { ...str, description: 'Location such as body.to[0].' },
    message: str,
  }),
  Error: {
    type: 'object',
    additionalProperties: false,
    required: ['code', 'message', 'status'],
    properties: {
      code: { ...str, description: 'Stable machine-readable code.' },
      message: { ...str, description: 'Human-readable message.' },
      status: { ...int, description: 'The HTTP status.' },
      errors: { type: 'array', items: ref('FieldError'), description: 'Per-field problems when applicable.' },
    },
  },
};
