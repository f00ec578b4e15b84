import type * as yup from 'yup';
import * as accounts from '../accounts/accounts.schemas';
import * as apiKeys from '../api-keys/api-keys.schemas';
import * as devices from '../devices/devices.schemas';
import * as pairing from '../devices/pairing.schemas';
import * as messages from '../messages/messages.schemas';
import * as phone from '../messages/phone-messages.schemas';
import * as optOuts from '../opt-outs/opt-outs.schemas';
import * as tokens from '../tokens/tokens.schemas';
import * as webhooks from '../webhooks/webhooks.schemas';
import type { Scope } from '../api-keys/api-key.entity';
import { object, ref } from './resources';
import type { JsonSchema } from './yup-to-json-schema';

// Every endpoint of the API, with the same schemas its route validates with and the auth its
// route declares. test/openapi/served.test.ts checks this list against the app's routers and their auth.

export type OperationAuth = 'none' | 'session' | 'optionalSession' | 'sessionOrKey' | 'device' | { scope: Scope };

export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  tag: string;
  summary: string;
  auth: OperationAuth;
  /** Path parameters other than `{id}` (a UUID unless given). */
  params?: yup.AnyObjectSchema;
  query?: yup.AnyObjectSchema;
  body?: yup.AnyObjectSchema;
  /** Success responses: status → body schema (null: no body). */
  ok: Record<number, JsonSchema | null>;
  /** Error statuses beyond those implied by auth, path id and validation. */
  errors?: number[];
  /** The success body's media type when it is not JSON. */
  contentType?: string;
  /** Extra notes, e.g. the error codes of this operation. */
  description?: string;
  setsCookie?: boolean;
  redirect?: boolean;
  /** Accepts an Idempotency-Key header (src/idempotency/). */
  idempotent?: boolean;
}

type Details = Partial<
  Pick<
    Operation,
    'params' | 'query' | 'body' | 'errors' | 'description' | 'setsCookie' | 'redirect' | 'contentType' | 'idempotent'
  >
>;

/** `op('GET /v1/x', auth, summary, ok, details)`; the tag is set by the group the operation is in. */
const op = (
  route: string,
  auth: OperationAuth,
  summary: string,
  ok: Operation['ok'],
  details: Details = {},
): Omit<Operation, 'tag'> => {
  const [method, path] = route.split(' ');
  return { method: method.toLowerCase() as Operation['method'], path, auth, summary, ok, ...details };
};

const tagged = (tag: string, ops: Omit<Operation, 'tag'>[]): Operation[] => ops.map((o) => ({ ...o, tag }));

const wrap = (name: string, schema: JsonSchema) => object({ [name]: schema });
const list = (name: string) => object({ data: { type: 'array', items: ref(name) } });
const page = (name: string) => ({
  ...list(name),
  required: ['data'],
  properties: {
    data: { type: 'array', items: ref(name) },
    next_cursor: { type: 'string', description: 'Absent on the last page; pass it back as `cursor`.' },
  },
});
const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const text = (description: string): JsonSchema => ({ type: 'string', description });
const device = { 200: wrap('device', ref('Device')) };
const user = { 200: wrap('user', ref('User')) };
const webhook = { 200: wrap('webhook', ref('Webhook')) };
const noBody = { 204: null };

const read = { scope: 'read' } as const;
const send = { scope: 'send' } as const;
const devicesScope = { scope: 'devices' } as const;
const hooks = { scope: 'webhooks' } as const;

export const operations: Operation[] = [
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
          '(accept, or scheduled_at) if the stale window would keep them longer. Errors: email_unverified (403), ' +
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
    op('GET /v1/messages/{id}', read, 'A message', { 200: wrap('message', ref('Message')) }),
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
          'delivered), `delivered` those with a delivery report, `failed` those that failed.',
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
          'error_code `opted_out` and do not count against the plan. START or UNSTOP takes a number off.',
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

  ...tagged('Webhooks', [
    op('GET /v1/webhooks', hooks, 'List webhooks', { 200: list('Webhook') }),
    op(
      'POST /v1/webhooks',
      hooks,
      'Subscribe an https URL to events',
      { 201: object({ secret: text('The signing secret, shown once.'), webhook: ref('Webhook') }) },
      {
        body: webhooks.createWebhookBody,
        errors: [404],
        description: 'Errors: plan_limit_webhooks (429); not_found (404) when device_id names no paired phone of the account.',
        idempotent: true,
      },
    ),
    op('GET /v1/webhooks/{id}', hooks, 'A webhook', webhook),
    op('PATCH /v1/webhooks/{id}', hooks, 'Change a webhook; enabled true clears an automatic pause', webhook, {
      body: webhooks.updateWebhookBody,
      description: 'Errors: not_found (404) when device_id names no paired phone of the account.',
    }),
    op('DELETE /v1/webhooks/{id}', hooks, 'Delete a webhook', noBody),
    op('POST /v1/webhooks/{id}/rotate-secret', hooks, 'Issue a new signing secret', {
      200: object({ secret: text('Used for deliveries queued from now on.') }),
    }),
    op('POST /v1/webhooks/{id}/test', hooks, 'Queue a ping delivery', { 202: wrap('delivery', ref('Delivery')) }),
    op(
      'GET /v1/webhooks/deliveries',
      hooks,
      'The delivery log, newest first',
      { 200: page('Delivery') },
      {
        query: webhooks.listDeliveriesQuery,
      },
    ),
    op('GET /v1/webhooks/deliveries/{id}', hooks, 'A delivery', { 200: wrap('delivery', ref('Delivery')) }),
    op(
      'POST /v1/webhooks/deliveries/{id}/redeliver',
      hooks,
      'Send a delivery again',
      { 202: wrap('delivery', ref('Delivery')) },
      {
        errors: [409],
        description:
          'Any delivery, delivered or failed (also those abandoned while the webhook was paused): a new delivery ' +
          'of the same event (same body and event id) to the same webhook, with a new delivery id, signed with the ' +
          "webhook's current secret, through the normal retry schedule and delivery log. " +
          'Errors: webhook_deleted, webhook_disabled (409).',
      },
    ),
  ]),

  ...tagged('API keys', [
    op('GET /v1/api-keys', 'session', 'List API keys', { 200: list('APIKey') }, { query: apiKeys.listKeysQuery }),
    op(
      'POST /v1/api-keys',
      'session',
      'Create an API key',
      { 201: object({ api_key: ref('APIKey'), key: text('The full key, shown once, never stored.') }) },
      { body: apiKeys.createKeyBody, idempotent: true },
    ),
    op('PATCH /v1/api-keys/{id}', 'session', 'Rename an API key', noBody, { body: apiKeys.renameKeyBody }),
    op('DELETE /v1/api-keys/{id}', 'session', 'Delete an API key', noBody),
    op('POST /v1/api-keys/{id}/revoke', 'session', 'Revoke an API key', noBody),
  ]),

  ...tagged('Tokens', [
    op(
      'POST /v1/tokens',
      'sessionOrKey',
      'Mint a short-lived token',
      {
        201: object({
          token: ref('Token'),
          secret: text('The token, shown once, never stored: send it as an API key.'),
        }),
      },
      {
        body: tokens.mintTokenBody,
        errors: [403],
        description:
          "scopes: some of the caller's (all of them when left out); an API key cannot name one it lacks (403 " +
          'insufficient_scope). ttl_seconds: 60 to 86400, default 3600. A token cannot mint, list or revoke tokens ' +
          '(403 token_cannot_manage_tokens).',
      },
    ),
    op(
      'GET /v1/tokens',
      'sessionOrKey',
      "Live tokens (a key's own, or all the account's for a session)",
      { 200: page('Token') },
      { query: tokens.listTokensQuery, errors: [403] },
    ),
    op('DELETE /v1/tokens/{id}', 'sessionOrKey', 'Revoke a token: refused from the next request on', noBody, {
      errors: [403],
    }),
  ]),

  ...tagged('Plans', [op('GET /v1/plans', 'none', 'The public plan catalogue', { 200: list('Plan') })]),

  ...tagged('Accounts', [
    op('GET /v1/auth/config', 'none', 'Sign-in options', {
      200: object({
        google_sign_in: { type: 'boolean' },
        turnstile_site_key: text('Empty when no bot check is needed.'),
      }),
    }),
    op('POST /v1/auth/login', 'none', 'Sign in', user, {
      body: accounts.loginBody,
      setsCookie: true,
      errors: [401, 403, 429],
      description: 'Errors: invalid_credentials (401), bot_check_failed (403).',
    }),
    op('POST /v1/auth/logout', 'optionalSession', 'End this session; always succeeds', noBody),
    op(
      'GET /v1/account/settings',
      { scope: 'devices' },
      'Account-wide settings',
      { 200: object({ settings: object({ failover: { type: 'boolean' } }) }) },
      {
        description:
          '`failover` (default false): when a phone goes offline, its messages not yet handed out move to ' +
          'another online, enabled phone of the account (the default first), with new deadlines and ' +
          'estimates; each moved message gets a `message.rerouted` event and its `device_id` says where it went.',
      },
    ),
    op(
      'PATCH /v1/account/settings',
      { scope: 'devices' },
      'Change account-wide settings; only sent fields change',
      { 200: object({ settings: object({ failover: { type: 'boolean' } }) }) },
      { body: accounts.accountSettingsBody },
    ),
    op('GET /v1/auth/me', 'sessionOrKey', 'The account, its plan limits and usage', {
      200: object({ limits: ref('Limits'), usage: ref('UsageView'), user: ref('User') }),
    }),
    op(
      'POST /v1/auth/register',
      'none',
      'Create an account and sign in',
      { 201: user[200] },
      {
        body: accounts.registerBody,
        setsCookie: true,
        errors: [403, 409, 429],
        description: 'Emails a verification code. Errors: bot_check_failed (403), email_taken (409).',
      },
    ),
    op('POST /v1/auth/password', 'session', 'Change the password; other sessions end', noBody, {
      body: accounts.changePasswordBody,
    }),
    op(
      'POST /v1/auth/password-reset/request',
      'none',
      'Email a password reset code',
      { 202: null },
      {
        body: accounts.resetRequestBody,
        errors: [403, 429],
        description: 'The same answer whether or not the address has an account.',
      },
    ),
    op('POST /v1/auth/password-reset', 'none', 'Reset the password with a code; all sessions end', noBody, {
      body: accounts.resetBody,
      errors: [429],
      description: 'Errors: invalid_code (400).',
    }),
    op('PATCH /v1/auth/profile', 'session', 'Change the profile', user, { body: accounts.profileBody }),
    op('GET /v1/auth/sessions', 'session', 'Signed-in sessions, most recently used first', {
      200: list('SessionView'),
    }),
    op('DELETE /v1/auth/sessions/{id}', 'session', 'End a session (the current one clears the cookie)', noBody),
    op('POST /v1/auth/sessions/revoke-others', 'session', 'End every other session', noBody),
    op('POST /v1/auth/verify-email', 'session', 'Verify the email address with its code', user, {
      body: accounts.verifyEmailBody,
      errors: [429],
      description: 'Errors: invalid_code (400).',
    }),
    op('POST /v1/auth/verify-email/send', 'session', 'Resend the verification code', { 202: null }, { errors: [429] }),
    op(
      'GET /v1/auth/google/start',
      'none',
      'Start Google sign-in (a browser navigation)',
      {},
      {
        redirect: true,
        description: 'Redirects to Google; 404 when Google sign-in is off (see /v1/auth/config).',
      },
    ),
    op(
      'GET /v1/auth/google/callback',
      'none',
      'Finish Google sign-in (a browser navigation)',
      {},
      {
        redirect: true,
        setsCookie: true,
        description: 'Redirects to the dashboard, with ?error=google_sign_in_failed on failure.',
      },
    ),
  ]),

  ...tagged('Meta', [op('GET /v1/openapi.json', 'none', 'This OpenAPI document', { 200: { type: 'object' } })]),
];
