import type * as yup from 'yup';
import type { Scope } from '../http/scopes';
import { object, ref } from './json-parts';
import type { JsonSchema } from './yup-to-json-schema';

// What an operation of the OpenAPI document is, and the helpers each feature's `*.openapi.ts`, beside
// its routes, writes its operations with.

export type OperationAuth = 'none' | 'session' | 'optionalSession' | 'sessionOrKey' | 'device' | { scope: Scope };

export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  tag: string;
  summary: string;
  auth: OperationAuth;
  /** Path parameters other than `{id}` (a UUID unless given). */
  params?: yup.AnyObjectSchema;
  query?: yup.AnyObjectSchema;
  body?: yup.AnyObjectSchema;
  /** Success responses: status → body schema (null: no body). */
  ok: Record<number, JsonSchema | null>;
  /** Error statuses beyond those implied by auth, path id and validation. */
  errors?: number[];
  /** The success body's media type when it is not JSON. */
  contentType?: string;
  /** Other media types the success body comes in, by content negotiation (CSV beside JSON). */
  alsoAs?: Record<string, JsonSchema>;
  /** Extra notes, e.g. the error codes of this operation. */
  description?: string;
  setsCookie?: boolean;
  redirect?: boolean;
  /** Accepts an Idempotency-Key header (src/idempotency/). */
  idempotent?: boolean;
}

type Details = Partial<
  Pick<
    Operation,
    | 'params'
    | 'query'
    | 'body'
    | 'errors'
    | 'description'
    | 'setsCookie'
    | 'redirect'
    | 'contentType'
    | 'alsoAs'
    | 'idempotent'
  >
>;

/** `op('GET /v1/x', auth, summary, ok, details)`; the tag is set by the group the operation is in. */
export const op = (
  route: string,
  auth: OperationAuth,
  summary: string,
  ok: Operation['ok'],
  details: Details = {},
): Omit<Operation, 'tag'> => {
  const [method, path] = route.split(' ');
  return { method: method.toLowerCase() as Operation['method'], path, auth, summary, ok, ...details };
};

export const tagged = (tag: string, ops: Omit<Operation, 'tag'>[]): Operation[] => ops.map((o) => ({ ...o, tag }));

export const wrap = (name: string, schema: JsonSchema) => object({ [name]: schema });
export const list = (name: string) => object({ data: { type: 'array', items: ref(name) } });
export const page = (name: string) => ({
  ...list(name),
  required: ['data'],
  properties: {
    data: { type: 'array', items: ref(name) },
    next_cursor: { type: 'string', description: 'Absent on the last page; pass it back as `cursor`.' },
  },
});
export const uuid: JsonSchema = { type: 'string', format: 'uuid' };
export const text = (description: string): JsonSchema => ({ type: 'string', description });
export const noBody = { 204: null };

export const read = { scope: 'read' } as const;
export const send = { scope: 'send' } as const;
export const devicesScope = { scope: 'devices' } as const;
export const hooks = { scope: 'webhooks' } as const;
