import { SCOPES } from '../http/scopes';
import { id, int, nullable, object, ref, str, ts } from '../openapi/json-parts';
import { type Operation, list, noBody, op, tagged, text } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import * as apiKeys from './api-keys.schemas';

// The OpenAPI document's part of api-keys.routes.ts, and the resource of api-keys.views.ts.
export const apiKeysOperations: Operation[] = tagged('API keys', [
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
]);

export const apiKeysResources: Record<string, JsonSchema> = {
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
};
