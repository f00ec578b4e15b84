import * as yup from 'yup';

// yup as every request schema uses it: the same module, except that its scalars take only values of
// their own JSON type. yup's own coercion turns `false` into "false", "0x10" into 16 and `0` into a
// date, and calls a client's object's `toString` (`{"toString": 1}` throws inside yup: a 500). Here a
// string is a JSON string, a boolean true or false, a number a JSON number; query strings, where every
// value is text, give numbers as plain decimals (validate() says which one it reads: `context.query`).
// Schema modules import this one instead of 'yup' (an ESLint rule says so).

export * from 'yup';

/** validate() reads a query string or path with this in the context. */
export interface FieldContext {
  query?: boolean;
}

const DECIMAL = /^-?\d{1,16}(\.\d{1,16})?$/;

// yup's coercing transform is an arrow function that reads the spec of the instance that created it,
// so `coerce` is switched off on that fresh instance (clone({ coerce: false }) would miss it).
const strict = <S extends yup.Schema>(schema: S): S => {
  schema.spec.coerce = false;
  return schema;
};

export const string = (): yup.StringSchema<string | undefined> => strict(yup.string());

export const boolean = (): yup.BooleanSchema<boolean | undefined> => strict(yup.boolean());

export const date = (): yup.DateSchema<Date | undefined> => strict(yup.date());

export const number = (): yup.NumberSchema<number | undefined> =>
  strict(yup.number()).transform((value: unknown, _original, _schema, options) =>
    (options.context as FieldContext | undefined)?.query && typeof value === 'string' && DECIMAL.test(value)
      ? Number(value)
      : value,
  );
