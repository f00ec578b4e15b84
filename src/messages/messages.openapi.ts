import { bool, id, int, nullable, object, ref, str, ts } from '../openapi/json-parts';
import { type Operation, op, page, read, send, tagged, uuid, wrap } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import { PRIORITIES } from './batch.entity';
import { MESSAGE_STATUSES } from './message.entity';
import * as messages from './messages.schemas';

// The OpenAPI document's part of messages.routes.ts, and the resources of messages.views.ts (the
// phone's part is phone-messages.openapi.ts). Each list is in the document's order; src/openapi-parts.ts
// places the lists.

/** Sends and messages; the document goes on with a received MMS's attachment (src/mms/mms.openapi.ts). */
export const messagesOperations: Operation[] = tagged('Messages', [
  op('GET /v1/batches', read, 'List sends, newest first', { 200: page('Batch') }, { query: messages.listBatchesQuery }),
  op('GET /v1/batches/{id}', read, 'A send and its messages (poll to follow it)', {
    200: object({ batch: ref('Batch'), messages: { type: 'array', items: ref('Message') } }),
  }),
  op(
    'GET /v1/messages',
    read,
    'List sent and received messages',
    { 200: page('Message') },
    {
      query: messages.listMessagesQuery,
    },
  ),
  op(
    'POST /v1/messages',
    send,
    'Send a text to one or more recipients',
    { 202: object({ batch: ref('Batch'), message_ids: { type: 'array', items: uuid } }) },
    {
      body: messages.sendBody,
      errors: [403, 409],
      idempotent: true,
      description:
        'Acceptance is not delivery: follow the batch or webhooks. `priority` high goes first in the ' +
        "phone's outbox; `ttl_seconds` lapses the messages to unknown that long after they become sendable " +
        '(accept, or scheduled_at) if the stale window would keep them longer. `encrypted` true: `body` and each ' +
        "`to` entry are ciphertext the owner's phone decrypts (SMSGate's format, docs/sending.md); they are " +
        'stored and shown as given, not normalised, not checked against opt-outs, not searched, one segment each. ' +
        '`variables` (one object per `to` entry) makes `body` a template: each message gets its own text with ' +
        "the recipient's `{field}` values, and the batch keeps the template, its segments those of the longest " +
        'text; a recipient lacking a field the template uses is a 422 naming its entry. ' +
        'Errors: email_unverified (403), ' +
        'no_device (409), plan_limit_batch, plan_limit_daily, plan_limit_monthly (429).',
    },
  ),
  op(
    'POST /v1/batches/{id}/cancel',
    send,
    'Cancel a send',
    { 200: wrap('batch', ref('Batch')) },
    {
      errors: [409],
      description:
        'Messages not yet dispatched (queued, or waiting for scheduled_at) fail with error_code `cancelled` ' +
        "(message.failed each) and no longer count against the day's and month's usage; dispatched ones stay " +
        'and may still be reported. The batch settles when its last message is final (`cancelled_at` set). ' +
        'Errors: batch_finished (409) when every message already has its outcome.',
    },
  ),
  op(
    'POST /v1/batches/{id}/retry-failed',
    send,
    "Send a batch's failed texts again",
    { 202: object({ batch: ref('Batch'), message_ids: { type: 'array', items: uuid } }) },
    {
      errors: [403, 409],
      idempotent: true,
      description:
        'A new send (batch) of the texts that failed on their way, not those cancelled nor to opted-out numbers, ' +
        'each with the text it had, from the same phone and SIM, with the same priority and ttl_seconds. Its ' +
        '`retry_of` names the batch, whose `retried_by` names it. It counts against the plan as any send. A batch ' +
        'is retried once. Errors: nothing_to_retry (409) when no text failed, already_retried (409), and those ' +
        'of POST /v1/messages.',
    },
  ),
  op('GET /v1/messages/{id}', read, 'A message', { 200: wrap('message', ref('Message')) }),
]);

/** A phone's estimate, which the document lists with the phone (src/devices/devices.openapi.ts). */
export const estimateOperations: Operation[] = tagged('Devices', [
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
]);

/** The rest of messages.routes.ts, after the attachment in the document. */
export const moreMessagesOperations: Operation[] = tagged('Messages', [
  op(
    'POST /v1/messages/{id}/cancel',
    send,
    'Cancel one message of a send',
    { 200: wrap('message', ref('Message')) },
    {
      errors: [409],
      description:
        'The message, if not yet dispatched (queued, or waiting for scheduled_at), fails with error_code ' +
        '`cancelled` (message.failed) and no longer counts against the usage; the rest of its send goes on. ' +
        'The send settles when this was its last open message. Errors: message_not_cancellable (409) when ' +
        'the phone has it already or it has its outcome (an inbound message too).',
    },
  ),
  op('GET /v1/stats', read, 'Paired phones and message totals', { 200: ref('Stats') }),
  op(
    'GET /v1/stats/daily',
    read,
    'Texts sent, delivered and failed per day',
    { 200: ref('DailyStats') },
    {
      query: messages.dailyStatsQuery,
      description:
        'One entry per calendar day in `timezone`, oldest first, today last, days without texts included. ' +
        'A day counts the outbound texts created on it: `sent` those that reached the carrier (sent or ' +
        'delivered), `delivered` those with a delivery report, `failed` those that failed. Each text is also ' +
        'counted once by its state: `delivered`, `awaiting_report`, `pending`, `unknown` or `failed` ' +
        '(of which `cancelled` and `opted_out`); these add up to the texts created that day.',
    },
  ),
]);

/** A received MMS's own fields on its message: listed, not required (no other message has them). */
function mmsFields(properties: Record<string, JsonSchema>): JsonSchema {
  const base = object(properties);
  return {
    ...base,
    properties: {
      ...properties,
      subject: { ...nullable(str), description: 'A received MMS only: its subject.' },
      attachments: {
        type: 'array',
        items: ref('Attachment'),
        description:
          'A received MMS only: its non-text parts; GET /v1/messages/{id}/attachments/{attachment_id} serves one.',
      },
    },
  };
}

/** A send and its messages; the document lists them after a received MMS's resources. */
export const messagesResources: Record<string, JsonSchema> = {
  Batch: object(
    {
      id,
      body: { ...str, description: 'The text; empty for a data SMS.' },
      data: ref('DataContent'),
      encrypted: {
        ...bool,
        description:
          "body and the recipients are ciphertext only the owner's phone can read (SMSGate's format); see POST /v1/messages.",
      },
      device_id: id,
      status: str,
      recipient_count: int,
      recipient_preview: { ...str, description: 'The first numbers; for an encrypted send, how many there are.' },
      segments: {
        ...int,
        description: 'SMS segments each message of the send takes (1 when encrypted or a data SMS).',
      },
      encoding: {
        type: 'string',
        enum: ['gsm7', 'ucs2', 'unknown', 'binary'],
        description: 'GSM-7, or UCS-2 when a character needs it; unknown when encrypted; binary for a data SMS.',
      },
      dispatched_count: int,
      sent_count: int,
      delivered_count: int,
      failed_count: int,
      cancelled_count: {
        ...int,
        description: 'Of failed_count, messages cancelled before they were sent (error_code `cancelled`).',
      },
      opted_out_count: {
        ...int,
        description: 'Of failed_count, messages to numbers that opted out, never sent (error_code `opted_out`).',
      },
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
        description:
          'When POST /v1/batches/{id}/cancel cancelled the send (its undispatched messages failed `cancelled`).',
      },
      retry_of: {
        ...nullable(id),
        description: 'The send whose failed texts this one retries (POST /v1/batches/{id}/retry-failed).',
      },
      retried_by: { ...nullable(id), description: "The send that retries this one's failed texts, once one does." },
      created_at: ts,
      updated_at: ts,
    },
    'One send to one or more recipients.',
  ),
  Message: mmsFields({
    id,
    batch_id: { ...nullable(id), description: 'Null for inbound messages.' },
    device_id: id,
    direction: { type: 'string', enum: ['outbound', 'inbound'] },
    status: { type: 'string', enum: [...MESSAGE_STATUSES] },
    body: { ...str, description: 'The text; empty for a data SMS.' },
    data: ref('DataContent'),
    encrypted: { ...bool, description: 'body and recipient are ciphertext (an encrypted send).' },
    segments: { ...int, description: 'SMS segments the text takes; 1 for a data SMS.' },
    encoding: {
      type: 'string',
      enum: ['gsm7', 'ucs2', 'unknown', 'binary'],
      description: 'unknown when encrypted; binary for a data SMS.',
    },
    recipient: { ...nullable(str), description: 'Outbound only; ciphertext when encrypted.' },
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
  DataContent: {
    ...nullable(
      object({
        base64: { ...str, description: 'The bytes, base64 (padded).' },
        port: {
          ...int,
          description: 'The application port (1-65535); received ones: the SMSGate app listens on 53739.',
        },
      }),
    ),
    description: 'A data SMS (binary, to an application port); null for a text.',
  },
};

/** What a phone fetches, and a send's estimate; after the opt-outs' and templates' resources. */
export const outboxResources: Record<string, JsonSchema> = {
  OutboxRow: object(
    {
      id: { ...id, description: 'The message id.' },
      batch_id: id,
      body: { ...str, description: 'The text; empty for a data SMS.' },
      data: ref('DataContent'),
      to: str,
      encrypted: {
        ...bool,
        description:
          "body and to are ciphertext: decrypt them with the owner's passphrase (AES-256-CBC, PBKDF2-HMAC-SHA1, as SMSGate's app).",
      },
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
    'How long a send of `recipients` would take on a phone at its pace, behind what it has queued.',
  ),
};

/** GET /v1/stats and /v1/stats/daily; after the plans' resources. */
export const statsResources: Record<string, JsonSchema> = {
  Stats: object({ devices: int, received: int, sent: int }),
  DailyStats: object({
    timezone: str,
    days: {
      type: 'array',
      items: object({
        date: { ...str, format: 'date' },
        sent: int,
        delivered: int,
        failed: int,
        cancelled: { ...int, description: 'Of failed, messages cancelled before they were sent.' },
        opted_out: { ...int, description: 'Of failed, messages to numbers that opted out, never sent.' },
        pending: { ...int, description: 'Messages not sent yet: queued, or on their phone (dispatched).' },
        awaiting_report: { ...int, description: 'Messages sent that have no delivery report yet.' },
        unknown: { ...int, description: 'Messages without an outcome within the stale window.' },
      }),
    },
  }),
};
