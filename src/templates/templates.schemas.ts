import * as yup from '../lib/yup';
import { pageFields } from '../http/pagination';
import { trimmedText } from '../lib/fields';
import { BODY_MAX } from '../messages/messages.schemas';

export const NAME_MAX = 100;

const name = () => trimmedText(NAME_MAX).min(1, '${path} must not be empty');
// A template is a send's body before its fields are filled: as long as a body may be.
const body = () => trimmedText(BODY_MAX).min(1, '${path} must not be empty');

export const listTemplatesQuery = yup.object({ ...pageFields() });
export type ListTemplatesQuery = yup.InferType<typeof listTemplatesQuery>;

export const createTemplateBody = yup.object({
  name: name().required(),
  body: body().required(),
});
export type CreateTemplateBody = yup.InferType<typeof createTemplateBody>;

export const updateTemplateBody = yup
  .object({
    name: name(),
    body: body(),
  })
  .test('some_field', 'Give name or body (or both)', (value) => value.name !== undefined || value.body !== undefined);
export type UpdateTemplateBody = yup.InferType<typeof updateTemplateBody>;
