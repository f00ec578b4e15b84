import { SCOPES } from '../http/scopes';
import { id, nullable, object, ref, str, ts } from '../openapi/json-parts';
import { type Operation, noBody, op, page, tagged, text } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import * as tokens from './tokens.schemas';

// The OpenAPI document's part of tokens.routes.ts, and the resource of tokens.views.ts.
export const tokensOperations: Operation[] = tagged('Tokens', [
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
]);

export const tokensResources: Record<string, JsonSchema> = {
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
};
