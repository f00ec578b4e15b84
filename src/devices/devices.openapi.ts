import { any, bool, id, int, nullable, object, ref, str, ts } from '../openapi/json-parts';
import { type Operation, devicesScope, list, noBody, op, page, read, tagged, wrap } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import { PAIRING_REFUSAL_REASONS, PROCESSING_ORDERS, SIM_SELECTIONS } from './device.entity';
import * as devices from './devices.schemas';
import * as pairing from './pairing.schemas';

// The OpenAPI document's part of devices.routes.ts, and the resources of devices.views.ts. Each list
// is in the document's order; src/openapi-parts.ts places the lists.
export const device = { 200: wrap('device', ref('Device')) };

/** A phone of the account; the document goes on with its estimate (src/messages/messages.openapi.ts). */
export const devicesOperations: Operation[] = tagged('Devices', [
  op('GET /v1/devices', read, 'List paired phones, default first', { 200: list('Device') }),
  op('GET /v1/devices/{id}', read, 'A paired phone', device),
  op('PATCH /v1/devices/{id}', devicesScope, "Change a phone's settings", device, { body: devices.patchDeviceBody }),
  op('DELETE /v1/devices/{id}', devicesScope, 'Unpair a phone; its history is kept', noBody),
]);

/** The rest of devices.routes.ts, after the estimate in the document. */
export const moreDevicesOperations: Operation[] = tagged('Devices', [
  op('POST /v1/devices/{id}/default', devicesScope, 'Make a phone the default sender', device),
  op(
    'POST /v1/devices/pairing-codes',
    devicesScope,
    'Create a pairing code',
    { 201: ref('PairingCode') },
    {
      body: pairing.createPairingCodeBody,
      description:
        'Errors: plan_limit_devices (429). The code lives 10 minutes unless `expires_in_minutes` (1 to 30) asks for ' +
        'another life; the dashboard asks for 30, time to install the SMSGate app and type the code on a phone.',
      idempotent: true,
    },
  ),
  op('GET /v1/devices/pairing-codes/{id}', devicesScope, 'Whether a pairing code was used', {
    200: ref('PairingCodeStatus'),
  }),
  op(
    'GET /v1/devices/pairing-refusals',
    devicesScope,
    'Refused pairing attempts with the account’s codes, newest first',
    { 200: page('PairingRefusal') },
    {
      query: pairing.listPairingRefusalsQuery,
      description:
        'A phone that pairs with a wrong, used or expired code is answered invalid_code whoever owns it; here ' +
        'the owner of the code sees that it was tried and why it was refused. A code mistyped in its first three ' +
        'characters names none of the account’s codes and is not listed. `pairing_code_id` of another account: 404.',
    },
  ),
]);

export const devicesResources: Record<string, JsonSchema> = {
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
    pair_url: {
      ...str,
      description: 'phonegateway://pair?code=…&server=…, read by the simulator (npm run phone -- --pair-url).',
    },
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
};
