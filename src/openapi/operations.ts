import { accountsOperations } from './operations/accounts';
import { devicesOperations } from './operations/devices';
import { messagesOperations } from './operations/messages';
import { templatesOperations } from './operations/templates';
import { webhooksOperations } from './operations/webhooks';
import type { Operation } from './operation';

export type { Operation, OperationAuth } from './operation';

// Every endpoint of the API, with the same schemas its route validates with and the auth its
// route declares. test/openapi/served.test.ts checks this list against the app's routers and their auth.
export const operations: Operation[] = [
  ...messagesOperations,
  ...templatesOperations,
  ...devicesOperations,
  ...webhooksOperations,
  ...accountsOperations,
];
