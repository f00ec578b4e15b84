import { accountSettingsOperations } from './accounts/account-settings.openapi';
import { accountsOperations, accountsResources, moreAccountsOperations } from './accounts/accounts.openapi';
import { googleOperations } from './accounts/google.openapi';
import { apiKeysOperations, apiKeysResources } from './api-keys/api-keys.openapi';
import { conversationsOperations, conversationsResources } from './conversations/conversations.openapi';
import { devicesOperations, devicesResources, moreDevicesOperations } from './devices/devices.openapi';
import { phoneOperations } from './devices/phone.openapi';
import {
  estimateOperations,
  messagesOperations,
  messagesResources,
  moreMessagesOperations,
  outboxResources,
  statsResources,
} from './messages/messages.openapi';
import { phoneMessagesOperations } from './messages/phone-messages.openapi';
import { mmsOperations, mmsResources } from './mms/mms.openapi';
import type { DocumentParts } from './openapi/document';
import { openapiOperations } from './openapi/openapi.openapi';
import type { Operation } from './openapi/operation';
import type { JsonSchema } from './openapi/yup-to-json-schema';
import { optOutsOperations, optOutsResources } from './opt-outs/opt-outs.openapi';
import { plansOperations, plansResources } from './plans/plans.openapi';
import { templatesOperations, templatesResources } from './templates/templates.openapi';
import { tokensOperations, tokensResources } from './tokens/tokens.openapi';
import { usageOperations, usageResources } from './usage/usage.openapi';
import { webhooksOperations, webhooksResources } from './webhooks/webhooks.openapi';

// The OpenAPI document's parts, each declared beside its routes (`*.openapi.ts`) and gathered here, in
// the composition root, because src/openapi/ (whose helpers they are written with) must not import
// the features. app.ts serves the document of these parts, web/scripts/generate-api.ts types the
// dashboard by it, and test/openapi/ checks them against the app's routes and views.
//
// The lists are placed in the order the document has always had: its paths and tags appear as their
// operations first do, its components as listed. Where the document lists one file's operations among
// another's (an MMS attachment among the messages, a phone's estimate among the devices, the account's
// settings among the sign-in operations), the other file gives its list in two parts (`more…`).

/** Every endpoint of the API; test/openapi/served.test.ts checks it against the app's routers and auth. */
export const operations: Operation[] = [
  ...messagesOperations,
  ...mmsOperations,
  ...moreMessagesOperations,
  ...conversationsOperations,
  ...usageOperations,
  ...optOutsOperations,
  ...templatesOperations,
  ...devicesOperations,
  ...estimateOperations,
  ...moreDevicesOperations,
  ...phoneOperations,
  ...phoneMessagesOperations,
  ...webhooksOperations,
  ...apiKeysOperations,
  ...tokensOperations,
  ...plansOperations,
  ...accountsOperations,
  ...accountSettingsOperations,
  ...moreAccountsOperations,
  ...googleOperations,
  ...openapiOperations,
];

/** The resources the answers are made of (the error bodies are the document's own). */
export const resources: Record<string, JsonSchema> = {
  ...mmsResources,
  ...messagesResources,
  ...optOutsResources,
  ...templatesResources,
  ...outboxResources,
  ...devicesResources,
  ...webhooksResources,
  ...apiKeysResources,
  ...tokensResources,
  ...accountsResources,
  ...plansResources,
  ...statsResources,
  ...usageResources,
  ...conversationsResources,
};

export const openapiParts: DocumentParts = { operations, resources };
