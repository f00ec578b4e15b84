import * as messages from '../../messages/messages.schemas';
import * as optOuts from '../../opt-outs/opt-outs.schemas';
import { attachmentParams } from '../../mms/mms.schemas';
import { usageQuery } from '../../usage/usage.schemas';
import { listConversationsQuery } from '../../conversations/conversations.schemas';
import { object, ref } from '../resources';
import { type Operation, noBody, op, page, read, send, tagged, uuid, wrap } from '../operation';

// Sending and reading messages, and the opt-out list.
export const messagesOperations: Operation[] = [
  ...tagged('Messages', [
    op(
      'GET /v1/batches',
      read,
      'List sends, newest first',
      { 200: page('Batch') },
      { query: messages.listBatchesQuery },
    ),
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
    op(
      'GET /v1/messages/{id}/attachments/{attachment_id}',
      read,
      'Download an attachment of a received MMS',
      { 200: { type: 'string', contentMediaType: 'application/octet-stream' } },
      {
        params: attachmentParams,
        contentType: '*/*',
        errors: [410],
        description:
          'The bytes as the phone forwarded them, with their Content-Type. Anything but a PNG, JPEG, GIF, WebP ' +
          'or BMP image is served as a download (Content-Disposition: attachment), and every response carries ' +
          'X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox. Errors: not_stored (410) when ' +
          "its bytes were not kept (see the attachment's not_stored).",
      },
    ),
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
    op(
      'GET /v1/conversations',
      read,
      'Conversations: one per number that texted the account',
      { 200: page('Conversation') },
      {
        query: listConversationsQuery,
        description:
          "Every number that texted one of the account's phones, with its latest text either way, ordered by " +
          'that text, newest first. `q` keeps the conversations whose number or any text holds it (not ' +
          'case-sensitive). Encrypted texts are left out. Paginated like the other lists, by the latest text.',
      },
    ),
    op(
      'GET /v1/usage',
      read,
      'Texts per day or per month, as JSON or CSV',
      { 200: ref('UsageReport') },
      {
        query: usageQuery,
        alsoAs: { 'text/csv': { type: 'string', description: 'A header line, then a line per period.' } },
        description:
          'Every day (or month) from `from` to `to` in `timezone`, oldest first, empty ones included; `to` ' +
          'defaults to today, `from` to 30 days or 12 months before it. A month period covers the whole ' +
          'months `from` and `to` fall in. Texts count in the period they were created in. At most 366 days ' +
          'or 120 months. CSV with `format=csv`, or with `Accept: text/csv` when `format` is not given ' +
          '(as an attachment named after the span). Errors: validation_failed (422) for a date that does ' +
          'not exist, `from` after `to` or a longer span.',
      },
    ),
  ]),

  ...tagged('Opt-outs', [
    op(
      'GET /v1/opt-outs',
      send,
      "List the account's opted-out numbers, newest first",
      { 200: page('OptOut') },
      {
        query: optOuts.listOptOutsQuery,
        description:
          'Numbers that texted STOP, STOPALL, UNSUBSCRIBE, CANCEL, END or QUIT to one of your phones (case and ' +
          'spacing aside), or were added here. Sends skip them: their messages are created failed with ' +
          'error_code `opted_out` and do not count against the plan. START or UNSTOP takes a number off. ' +
          'With phone_number (normalised as recipients are), only that number: an empty page when it is not listed.',
      },
    ),
    op(
      'POST /v1/opt-outs',
      send,
      'Add a number to the opt-out list (idempotent)',
      { 200: wrap('opt_out', ref('OptOut')), 201: wrap('opt_out', ref('OptOut')) },
      {
        body: optOuts.addOptOutBody,
        description:
          'The number is normalised to E.164 as recipients are. 201 when added, 200 when it was listed already.',
      },
    ),
    op('DELETE /v1/opt-outs/{phone_number}', send, 'Take a number off the opt-out list', noBody, {
      params: optOuts.phoneNumberParams,
      description: 'The number in E.164 (`+` may be sent as `%2B`). 404 when it is not on the list.',
    }),
  ]),
];
