import type { Context } from 'koa';
import * as yup from '../lib/yup';
import { notFound, validationFailed, type FieldError } from './errors';

type Location = 'body' | 'query' | 'params';
type Schemas = Partial<Record<Location, yup.AnySchema>>;
type Parsed<S extends Schemas> = { [K in keyof S]: S[K] extends yup.AnySchema ? yup.InferType<S[K]> : never };

/** yup's paths ("to[1]", "") → the interface's field names ("body.to[1]", "body"). */
export function fieldErrors(error: yup.ValidationError, location: Location): FieldError[] {
  const leaves = error.inner.length > 0 ? error.inner : [error];
  const byField = new Map<string, string>();
  for (const leaf of leaves) {
    const field = leaf.path ? `${location}.${leaf.path.replace(/^\["?([^"\]]+)"?\]/, '$1')}` : location;
    // One problem per field is enough to fix it; yup reports every failed rule.
    // yup calls the whole object "this"; the interface calls it body or query.
    if (!byField.has(field)) byField.set(field, leaf.message.replace(/^this\b/, location));
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

/**
 * Parses a request's body, query and path parameters with yup; every problem of every part is
 * reported at once as 422 validation_failed. The result is typed from the schemas (InferType).
 */
export async function validate<S extends Schemas>(ctx: Context, schemas: S): Promise<Parsed<S>> {
  const sources: Record<Location, unknown> = {
    body: ctx.request.body ?? {},
    query: ctx.query,
    params: (ctx as Context & { params?: unknown }).params ?? {},
  };
  const result: Partial<Record<Location, unknown>> = {};
  const errors: FieldError[] = [];
  for (const location of ['params', 'query', 'body'] as Location[]) {
    const schema = schemas[location];
    if (!schema) continue;
    try {
      result[location] = await schema.validate(sources[location], {
        abortEarly: false,
        stripUnknown: true,
        // Query strings and paths are text: a number there is read from its decimal digits.
        context: { query: location !== 'body' } satisfies yup.FieldContext,
      });
    } catch (error) {
      if (!(error instanceof yup.ValidationError)) throw error;
      // A malformed path id names nothing that could exist.
      if (location === 'params') throw notFound();
      errors.push(...fieldErrors(error, location));
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
  return result as Parsed<S>;
}
