import { id, object, ref, str, ts } from '../openapi/json-parts';
import { type Operation, noBody, op, page, read, send, tagged, wrap } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import * as templates from './templates.schemas';

// The OpenAPI document's part of templates.routes.ts, and the resource of templates.views.ts.
const template = wrap('template', ref('Template'));

export const templatesOperations: Operation[] = tagged('Templates', [
  op(
    'GET /v1/templates',
    read,
    "List the account's saved message texts, newest first",
    { 200: page('Template') },
    { query: templates.listTemplatesQuery },
  ),
  op(
    'POST /v1/templates',
    send,
    'Save a message text',
    { 201: template },
    {
      body: templates.createTemplateBody,
      errors: [409],
      description: 'Errors: name_taken (409) when another template of the account has the name.',
    },
  ),
  op('GET /v1/templates/{id}', read, 'A saved message text', { 200: template }),
  op(
    'PATCH /v1/templates/{id}',
    send,
    'Rename or rewrite a saved message text',
    { 200: template },
    {
      body: templates.updateTemplateBody,
      errors: [409],
      description: 'Only the fields sent change. Errors: name_taken (409).',
    },
  ),
  op('DELETE /v1/templates/{id}', send, 'Delete a saved message text', noBody),
]);

export const templatesResources: Record<string, JsonSchema> = {
  Template: object(
    {
      id,
      name: { ...str, description: 'Unique within the account.' },
      body: { ...str, description: 'The text, its `{field}` placeholders as written.' },
      fields: {
        type: 'array',
        items: str,
        description: 'The fields its placeholders use, each once, in the order they first appear.',
      },
      created_at: ts,
      updated_at: ts,
    },
    'A saved message text; send it with `variables` to fill its placeholders per recipient.',
  ),
};
