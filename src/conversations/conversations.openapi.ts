import { int, object, ref, str, ts } from '../openapi/json-parts';
import { type Operation, op, page, read, tagged } from '../openapi/operation';
import type { JsonSchema } from '../openapi/yup-to-json-schema';
import { listConversationsQuery } from './conversations.schemas';

// The OpenAPI document's part of conversations.routes.ts, and the resource of conversations.views.ts.
export const conversationsOperations: Operation[] = tagged('Messages', [
  op(
    'GET /v1/conversations',
    read,
    'Conversations: one per number that texted the account',
    { 200: page('Conversation') },
    {
      query: listConversationsQuery,
      description:
        "Every number that texted one of the account's phones, with its latest text either way, ordered by " +
        'that text, newest first. `q` keeps the conversations whose number or any text holds it (not ' +
        'case-sensitive). Encrypted texts are left out. Paginated like the other lists, by the latest text.',
    },
  ),
]);

export const conversationsResources: Record<string, JsonSchema> = {
  Conversation: object({
    contact: { ...str, description: 'The number that texted the account.' },
    last_message: ref('Message'),
    text_count: { ...int, description: 'Texts both ways with the number.' },
    received_count: { ...int, description: 'Texts from the number.' },
    last_received_at: ts,
  }),
};
