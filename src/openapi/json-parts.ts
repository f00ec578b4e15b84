import type { JsonSchema } from './yup-to-json-schema';

// The building blocks the resources are written with.

export const str: JsonSchema = { type: 'string' };
export const int: JsonSchema = { type: 'integer' };
export const bool: JsonSchema = { type: 'boolean' };
export const ts: JsonSchema = { type: 'string', format: 'date-time' };
export const id: JsonSchema = { type: 'string', format: 'uuid' };
export const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type, 'null'] });
export const any = (description: string): JsonSchema => ({ description });

/** An object whose every listed field is always present (the spec's rule for responses). */
export const object = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
