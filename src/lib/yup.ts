import * as yup from 'yup';

// yup as every request schema uses it: the same module, except that its scalars take only values of
// their own JSON type. yup's own coercion turns `false` into "false", "0x10" into 16 and `0` into a
// date, and calls a client's object's `toString` (`{"toString": 1}` throws inside yup: a 500). Here a
// string is a JSON string, a boolean true or false, a number a JSON number; query strings, where every
// value is text, give numbers as plain decimals (validate() says which one it reads: `context.query`).
// Schema modules import this one instead of 'yup' (an ESLint rule says so).

export * from 'yup';

const TYPE_NAMES: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  date: 'an RFC 3339 timestamp',
};

// yup's own type message quotes the value it got (and walks it whole to print it); ours names the
// field and the type only. Schemas are built after this runs: every schema module imports this one.
yup.setLocale({
  mixed: {
    notType: ({ path, type }: { path: string; type: string }) => `${path} must be ${TYPE_NAMES[type] ?? 'valid'}`,
  },
});

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

/**
 * yup's string with its case and white-space transforms guarded too: they call the value's own
 * `trim` or `toLowerCase`, which a client's object may not have. The type check refuses it after.
 */
class StrictStringSchema extends yup.StringSchema<string | undefined> {
  constructor() {
    super();
    this.spec.coerce = false;
  }
  override trim(message?: yup.Message): this {
    return this.transform((value: unknown) => (typeof value === 'string' ? value.trim() : value)).test({
      message: message ?? '${path} must be a trimmed string',
      name: 'trim',
      test: (value) => value == null || value === value.trim(),
    });
  }
  override lowercase(message?: yup.Message): this {
    return this.sameCase((text) => text.toLowerCase(), message ?? '${path} must be a lowercase string');
  }
  override uppercase(message?: yup.Message): this {
    return this.sameCase((text) => text.toUpperCase(), message ?? '${path} must be a upper case string');
  }
  private sameCase(change: (text: string) => string, message: yup.Message): this {
    return this.transform((value: unknown) => (typeof value === 'string' ? change(value) : value)).test({
      message,
      name: 'string_case',
      exclusive: true,
      test: (value) => value == null || value === change(value),
    });
  }
}

export const string = (): yup.StringSchema<string | undefined> => new StrictStringSchema();

export const boolean = (): yup.BooleanSchema<boolean | undefined> => strict(yup.boolean());

export const date = (): yup.DateSchema<Date | undefined> => strict(yup.date());

export const number = (): yup.NumberSchema<number | undefined> =>
  strict(yup.number()).transform((value: unknown, _original, _schema, options) =>
    (options.context as FieldContext | undefined)?.query && typeof value === 'string' && DECIMAL.test(value)
      ? Number(value)
      : value,
  );
