import { EVENT_NAMES } from '../events/event.entity';
import {
  IDEMPOTENCY_KEY_HEADER,
  KEY_PATTERN,
  MAX_KEY_LENGTH,
  REPLAYED_HEADER,
} from '../idempotency/idempotency.schemas';
import { pathId } from '../lib/fields';
import { int, object, ref, str } from './json-parts';
import type { Operation, OperationAuth } from './operation';
import { toJsonSchema, toParameters, type JsonSchema } from './yup-to-json-schema';

// The OpenAPI 3.1 document of the whole interface, built from the operations and resources the
// features declare beside their routes. The composition root (src/openapi-parts.ts) gathers them and
// passes them in, so this folder imports no feature that imports it.

/** What the features give the document: every endpoint, and the resources their answers are made of. */
export interface DocumentParts {
  /** In the document's order: its paths and tags are listed as their operations first appear. */
  operations: Operation[];
  /** In the document's order (components.schemas), the error resources below aside. */
  resources: Record<string, JsonSchema>;
}

/** Every error's body, written by src/http/error-handler.ts; the document's own error responses use it. */
const errorResources: Record<string, JsonSchema> = {
  FieldError: object({
    field: { ...str, description: 'Location such as body.to[0].' },
    message: str,
  }),
  Error: {
    type: 'object',
    additionalProperties: false,
    required: ['code', 'message', 'status'],
    properties: {
      code: { ...str, description: 'Stable machine-readable code.' },
      message: { ...str, description: 'Human-readable message.' },
      status: { ...int, description: 'The HTTP status.' },
      errors: { type: 'array', items: ref('FieldError'), description: 'Per-field problems when applicable.' },
    },
  },
};

const securitySchemes = {
  apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key.' },
  apiKeyBearer: { type: 'http', scheme: 'bearer', description: 'An API key as `Authorization: Bearer <API_KEY>`.' },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'sid',
    description: 'The dashboard session cookie (login, register).',
  },
  deviceToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The device token returned once by POST /v1/device/pair.',
  },
};

/** Alternatives the route accepts; an API-key requirement lists the scope it needs (3.1 roles). */
function security(auth: OperationAuth): Record<string, string[]>[] {
  if (auth === 'none') return [];
  if (auth === 'device') return [{ deviceToken: [] }];
  if (auth === 'session') return [{ session: [] }];
  if (auth === 'optionalSession') return [{ session: [] }, {}];
  const scopes = auth === 'sessionOrKey' ? [] : [auth.scope];
  return [{ apiKey: scopes }, { apiKeyBearer: scopes }, { session: [] }];
}

const errorResponses: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'The request could not be read (bad_request, invalid_code).' },
  401: { name: 'Unauthenticated', description: 'Credentials are missing or invalid (unauthenticated).' },
  403: {
    name: 'Forbidden',
    description: 'Refused: insufficient_scope, origin_mismatch, or an operation-specific code.',
  },
  404: { name: 'NotFound', description: 'The resource does not exist (not_found).' },
  409: {
    name: 'Conflict',
    description: 'Conflicts with the current state (for example no_device, email_taken, idempotency_key_in_use).',
  },
  410: { name: 'Gone', description: 'The resource is no longer kept (not_stored: a received MMS attachment).' },
  422: {
    name: 'ValidationFailed',
    description:
      'The request is invalid (validation_failed; `errors` lists the fields), or its Idempotency-Key was used ' +
      'with another request (idempotency_key_reused).',
  },
  429: {
    name: 'TooManyRequests',
    description: 'A plan limit (plan_limit_*) or the request rate (rate_limited, with Retry-After).',
  },
  503: {
    name: 'Unavailable',
    description: 'Postgres or Temporal cannot be reached (unavailable, with Retry-After); nothing was done.',
  },
};

function errorStatuses(op: Operation): number[] {
  const statuses = new Set(op.errors ?? []);
  if (op.body) statuses.add(400).add(422);
  if (op.query) statuses.add(422);
  if (/\{\w+\}/.test(op.path)) statuses.add(404);
  if (op.auth !== 'none' && op.auth !== 'optionalSession') statuses.add(401);
  if (typeof op.auth === 'object') statuses.add(403).add(429);
  if (op.auth === 'session' && op.method !== 'get') statuses.add(403);
  if (op.auth === 'sessionOrKey' || op.auth === 'device') statuses.add(429);
  if (op.path !== '/v1/openapi.json') statuses.add(503);
  if (op.idempotent) statuses.add(409).add(422);
  return [...statuses].sort((a, b) => a - b);
}

const setCookie = {
  'Set-Cookie': { description: 'The `sid` session cookie (HttpOnly, SameSite=Lax).', schema: { type: 'string' } },
};

const idempotencyKey = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description:
    'Any unique value (a UUID) that makes a retry safe: a repeat with the same key and the same body within ' +
    '24 hours answers the first response again, with `Idempotent-Replayed: true`, and does nothing else. ' +
    'Keys are per account. The same key with another body: 422 idempotency_key_reused; while the first ' +
    'request is still running: 409 idempotency_key_in_use. A refused request (4xx, 5xx) stores nothing.',
  schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH, pattern: KEY_PATTERN },
};

const replayed = {
  [REPLAYED_HEADER]: {
    description: '`true` when this is the stored first response to the same Idempotency-Key.',
    schema: { type: 'string', const: 'true' },
  },
};

function responses(op: Operation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(op.ok)) {
    out[status] = {
      description: schema ? 'Success.' : 'Success, no body.',
      ...(op.setsCookie ? { headers: setCookie } : {}),
      ...(op.idempotent ? { headers: replayed } : {}),
      ...(schema
        ? {
            content: {
              [op.contentType ?? 'application/json']: { schema },
              ...Object.fromEntries(Object.entries(op.alsoAs ?? {}).map(([type, other]) => [type, { schema: other }])),
            },
          }
        : {}),
    };
  }
  if (op.redirect) {
    out['302'] = {
      description: 'A browser redirect.',
      headers: { Location: { schema: { type: 'string' } }, ...(op.setsCookie ? setCookie : {}) },
    };
  }
  for (const status of errorStatuses(op)) {
    out[String(status)] = { $ref: `#/components/responses/${errorResponses[status].name}` };
  }
  out.default = { $ref: '#/components/responses/Error' };
  return out;
}

function operation(op: Operation): Record<string, unknown> {
  const parameters = [
    ...(op.params ? toParameters(op.params, 'path') : op.path.includes('{id}') ? toParameters(pathId(), 'path') : []),
    ...(op.query ? toParameters(op.query, 'query') : []),
    ...(op.idempotent ? [idempotencyKey] : []),
  ];
  const body = op.body ? toJsonSchema(op.body) : undefined;
  return {
    operationId: `${op.method}${op.path.replace(/^\/v1/, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_, c?: string) => (c ?? '').toUpperCase())}`,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: security(op.auth),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: Array.isArray(body.required) && body.required.length > 0,
            content: { 'application/json': { schema: body } },
          },
        }
      : {}),
    responses: responses(op),
  };
}

/** The payload schema of each event: messages and phones as their resources. */
function eventData(event: string): JsonSchema {
  if (event === 'message.rerouted') {
    return {
      allOf: [
        ref('Message'),
        object({ previous_device_id: { type: 'string', description: 'The phone it was moved from (failover).' } }),
      ],
    };
  }
  if (event.startsWith('message.') || event === 'mms.downloaded') return ref('Message');
  if (event === 'mms.received') return ref('MmsNotice');
  if (event.startsWith('device.')) return ref('Device');
  return { type: 'object', description: 'Nothing useful: the webhook the ping was sent to.' };
}

function webhookEvent(event: string): Record<string, unknown> {
  const header = (name: string, description: string, schema: JsonSchema) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema,
  });
  return {
    post: {
      summary: `The ${event} event`,
      description:
        'Signed with the webhook secret: X-Service-Signature v1 is the hex HMAC-SHA256 of `<t>.<raw body>`. ' +
        'Reject timestamps more than five minutes away; compare in constant time.',
      parameters: [
        header('X-Service-Event', 'The event name.', { type: 'string', const: event }),
        header('X-Service-Delivery', 'This delivery to this endpoint; identical across its retries.', {
          type: 'string',
          format: 'uuid',
        }),
        header('X-Service-Signature', 't=<unix seconds>,v1=<hex>', {
          type: 'string',
          pattern: '^t=\\d+,v1=[0-9a-f]{64}$',
        }),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: object({
              id: { type: 'string', format: 'uuid', description: 'The event id, same for every endpoint.' },
              event: { type: 'string', const: event },
              created_at: { type: 'string', format: 'date-time' },
              data: eventData(event),
            }),
          },
        },
      },
      responses: { '2XX': { description: 'Any 2xx within 30 seconds acknowledges the delivery.' } },
    },
  };
}

export function buildDocument(
  { operations, resources }: DocumentParts,
  options: { serverUrl?: string } = {},
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method] = operation(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Phone-Gateway SMS Service',
      version: '1.0.0',
      description:
        'Send and receive SMS through paired Android phones. Lists return `{data, next_cursor}`; ' +
        'errors return `{code, message, status, errors?}`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    tags: [...new Set(operations.map((op) => op.tag))].map((name) => ({ name })),
    paths,
    webhooks: Object.fromEntries(EVENT_NAMES.map((event) => [event, webhookEvent(event)])),
    components: {
      schemas: { ...resources, ...errorResources },
      securitySchemes,
      responses: {
        ...Object.fromEntries(
          Object.values(errorResponses).map(({ name, description }) => [
            name,
            { description, content: { 'application/json': { schema: ref('Error') } } },
          ]),
        ),
        Error: { description: 'An error.', content: { 'application/json': { schema: ref('Error') } } },
      },
    },
  };
}
