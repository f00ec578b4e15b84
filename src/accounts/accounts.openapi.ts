import { any, bool, id, nullable, object, ref, str, ts } from '../openapi/json-parts';
import { type Operation, list, noBody, op, tagged, text, wrap } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import * as accounts from './accounts.schemas';

// The OpenAPI document's part of accounts.routes.ts, and the resources of accounts.views.ts. Each list
// is in the document's order; src/openapi-parts.ts places the lists.
const user = { 200: wrap('user', ref('User')) };

/** Signing in and out; the document goes on with the account's settings (account-settings.openapi.ts). */
export const accountsOperations: Operation[] = tagged('Accounts', [
  op('GET /v1/auth/config', 'none', 'Sign-in options', {
    200: object({
      google_sign_in: { type: 'boolean' },
      turnstile_site_key: text('Empty when no bot check is needed.'),
      default_country: {
        type: ['string', 'null'],
        description:
          'The country (ISO 3166 alpha-2, DEFAULT_COUNTRY) numbers written without + and a country code are read in; null: none.',
      },
    }),
  }),
  op('POST /v1/auth/login', 'none', 'Sign in', user, {
    body: accounts.loginBody,
    setsCookie: true,
    errors: [401, 403, 429],
    description: 'Errors: invalid_credentials (401), bot_check_failed (403).',
  }),
  op('POST /v1/auth/logout', 'optionalSession', 'End this session; always succeeds', noBody),
]);

/** The rest of accounts.routes.ts, after the account's settings in the document. */
export const moreAccountsOperations: Operation[] = tagged('Accounts', [
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
]);

export const accountsResources: Record<string, JsonSchema> = {
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
};
