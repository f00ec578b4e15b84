import { EVENT_NAMES } from '../events/event.entity';
import { PRIORITIES } from '../messages/batch.entity';
import { MESSAGE_STATUSES } from '../messages/message.entity';
import { OPT_OUT_SOURCES } from '../opt-outs/opt-out.entity';
import { DELIVERY_STATUSES } from '../webhooks/delivery.entity';
import { accountResources } from './account-resources';
import { deviceResources } from './device-resources';
import { any, bool, id, int, nullable, object, ref, str, ts } from './json-parts';
import type { JsonSchema } from './yup-to-json-schema';

// The response resources, written once, mirroring the *.views.ts serialisers field for field
// (test/openapi/views.test.ts checks that each view renders exactly these keys); the devices' in
// device-resources.ts, the account's own (keys, sessions, plan, usage, conversations) in
// account-resources.ts.

export { object, ref };

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

export const resources: Record<string, JsonSchema> = {
  Attachment: object(
    {
      id,
      part_id: { ...int, description: "The part's number on the phone (SMSGate's partId)." },
      content_type: str,
      name: nullable(str),
      size: { ...int, description: 'Bytes (as the phone declared them when not stored).' },
      stored: { ...bool, description: 'Whether its bytes are kept and can be downloaded.' },
      not_stored: {
        type: ['string', 'null'],
        enum: ['over_quota', 'no_data', 'expired', null],
        description:
          "Why not: the account's MMS_ATTACHMENT_QUOTA_BYTES was used up, the phone sent no bytes, or " +
          'MMS_ATTACHMENT_RETENTION has passed.',
      },
    },
    'A part of a received MMS.',
  ),
  MmsNotice: object(
    {
      device_id: id,
      phone_message_id: { ...str, description: "The phone's id of the MMS (SMSGate's messageId)." },
      sender: str,
      recipient: nullable(str),
      sim_subscription_id: nullable(int),
      transaction_id: str,
      subject: nullable(str),
      size: { ...int, description: 'Bytes the MMS declares.' },
      content_class: nullable(str),
      received_at: ts,
    },
    'An MMS a phone was told of and has not downloaded yet (nothing is stored; mms.downloaded follows).',
  ),
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
  Template: object(
    {
      id,
      name: { ...str, description: 'Unique within the account.' },
      body: { ...str, description: 'The text, its `{field}` placeholders as written.' },
      fields: {
        type: 'array',
        items: str,
        description: 'The fields its placeholders use, each once, in the order they first appear.',
      },
      created_at: ts,
      updated_at: ts,
    },
    'A saved message text; send it with `variables` to fill its placeholders per recipient.',
  ),
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
  ...deviceResources,
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
      redelivery_of: {
        ...nullable(id),
        description: 'A manual redelivery: the delivery it repeats (the same event to the same webhook).',
      },
      redeliveries: {
        type: 'array',
        items: id,
        description: 'The manual redeliveries of this delivery, oldest first.',
      },
      superseded_by: {
        ...nullable(id),
        description:
          'The redelivery that reached the receiver while this delivery was still open: this one is then ' +
          'delivered through it (delivered_at is when) and retries no more.',
      },
    },
    'One webhook delivery and its attempts.',
  ),
  ...accountResources,
};
