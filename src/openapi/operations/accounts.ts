import * as accounts from '../../accounts/accounts.schemas';
import * as apiKeys from '../../api-keys/api-keys.schemas';
import * as tokens from '../../tokens/tokens.schemas';
import { object, ref } from '../resources';
import { type Operation, list, noBody, op, page, tagged, text, user } from '../operation';

// Accounts, sessions, API keys, tokens, plans and this document.
export const accountsOperations: Operation[] = [
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
