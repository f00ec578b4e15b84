import { object, ref } from '../openapi/json-parts';
import { type Operation, noBody, op, tagged, text } from '../openapi/operation';
import { device } from './devices.openapi';
import * as devices from './devices.schemas';

// The OpenAPI document's part of phone.routes.ts: the API a phone itself calls; its messages' part
// is src/messages/phone-messages.openapi.ts.
export const phoneOperations: Operation[] = tagged('Phone', [
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
]);
