import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDocument } from '../../src/openapi/document';
import { openapiParts, operations } from '../../src/openapi-parts';
import { TEST_KEYWORDS, testNames, toJsonSchema, toParameters } from '../../src/openapi/yup-to-json-schema';
import { sendBody } from '../../src/messages/messages.schemas';
import { listKeysQuery } from '../../src/api-keys/api-keys.schemas';
import { heartbeatBody } from '../../src/devices/devices.schemas';

const doc = buildDocument(openapiParts, { serverUrl: 'https://sms.example.test' });

/** Every `$ref` string anywhere in a value. */
function refs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refs);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v] : refs(v)));
  }
  return [];
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    // ESM-only package: a dynamic import keeps this CommonJS-compiled test loadable.
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('the validator catches a broken document (so the check above can fail)', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const broken = structuredClone(doc) as { paths: Record<string, Record<string, { responses?: unknown }>> };
    broken.paths['/v1/messages'].post.responses = 'none';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('resolves every $ref inside the document', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(50);
    for (const ref of all) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it('has unique operation ids', () => {
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) =>
      Object.values(item).map((o) => o.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('postMessages');
  });

  it('knows the meaning of every test in the route schemas', () => {
    const names = operations.flatMap((op) => [op.body, op.query].filter((s) => s !== undefined).flatMap(testNames));
    const unknown = [...new Set(names)].filter((name) => !(name in TEST_KEYWORDS));
    expect(unknown).toEqual([]);
  });

  it('derives request bodies from the yup schemas', () => {
    const schema = toJsonSchema(sendBody) as Record<string, any>;
    // body or data (a data SMS): each optional alone, the rule in the description.
    expect(schema.required).toEqual(['to']);
    // Plain text up to 1,600 characters; an encrypted send's ciphertext is longer than the text it holds.
    expect(schema.properties.body).toMatchObject({ type: 'string', minLength: 1, maxLength: 8192 });
    expect(schema.properties.body.description).toMatch(/At most 1600 characters unless encrypted/);
    expect(schema.properties.body.description).toMatch(/Required unless data is given \(a data SMS\); not with data\./);
    expect(schema.properties.encrypted).toEqual({ type: 'boolean', default: false });
    expect(schema.properties.data).toMatchObject({
      type: ['object', 'null'],
      required: ['base64', 'port'],
      properties: {
        base64: { type: 'string', minLength: 4, maxLength: 65_535 },
        port: { type: 'integer', minimum: 1, maximum: 65_535 },
      },
    });
    expect(schema.properties.to).toMatchObject({
      type: 'array',
      minItems: 1,
      items: {
        type: 'string',
        maxLength: 256,
        description: expect.stringMatching(/At most 64 characters unless encrypted/),
      },
    });
    expect(schema.properties.device_id).toEqual({ type: ['string', 'null'], format: 'uuid' });
    expect(schema.properties.scheduled_at).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    expect(schema.properties.sim_subscription_id).toEqual({
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 2_147_483_647,
    });
    const hb = toJsonSchema(heartbeatBody) as Record<string, any>;
    expect(hb.properties.sims).toMatchObject({ type: 'array', items: { type: 'object' } });
    expect(hb.required).toBeUndefined();
    // The served document carries the same schema.
    const paths = doc.paths as Record<string, any>;
    expect(paths['/v1/messages'].post.requestBody.content['application/json'].schema).toEqual(schema);
  });

  it('derives query parameters from the yup schemas', () => {
    expect(toParameters(listKeysQuery, 'query')).toEqual([
      { name: 'include_revoked', in: 'query', required: false, schema: { type: 'boolean', default: false } },
    ]);
    const paths = doc.paths as Record<string, any>;
    const params = paths['/v1/messages'].get.parameters as { name: string; schema: Record<string, unknown> }[];
    expect(params.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'cursor',
        'limit',
        'device_ids',
        'direction',
        'status',
        'batch_id',
        'q',
        'from',
        'to',
        'order',
      ]),
    );
    expect(params.find((p) => p.name === 'limit')?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 200,
      default: 50,
    });
    expect(params.find((p) => p.name === 'order')?.schema).toMatchObject({ enum: ['asc', 'desc'], default: 'desc' });
    expect(paths['/v1/devices/{id}'].get.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
    ]);
  });

  it('declares the security of each kind of route', () => {
    const paths = doc.paths as Record<string, any>;
    expect(paths['/v1/messages'].post.security).toEqual([
      { apiKey: ['send'] },
      { apiKeyBearer: ['send'] },
      { session: [] },
    ]);
    expect(paths['/v1/api-keys'].get.security).toEqual([{ session: [] }]);
    expect(paths['/v1/device/outbox'].get.security).toEqual([{ deviceToken: [] }]);
    expect(paths['/v1/plans'].get.security).toEqual([]);
    expect(paths['/v1/auth/me'].get.security).toEqual([{ apiKey: [] }, { apiKeyBearer: [] }, { session: [] }]);
    const schemes = (doc.components as Record<string, any>).securitySchemes;
    expect(schemes.apiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }));
    expect(schemes.session).toEqual(expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'sid' }));
    expect(schemes.deviceToken).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
  });

  it('describes every webhook event with its headers and body', () => {
    const hooks = doc.webhooks as Record<string, any>;
    expect(Object.keys(hooks).sort()).toEqual(
      [
        'device.app_started',
        'device.offline',
        'device.online',
        'message.data_received',
        'message.delivered',
        'message.failed',
        'message.received',
        'message.sent',
        'message.rerouted',
        'message.unknown',
        'mms.downloaded',
        'mms.received',
        'ping',
      ].sort(),
    );
    const sent = hooks['message.sent'].post;
    expect(sent.parameters.map((p: { name: string }) => p.name)).toEqual([
      'X-Service-Event',
      'X-Service-Delivery',
      'X-Service-Signature',
    ]);
    const body = sent.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['id', 'event', 'created_at', 'data']);
    expect(body.properties.data).toEqual({ $ref: '#/components/schemas/Message' });
    expect(hooks['device.online'].post.requestBody.content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/Device',
    });
  });

  it('documents the error body for 4xx answers', () => {
    const paths = doc.paths as Record<string, any>;
    const responses = paths['/v1/messages'].post.responses;
    for (const status of ['401', '403', '409', '422', '429', 'default'])
      expect(responses[status], status).toBeDefined();
    const components = doc.components as Record<string, any>;
    expect(components.responses.ValidationFailed.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(components.schemas.Error.required).toEqual(['code', 'message', 'status']);
    expect(components.schemas.Error.properties.errors.items).toEqual({ $ref: '#/components/schemas/FieldError' });
  });

  it('is declared beside the routes: each *.openapi.ts has its *.routes.ts', () => {
    const src = path.resolve(__dirname, '..', '..', 'src');
    const parts = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.openapi.ts'));
    expect(parts.length).toBeGreaterThan(10);
    const alone = parts.filter((f) => !existsSync(path.join(src, f.replace(/\.openapi\.ts$/, '.routes.ts'))));
    expect(alone).toEqual([]);
  });
});
