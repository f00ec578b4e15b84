import { object, ref } from '../openapi/json-parts';
import { type Operation, list, op, page, tagged, wrap } from '../openapi/operation';
import * as phone from './phone-messages.schemas';

// The OpenAPI document's part of phone-messages.routes.ts: the API a phone calls for its messages,
// listed after the phone's own (src/devices/phone.openapi.ts). Its resources are in messages.openapi.ts.
export const phoneMessagesOperations: Operation[] = tagged('Phone', [
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
]);
