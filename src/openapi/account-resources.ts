import { SCOPES } from '../api-keys/api-key.entity';
import { any, bool, id, int, nullable, object, ref, str, ts } from './json-parts';
import type { JsonSchema } from './yup-to-json-schema';

// The account's own resources of the document: its keys and tokens, user and sessions, plan and
// usage, and its conversations (resources.ts has the rest).

/** GET /v1/usage's counts of a period. */
const usageCounts = {
  sent: { ...int, description: 'Outbound texts created in the period that reached the carrier.' },
  delivered: { ...int, description: 'Of those created in the period, texts with a delivery report.' },
  failed: { ...int, description: 'Outbound texts that failed, cancelled and opted-out ones included.' },
  cancelled: { ...int, description: 'Of failed, texts cancelled before they were sent.' },
  opted_out: { ...int, description: 'Of failed, texts to numbers that opted out, never sent.' },
  received: { ...int, description: 'Inbound texts stored in the period.' },
  segments: { ...int, description: 'The SMS parts of the sent texts.' },
};

export const accountResources: Record<string, JsonSchema> = {
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
  UsageRow: object({
    period: { ...str, description: 'The day (YYYY-MM-DD) or the month (YYYY-MM).' },
    ...usageCounts,
  }),
  UsageReport: object({
    period: { ...str, enum: ['day', 'month'] },
    timezone: str,
    from: { ...str, format: 'date' },
    to: { ...str, format: 'date' },
    periods: { type: 'array', items: ref('UsageRow') },
    totals: object(usageCounts, 'The sums over the periods.'),
  }),
  Conversation: object({
    contact: { ...str, description: 'The number that texted the account.' },
    last_message: ref('Message'),
    text_count: { ...int, description: 'Texts both ways with the number.' },
    received_count: { ...int, description: 'Texts from the number.' },
    last_received_at: ts,
  }),
};
