import * as yup from 'yup';

// Shared yup fields: one definition of what a uuid, an email or a page size is.

export const uuid = () => yup.string().uuid('${path} must be a UUID');

export const email = () =>
  yup
    .string()
    .trim()
    .max(254)
    .matches(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, '${path} must be an email address');

export const timestamp = () =>
  yup
    .date()
    .typeError('${path} must be an RFC 3339 timestamp')
    .transform((value, original) =>
      typeof original === 'string' && !/^\d{4}-\d{2}-\d{2}T/.test(original) ? new Date(NaN) : value,
    );

export const booleanQuery = () =>
  yup
    .boolean()
    .transform((value, original) =>
      original === 'true' || original === '1' ? true : original === 'false' || original === '0' ? false : value,
    )
    .typeError('${path} must be true or false');

export const pathId = () => yup.object({ id: uuid().required() });
