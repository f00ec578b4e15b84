import type * as yup from 'yup';

// Turns the routes' own yup schemas into JSON Schema (2020-12, as OpenAPI 3.1 uses), so the
// document describes exactly what validate() accepts and cannot drift from it.

export type JsonSchema = Record<string, unknown>;

type Description = yup.SchemaFieldDescription;
type Test = { name?: string; params?: Record<string, unknown> };

/**
 * What each named yup test means in JSON Schema. Custom tests (`schema.test('name', ...)`) have no
 * structure describe() can show, so each gets its meaning here; a test reports unknown names.
 */
export const TEST_KEYWORDS: Record<string, (test: Test, type: string) => JsonSchema> = {
  required: () => ({}),
  trim: () => ({}),
  integer: () => ({ type: 'integer' }),
  min: (t, type) => bound(type, 'min', t.params?.min),
  max: (t, type) => bound(type, 'max', t.params?.max),
  length: (t, type) => ({ ...bound(type, 'min', t.params?.length), ...bound(type, 'max', t.params?.length) }),
  uuid: () => ({ format: 'uuid' }),
  matches: (t) => ({ pattern: (t.params?.regex as RegExp).source }),
  // Custom tests of the feature schemas.
  https: () => ({ format: 'uri', pattern: '^https://' }),
  future: () => ({ description: 'Must be in the future.' }),
  horizon: () => ({ description: 'At most 7 days ahead.' }),
  cursor: () => ({ description: 'The next_cursor of a previous page.' }),
  uuids: () => ({ description: 'Comma-separated device ids.' }),
  free_json: (t) => {
    const { shape, maxBytes, maxDepth, maxItems } = t.params as Record<string, unknown>;
    const limits = `Free-form JSON: at most ${maxBytes} bytes, ${maxDepth} levels deep.`;
    return shape === 'object'
      ? { type: 'object', description: limits }
      : { type: 'array', items: { type: 'object' }, maxItems, description: limits };
  },
  variables: (t) => ({
    type: ['array', 'null'],
    items: {
      type: 'object',
      maxProperties: t.params?.fieldsMax,
      additionalProperties: { type: 'string', maxLength: t.params?.valueMax },
    },
    description:
      'One object per `to` entry (field name → text): `body` is then a template whose `{field}` placeholders ' +
      'are filled per recipient (names match whatever their case). Not with encrypted or data.',
  }),
  some_field: () => ({ minProperties: 1, description: 'At least one of the fields.' }),
  plain_max: (t) => ({ description: `At most ${Number(t.params?.plainMax)} characters unless encrypted.` }),
  ciphertext: () => ({
    description: 'With encrypted true: ciphertext in the SMSGate app format ($aes-256-cbc/pbkdf2-sha1$i=…$salt$data).',
  }),
  content: () => ({ description: 'Required unless data is given (a data SMS); not with data.' }),
  timezone: () => ({ description: 'An IANA time zone such as Europe/Berlin.' }),
  day: () => ({ format: 'date', description: 'A calendar day that exists.' }),
  window_hours: () => ({ description: 'start must be before end.' }),
  clear_preferred_sim: () => ({
    description: 'clear_preferred_sim cannot be combined with preferred_sim_subscription_id.',
  }),
};

function bound(type: string, side: 'min' | 'max', value: unknown): JsonSchema {
  const keyword =
    type === 'string'
      ? `${side}Length`
      : type === 'array'
        ? `${side}Items`
        : type === 'object'
          ? `${side}Properties`
          : side === 'min'
            ? 'minimum'
            : 'maximum';
  return typeof value === 'number' ? { [keyword]: value } : {};
}

const BASE_TYPES: Record<string, JsonSchema> = {
  string: { type: 'string' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date-time' },
  object: { type: 'object' },
  array: { type: 'array' },
  mixed: {},
};

/** One yup schema (or its description) as JSON Schema. */
export function toJsonSchema(schema: yup.Schema | Description): JsonSchema {
  const d = ('describe' in schema ? schema.describe() : schema) as yup.SchemaDescription & {
    fields?: Record<string, Description>;
    innerType?: Description;
  };
  if (!(d.type in BASE_TYPES)) throw new Error(`no JSON Schema for yup type "${d.type}"`);
  const out: JsonSchema = { ...BASE_TYPES[d.type] };
  const descriptions: string[] = [];
  for (const test of d.tests as Test[]) {
    const keywords = test.name ? TEST_KEYWORDS[test.name]?.(test, d.type) : undefined;
    if (!keywords) continue;
    const { description, ...rest } = keywords;
    if (typeof description === 'string') descriptions.push(description);
    Object.assign(out, rest);
  }
  if (descriptions.length > 0) out.description = descriptions.join(' ');

  if (d.type === 'object' && d.fields) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [name, field] of Object.entries(d.fields)) {
      properties[name] = toJsonSchema(field);
      if ('optional' in field && !field.optional) required.push(name);
    }
    out.properties = properties;
    if (required.length > 0) out.required = required;
  }
  if (d.type === 'array' && d.innerType) out.items = toJsonSchema(d.innerType);

  if (d.oneOf.length > 0) out.enum = d.nullable ? [...d.oneOf, null] : [...d.oneOf];
  if (d.nullable && typeof out.type === 'string') out.type = [out.type, 'null'];
  if (d.default !== undefined && typeof d.default !== 'object' && typeof d.default !== 'function') {
    out.default = d.default;
  }
  return out;
}

/** Each field of an object schema as an OpenAPI parameter (query string or path). */
export function toParameters(schema: yup.AnyObjectSchema, where: 'query' | 'path'): JsonSchema[] {
  const { properties = {}, required = [] } = toJsonSchema(schema) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(properties).map(([name, fieldSchema]) => {
    const { description, ...rest } = fieldSchema;
    return {
      name,
      in: where,
      required: where === 'path' || required.includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** Names of every test in a description tree (for the check that each one is known above). */
export function testNames(schema: yup.Schema | Description): string[] {
  const d = ('describe' in schema ? schema.describe() : schema) as yup.SchemaDescription & {
    fields?: Record<string, Description>;
    innerType?: Description;
  };
  const own = (d.tests ?? []).map((t: Test) => t.name ?? '(unnamed)');
  const fields = Object.values(d.fields ?? {}).flatMap(testNames);
  const inner = d.innerType ? testNames(d.innerType) : [];
  return [...own, ...fields, ...inner];
}
