import * as devices from '../../devices/devices.schemas';
import * as pairing from '../../devices/pairing.schemas';
import * as messages from '../../messages/messages.schemas';
import * as phone from '../../messages/phone-messages.schemas';
import { object, ref } from '../resources';
import { type Operation, device, devicesScope, list, noBody, op, page, read, tagged, text, wrap } from '../operation';

// The account's phones, and the API a phone itself calls.
export const devicesOperations: Operation[] = [
  ...tagged('Devices', [
    op('GET /v1/devices', read, 'List paired phones, default first', { 200: list('Device') }),
    op('GET /v1/devices/{id}', read, 'A paired phone', device),
    op('PATCH /v1/devices/{id}', devicesScope, "Change a phone's settings", device, { body: devices.patchDeviceBody }),
    op(
      'GET /v1/devices/{id}/estimate',
      read,
      'How long a send would take on a phone',
      { 200: wrap('estimate', ref('Estimate')) },
      {
        query: messages.estimateQuery,
        description:
          'Placed as POST /v1/messages would place a send of `recipients` now (or at scheduled_at): behind the ' +
          "phone's queue, at its pace, within its send window. recipients=0 says when its queue will be empty.",
      },
    ),
    op('DELETE /v1/devices/{id}', devicesScope, 'Unpair a phone; its history is kept', noBody),
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
  ]),

  ...tagged('Phone', [
    op(
      'POST /v1/device/pair',
      'none',
      'Pair a phone with a code',
      {
        201: object({
          device: ref('Device'),
          device_token: text('Bearer token for /v1/device endpoints, shown once.'),
        }),
      },
      { body: devices.pairBody, errors: [400, 429] },
    ),
    op('GET /v1/device', 'device', 'The calling phone', device),
    op('PATCH /v1/device', 'device', "Change the calling phone's settings", device, {
      body: devices.patchOwnDeviceBody,
    }),
    op('DELETE /v1/device', 'device', 'Unpair the calling phone', noBody),
    op('POST /v1/device/heartbeat', 'device', 'Check in; the answer carries the settings to apply', device, {
      body: devices.heartbeatBody,
    }),
    op('POST /v1/device/push-token', 'device', 'Replace the push token', noBody, { body: devices.pushTokenBody }),
    op(
      'GET /v1/device/events',
      'device',
      'The live channel: Server-Sent Events telling the phone when to fetch',
      { 200: { type: 'string', description: 'A text/event-stream.' } },
      {
        contentType: 'text/event-stream',
        description:
          'A `text/event-stream` that stays open. Events (each `data` is `{"type": <event>}`): `ready` once ' +
          'the stream is open (fetch the outbox now), `outbox` when new messages are ready to send (within ' +
          '100 ms of the send, from any API process), `settings` when a setting the phone applies changed ' +
          '(fetch `GET /v1/device`), `unpaired` just before the server ends the stream for good (its token ' +
          'is refused from then on). A `: heartbeat` comment every 15 s (PHONE_EVENTS_HEARTBEAT) keeps ' +
          'proxies from closing it; `retry: 2000` asks clients to reconnect after 2 s. When the stream ' +
          'drops, fetch the outbox and poll until it is open again.',
      },
    ),
    op(
      'GET /v1/device/outbox',
      'device',
      'Messages to send, oldest first',
      { 200: list('OutboxRow') },
      {
        query: phone.outboxQuery,
        description:
          'High-priority sends first, then oldest first (newest first with the processing_order lifo). ' +
          'A message stays here until its outcome is reported. ' +
          'A paced phone (max_sends_per_minute, max_sends_per_hour, max_sends_per_day, sending_capacity) gets no ' +
          'more new messages than its pace allows over the trailing minute, hour, day and capacity period; outside its send_window, ' +
          "and while paused for the platform's limit (paused_until), it gets none: they wait.",
      },
    ),
    op(
      'POST /v1/device/messages/{id}/status',
      'device',
      'Report the outcome of a send',
      {
        200: wrap('message', ref('Message')),
      },
      { body: phone.statusBody },
    ),
    op(
      'POST /v1/device/messages/status',
      'device',
      'Report many outcomes at once',
      {
        200: object({
          data: {
            type: 'array',
            items: {
              oneOf: [
                object({ id: { type: 'string', format: 'uuid' }, message: ref('Message') }),
                object({ id: { type: 'string', format: 'uuid' }, error: ref('Error') }),
              ],
            },
          },
        }),
      },
      {
        body: phone.reportsBody,
        description:
          'Up to 500 reports applied as one set, each with the rules of the single report (idempotent, never ' +
          'backwards, only for the calling phone). `data` answers each report in order: the message after the set, ' +
          "or an error (`not_found` for another phone's message or none).",
      },
    ),
    op(
      'POST /v1/device/inbound',
      'device',
      'Forward a received text',
      {
        201: object({ inserted: { type: 'boolean', const: true }, message: ref('Message') }),
        200: object({ inserted: { type: 'boolean', const: false }, message: ref('Message') }),
      },
      {
        body: phone.inboundBody,
        errors: [403],
        description: '201 when stored, 200 when already known. Errors: receive_disabled (403).',
      },
    ),
    op(
      'GET /v1/device/messages',
      'device',
      "The calling phone's messages",
      { 200: page('Message') },
      {
        query: phone.deviceMessagesQuery,
      },
    ),
  ]),
];
