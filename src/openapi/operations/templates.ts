import * as templates from '../../templates/templates.schemas';
import { ref } from '../resources';
import { type Operation, noBody, op, page, read, send, tagged, wrap } from '../operation';

// Saved message texts.
const template = wrap('template', ref('Template'));

export const templatesOperations: Operation[] = [
  ...tagged('Templates', [
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
  ]),
];
