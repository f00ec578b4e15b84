import { PROCESSING_STATES, WEBHOOK_EVENTS } from '../../../src/compat/smsgate/integrator.schemas';
import { PROCESSING_STATES as APP_PROCESSING_STATES } from '../../../src/compat/smsgate/mobile.schemas';
import { INTEGRATOR_API } from './integrator-client';
import { MOBILE_API } from './helpers';

// A hand-written OpenAPI 3.1 document of the SMSGate drop-in: the integrator API (SMSGate's
// "3rd-party" API, docs/smsgate-integrators.md), the app's mobile API and the phone webhook
// (docs/phones.md), as their published clients and the app call them. The service serves none of
// them a document (they are SMSGate's shapes, not ours); this one is for Schemathesis to generate
// requests from, so it describes what a client sends, bounds included, and only the response
// fields that later requests take (ids).

const string = (extra: object = {}) => ({ type: 'string', ...extra });
const integer = (extra: object = {}) => ({ type: 'integer', ...extra });
const nullable = (schema: { type: string }) => ({ ...schema, type: [schema.type, 'null'] });
const timestamp = string({ format: 'date-time' });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The answers SMSGate's clients handle: every refusal is the same `{message, data}` here. */
const errors = { default: { description: 'An error: {message, data: {code, errors?}}.', ...json(ref('Error')) } };

const query = (name: string, schema: object) => ({ name, in: 'query', required: false, schema });
const pathId = (name = 'id') => ({ name, in: 'path', required: true, schema: string({ minLength: 1, maxLength: 64 }) });

/** The security of an integrator call: SMSGate's Basic (the key as password) or a Bearer API key. */
const integrator = [{ basic: [] }, { integratorBearer: [] }];
const phone = [{ deviceToken: [] }];

// The states and events as the drop-in's own schemas list them.
const MESSAGE_STATES = [...PROCESSING_STATES];
const APP_STATES = [...APP_PROCESSING_STATES];
const EVENTS = [...WEBHOOK_EVENTS];

const simCard = {
  type: 'object',
  required: ['slotIndex', 'simNumber'],
  properties: {
    slotIndex: integer(),
    simNumber: integer(),
    phoneNumber: nullable(string({ maxLength: 128 })),
    carrierName: nullable(string({ maxLength: 200 })),
    iccid: nullable(string({ maxLength: 64 })),
  },
};

const exportBody = json({
  type: 'object',
  required: ['since', 'until'],
  properties: {
    deviceId: string({ maxLength: 64 }),
    since: timestamp,
    until: timestamp,
    messageTypes: { type: 'array', items: { enum: ['SMS', 'MMS'] } },
  },
});

const settingsSection = nullable({ type: 'object' } as { type: string });
const settingsBody = json({
  type: 'object',
  properties: Object.fromEntries(
    ['encryption', 'messages', 'ping', 'logs', 'webhooks', 'gateway', 'receiver'].map((name) => [
      name,
      settingsSection,
    ]),
  ),
});

function integratorPaths() {
  const messages = {
    post: {
      operationId: 'sendMessage',
      security: integrator,
      parameters: [
        query('skipPhoneValidation', { type: 'boolean' }),
        query('deviceActiveWithin', integer({ minimum: 0 })),
      ],
      requestBody: { required: true, ...json(ref('SendMessage')) },
      responses: { 202: { description: 'The send, Pending.', ...json(ref('MessageState')) }, ...errors },
    },
    get: {
      operationId: 'listMessages',
      security: integrator,
      parameters: [
        query('from', timestamp),
        query('to', timestamp),
        query('state', { enum: MESSAGE_STATES }),
        query('deviceId', string({ maxLength: 64 })),
        query('limit', integer({ minimum: 1, maximum: 100 })),
        query('offset', integer({ minimum: 0 })),
        query('includeContent', { type: 'boolean' }),
        query('sort', { enum: ['created_at', '-created_at'] }),
      ],
      responses: {
        200: { description: 'Sends, X-Total-Count.', ...json({ type: 'array', items: ref('MessageState') }) },
        ...errors,
      },
    },
  };
  return {
    [`${INTEGRATOR_API}/health`]: {
      get: {
        operationId: 'health',
        security: [],
        responses: { 200: { description: 'Ready.' }, 503: { description: 'Not ready.' } },
      },
    },
    [`${INTEGRATOR_API}/messages`]: messages,
    [`${INTEGRATOR_API}/messages/{id}`]: {
      get: {
        operationId: 'getMessage',
        security: integrator,
        parameters: [pathId()],
        responses: { 200: { description: 'The state.', ...json(ref('MessageState')) }, ...errors },
      },
      delete: {
        operationId: 'cancelMessage',
        security: integrator,
        parameters: [pathId()],
        responses: { 200: { description: 'The state after.', ...json(ref('MessageState')) }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/messages/inbox/export`]: {
      post: {
        operationId: 'exportInbox',
        security: integrator,
        requestBody: { required: true, ...exportBody },
        responses: { 202: { description: 'Queued.' }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/inbox/refresh`]: {
      post: {
        operationId: 'refreshInbox',
        security: integrator,
        requestBody: { required: true, ...exportBody },
        responses: { 202: { description: 'Queued.' }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/inbox`]: {
      get: {
        operationId: 'inbox',
        security: integrator,
        parameters: [
          query('type', { enum: ['SMS', 'DATA_SMS', 'MMS', 'MMS_DOWNLOADED'] }),
          query('from', timestamp),
          query('to', timestamp),
          query('deviceId', string({ maxLength: 64 })),
          query('limit', integer({ minimum: 1, maximum: 500 })),
          query('offset', integer({ minimum: 0 })),
          query('includeAttachments', { type: 'boolean' }),
        ],
        responses: { 200: { description: 'Received texts, X-Total-Count.', ...json({ type: 'array' }) }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/devices`]: {
      get: {
        operationId: 'listDevices',
        security: integrator,
        responses: { 200: { description: 'Phones.', ...json({ type: 'array', items: ref('Device') }) }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/devices/{id}`]: {
      delete: {
        operationId: 'removeDevice',
        security: integrator,
        parameters: [pathId()],
        responses: { 204: { description: 'Unpaired.' }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/settings`]: {
      get: {
        operationId: 'getSettings',
        security: integrator,
        responses: { 200: { description: 'Settings.', ...json({ type: 'object' }) }, ...errors },
      },
      patch: {
        operationId: 'patchSettings',
        security: integrator,
        requestBody: { required: true, ...settingsBody },
        responses: { 200: { description: 'Settings.' }, ...errors },
      },
      put: {
        operationId: 'putSettings',
        security: integrator,
        requestBody: { required: true, ...settingsBody },
        responses: { 200: { description: 'Settings.' }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/webhooks`]: {
      get: {
        operationId: 'listWebhooks',
        security: integrator,
        responses: { 200: { description: 'Webhooks.', ...json({ type: 'array', items: ref('Webhook') }) }, ...errors },
      },
      post: {
        operationId: 'registerWebhook',
        security: integrator,
        requestBody: { required: true, ...json(ref('WebhookInput')) },
        responses: { 201: { description: 'Registered.', ...json(ref('Webhook')) }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/webhooks/{id}`]: {
      delete: {
        operationId: 'deleteWebhook',
        security: integrator,
        parameters: [pathId()],
        responses: { 204: { description: 'Deleted.' }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/logs`]: {
      get: {
        operationId: 'logs',
        security: integrator,
        parameters: [query('from', timestamp), query('to', timestamp)],
        responses: { 200: { description: 'Entries.', ...json({ type: 'array' }) }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/auth/token`]: {
      post: {
        operationId: 'token',
        security: integrator,
        requestBody: json({
          type: 'object',
          required: ['scopes'],
          properties: { scopes: { type: 'array', minItems: 1, items: string() }, ttl: integer({ minimum: 0 }) },
        }),
        responses: {
          201: {
            description: 'A token (TokenResponse).',
            ...json({ type: 'object', required: ['id', 'token_type', 'access_token', 'expires_at'] }),
          },
          ...errors,
        },
      },
    },
    [`${INTEGRATOR_API}/auth/token/{jti}`]: {
      delete: {
        operationId: 'revokeToken',
        security: integrator,
        parameters: [pathId('jti')],
        responses: { 204: { description: 'Revoked.' }, ...errors },
      },
    },
    [`${INTEGRATOR_API}/auth/token/refresh`]: {
      post: {
        operationId: 'refreshToken',
        // The refresh token as the Bearer token; an API key there is refused (401).
        security: [{ integratorBearer: [] }],
        responses: {
          201: {
            description: 'The next token pair (TokenResponse).',
            ...json({ type: 'object', required: ['id', 'token_type', 'access_token', 'refresh_token', 'expires_at'] }),
          },
          ...errors,
        },
      },
    },
  };
}

function mobilePaths() {
  const messagePatch = {
    type: 'array',
    maxItems: 1000,
    items: {
      type: 'object',
      required: ['id', 'state', 'recipients'],
      properties: {
        id: string({ maxLength: 36 }),
        state: { enum: APP_STATES },
        recipients: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['phoneNumber', 'state'],
            properties: {
              phoneNumber: string({ minLength: 1, maxLength: 128 }),
              state: { enum: APP_STATES },
              error: nullable(string()),
            },
          },
        },
        states: { type: 'object', additionalProperties: string() },
      },
    },
  };
  return {
    [`${MOBILE_API}/device`]: {
      post: {
        operationId: 'registerPhone',
        // The app's private token: here a pairing code from the dashboard.
        security: [{ pairingCode: [] }],
        requestBody: {
          required: true,
          ...json({
            type: 'object',
            properties: {
              name: nullable(string({ maxLength: 128 })),
              pushToken: nullable(string({ maxLength: 256 })),
              simCards: { type: 'array', maxItems: 16, items: simCard },
            },
          }),
        },
        responses: {
          201: {
            description: 'Registered.',
            ...json({ type: 'object', properties: { id: string(), token: string() } }),
          },
          ...errors,
        },
      },
      get: {
        operationId: 'getPhone',
        security: [...phone, {}],
        responses: { 200: { description: 'The phone and its address.' }, ...errors },
      },
      patch: {
        operationId: 'updatePhone',
        security: phone,
        requestBody: {
          required: true,
          ...json({
            type: 'object',
            required: ['id'],
            properties: {
              id: string({ maxLength: 64 }),
              pushToken: nullable(string({ maxLength: 256 })),
              simCards: nullable({ type: 'array' } as { type: string }),
            },
          }),
        },
        responses: { 204: { description: 'Updated.' }, ...errors },
      },
    },
    [`${MOBILE_API}/message`]: {
      get: {
        operationId: 'pendingMessages',
        security: phone,
        parameters: [query('order', { enum: ['lifo', 'fifo'] })],
        responses: { 200: { description: 'What to send.', ...json({ type: 'array' }) }, ...errors },
      },
      patch: {
        operationId: 'patchMessages',
        security: phone,
        requestBody: { required: true, ...json(messagePatch) },
        responses: { 204: { description: 'Reported.' }, ...errors },
      },
    },
    [`${MOBILE_API}/webhooks`]: {
      get: {
        operationId: 'phoneWebhooks',
        security: phone,
        responses: { 200: { description: 'Webhooks.' }, ...errors },
      },
    },
    [`${MOBILE_API}/settings`]: {
      get: {
        operationId: 'phoneSettings',
        security: phone,
        responses: { 200: { description: 'Settings.' }, ...errors },
      },
    },
    [`${MOBILE_API}/user/code`]: {
      get: {
        operationId: 'userCode',
        security: [{ basic: [] }],
        responses: {
          200: {
            description: 'A one-time sign-in code (a pairing code).',
            ...json({ type: 'object', required: ['code', 'validUntil'], properties: { code: string(), validUntil: string() } }),
          },
          ...errors,
        },
      },
    },
    [`${MOBILE_API}/user/password`]: {
      patch: {
        operationId: 'userPassword',
        security: phone,
        requestBody: json({ type: 'object' }),
        responses: { 403: { description: 'No passwords here.' }, ...errors },
      },
    },
    // The phone's webhook calls, signed with X-Signature over the body and X-Timestamp.
    ['/compat/smsgate/webhooks/{deviceId}']: {
      post: {
        operationId: 'phoneWebhook',
        security: [],
        parameters: [
          { ...pathId('deviceId'), schema: string({ format: 'uuid' }) },
          { name: 'X-Signature', in: 'header', required: true, schema: string({ pattern: '^[0-9a-f]{64}$' }) },
          { name: 'X-Timestamp', in: 'header', required: true, schema: string({ pattern: '^[0-9]{1,12}$' }) },
        ],
        requestBody: {
          required: true,
          ...json({
            type: 'object',
            required: ['id', 'webhookId', 'event', 'deviceId', 'payload'],
            properties: {
              id: string({ maxLength: 100 }),
              webhookId: string({ maxLength: 100 }),
              event: { enum: ['sms:received', 'sms:data-received', 'mms:received', 'mms:downloaded', 'app:started', 'system:ping'] },
              deviceId: string({ maxLength: 64 }),
              payload: { type: 'object' },
            },
          }),
        },
        responses: {
          200: { description: 'Known.' },
          201: { description: 'Stored.' },
          204: { description: 'Nothing kept.' },
          ...errors,
        },
      },
    },
  };
}

/** What the tests read of the document: its operations and the statuses each declares. */
export interface Document {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
}

/** The document, for `baseUrl` (the app's address). */
export function smsgateDocument(baseUrl: string): Document & Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'SMSGate drop-in (integrator and mobile APIs)', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    paths: { ...integratorPaths(), ...mobilePaths() },
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'Any login; an API key as the password.' },
        integratorBearer: { type: 'http', scheme: 'bearer', description: 'An API key.' },
        deviceToken: { type: 'http', scheme: 'bearer', description: 'The token the phone got at registration.' },
        pairingCode: { type: 'http', scheme: 'bearer', description: 'A pairing code, the app’s private token.' },
      },
      schemas: {
        Error: { type: 'object', required: ['message'], properties: { message: string(), data: { type: 'object' } } },
        SendMessage: {
          type: 'object',
          required: ['message', 'phoneNumbers'],
          properties: {
            id: string({ maxLength: 36, pattern: '^[!-~]+$' }),
            deviceId: string({ maxLength: 64 }),
            message: string({ minLength: 1, maxLength: 1600 }),
            textMessage: { type: 'object', required: ['text'], properties: { text: string({ maxLength: 1600 }) } },
            // Numbers that normalise (random text does not, and no send would be made).
            phoneNumbers: {
              type: 'array',
              minItems: 1,
              maxItems: 100,
              items: string({ pattern: '^\\+1415555[0-9]{4}$' }),
            },
            simNumber: nullable(integer({ minimum: 1, maximum: 3 })),
            withDeliveryReport: nullable({ type: 'boolean' }),
            priority: nullable(integer({ minimum: -128, maximum: 127 })),
            ttl: nullable(integer({ minimum: 5 })),
            validUntil: nullable(timestamp),
            scheduleAt: nullable(timestamp),
          },
        },
        MessageState: {
          type: 'object',
          required: ['id', 'state'],
          properties: {
            id: string(),
            deviceId: string(),
            state: { enum: MESSAGE_STATES },
            recipients: { type: 'array' },
          },
        },
        Device: { type: 'object', required: ['id'], properties: { id: string(), name: string() } },
        WebhookInput: {
          type: 'object',
          required: ['url', 'event'],
          properties: {
            id: string({ maxLength: 36, pattern: '^[!-~]+$' }),
            url: string({ maxLength: 2048, pattern: '^https://[a-z0-9.-]{1,40}(:[0-9]{1,5})?/[a-z0-9/]{0,40}$' }),
            event: { enum: EVENTS },
          },
        },
        Webhook: {
          type: 'object',
          required: ['id', 'url', 'event'],
          properties: { id: string(), url: string(), event: { enum: EVENTS } },
        },
      },
    },
  };
}
