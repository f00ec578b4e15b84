import * as yup from '../lib/yup';
import { pageFields } from '../http/pagination';
import { text } from '../lib/fields';

export const listOptOutsQuery = yup.object({
  ...pageFields(),
  // Only this number (normalised as recipients are): is it on the list?
  phone_number: text(64).optional(),
});
export type ListOptOutsQuery = yup.InferType<typeof listOptOutsQuery>;

export const addOptOutBody = yup.object({
  phone_number: text(64).required(),
});
export type AddOptOutBody = yup.InferType<typeof addOptOutBody>;

/** DELETE /v1/opt-outs/{phone_number}: the number as a path segment ("+" may be sent as %2B). */
export const phoneNumberParams = yup.object({
  phone_number: text(64).required(),
});
