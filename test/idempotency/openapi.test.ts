import { describe, expect, it } from 'vitest';
import { buildDocument } from '../../src/openapi/document';
import { openapiParts } from '../../src/openapi-parts';

const doc = buildDocument(openapiParts) as any;
const IDEMPOTENT = [
  ['/v1/messages', 'post', '202'],
  ['/v1/webhooks', 'post', '201'],
  ['/v1/devices/pairing-codes', 'post', '201'],
  ['/v1/api-keys', 'post', '201'],
  ['/v1/batches/{id}/retry-failed', 'post', '202'],
] as const;

describe('Idempotency-Key in the OpenAPI document', () => {
  it('documents the header, its errors and the replay header on the creating endpoints', () => {
    for (const [path, method, ok] of IDEMPOTENT) {
      const op = doc.paths[path][method];
      expect(op.parameters, path).toContainEqual(
        expect.objectContaining({
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: expect.objectContaining({ type: 'string', minLength: 1, maxLength: 255 }),
        }),
      );
      expect(op.responses[ok].headers['Idempotent-Replayed'], path).toBeDefined();
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(['409', '422']));
    }
    expect(doc.components.responses.Conflict.description).toContain('idempotency_key_in_use');
    expect(doc.components.responses.ValidationFailed.description).toContain('idempotency_key_reused');
  });

  it('offers the header nowhere else', () => {
    const others = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { parameters?: { name: string }[] }>)
        .filter(([method]) => !IDEMPOTENT.some(([p, m]) => p === path && m === method))
        .filter(([, op]) => op.parameters?.some((p) => p.name === 'Idempotency-Key'))
        .map(([method]) => `${method} ${path}`),
    );
    expect(others).toEqual([]);
  });
});
