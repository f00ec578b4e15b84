import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261120000000Init } from './Migration20261120000000Init';
import { Migration20261120010000Accounts } from './Migration20261120010000Accounts';
import { Migration20261120020000Events } from './Migration20261120020000Events';
import { Migration20261120030000Devices } from './Migration20261120030000Devices';
import { Migration20261120040000Webhooks } from './Migration20261120040000Webhooks';
import { Migration20261120050000Messages } from './Migration20261120050000Messages';
import { Migration20261123000000AcceptPath } from './Migration20261123000000AcceptPath';
import { Migration20261123020000SmsGate } from './Migration20261123020000SmsGate';
import { Migration20261123030000PhoneChannel } from './Migration20261123030000PhoneChannel';
import { Migration20261124100000CancelSend } from './Migration20261124100000CancelSend';
import { Migration20261124110000OptOuts } from './Migration20261124110000OptOuts';
import { Migration20261124120000IdempotencyKeys } from './Migration20261124120000IdempotencyKeys';
import { Migration20261124200000Pacing } from './Migration20261124200000Pacing';
import { Migration20261124300000Failover } from './Migration20261124300000Failover';
import { Migration20261125100000CredentialChanges } from './Migration20261125100000CredentialChanges';
import { Migration20261125200000WebhookQueue } from './Migration20261125200000WebhookQueue';
import { Migration20261126200000SmsGateIntegrators } from './Migration20261126200000SmsGateIntegrators';
import { Migration20261126220000OneDeliveryPath } from './Migration20261126220000OneDeliveryPath';
import { Migration20261127000000LeasedIndex } from './Migration20261127000000LeasedIndex';
import { Migration20261128000000PairingSelectors } from './Migration20261128000000PairingSelectors';
import { Migration20261128100000PairingRefusals } from './Migration20261128100000PairingRefusals';
import { Migration20261128100000SendingCapacity } from './Migration20261128100000SendingCapacity';
import { Migration20261128130000AccessTokens } from './Migration20261128130000AccessTokens';
import { Migration20261128200000PhoneWebhooks } from './Migration20261128200000PhoneWebhooks';
import { Migration20261128200000SimRotation } from './Migration20261128200000SimRotation';
import { Migration20261128210000InboxIndex } from './Migration20261128210000InboxIndex';
import { Migration20261129010000EncryptedBodies } from './Migration20261129010000EncryptedBodies';
import { Migration20261129020000DataSms } from './Migration20261129020000DataSms';
import { Migration20261129030000MmsAttachments } from './Migration20261129030000MmsAttachments';
import { Migration20261129040000WithdrawnIndex } from './Migration20261129040000WithdrawnIndex';
import { Migration20261129050000Redeliveries } from './Migration20261129050000Redeliveries';
import { Migration20261129070000MessageTemplates } from './Migration20261129070000MessageTemplates';
import { Migration20261129070100BatchRetries } from './Migration20261129070100BatchRetries';
import { Migration20261129080000BatchBodySearch } from './Migration20261129080000BatchBodySearch';
import { Migration20261129090000MessageParents } from './Migration20261129090000MessageParents';
import { Migration20261129100000MessageParentsOnce } from './Migration20261129100000MessageParentsOnce';
import { Migration20261130000000OwnTextSearch } from './Migration20261130000000OwnTextSearch';
import { Migration20261130010000ParentProbes } from './Migration20261130010000ParentProbes';
import { Migration20261130020000RateLimitIdle } from './Migration20261130020000RateLimitIdle';
import { Migration20261130030000SettingsTriggerColumns } from './Migration20261130030000SettingsTriggerColumns';

// In order of application. `npm run migration:create` writes a new file; add it here.
export const migrations: MigrationObject[] = [
  { name: 'Migration20261120000000Init', class: Migration20261120000000Init },
  { name: 'Migration20261120010000Accounts', class: Migration20261120010000Accounts },
  { name: 'Migration20261120020000Events', class: Migration20261120020000Events },
  { name: 'Migration20261120030000Devices', class: Migration20261120030000Devices },
  { name: 'Migration20261120040000Webhooks', class: Migration20261120040000Webhooks },
  { name: 'Migration20261120050000Messages', class: Migration20261120050000Messages },
  { name: 'Migration20261123000000AcceptPath', class: Migration20261123000000AcceptPath },
  { name: 'Migration20261123020000SmsGate', class: Migration20261123020000SmsGate },
  { name: 'Migration20261123030000PhoneChannel', class: Migration20261123030000PhoneChannel },
  { name: 'Migration20261124100000CancelSend', class: Migration20261124100000CancelSend },
  { name: 'Migration20261124110000OptOuts', class: Migration20261124110000OptOuts },
  { name: 'Migration20261124120000IdempotencyKeys', class: Migration20261124120000IdempotencyKeys },
  { name: 'Migration20261124200000Pacing', class: Migration20261124200000Pacing },
  { name: 'Migration20261124300000Failover', class: Migration20261124300000Failover },
  { name: 'Migration20261125100000CredentialChanges', class: Migration20261125100000CredentialChanges },
  { name: 'Migration20261125200000WebhookQueue', class: Migration20261125200000WebhookQueue },
  { name: 'Migration20261126200000SmsGateIntegrators', class: Migration20261126200000SmsGateIntegrators },
  { name: 'Migration20261126220000OneDeliveryPath', class: Migration20261126220000OneDeliveryPath },
  { name: 'Migration20261127000000LeasedIndex', class: Migration20261127000000LeasedIndex },
  { name: 'Migration20261128000000PairingSelectors', class: Migration20261128000000PairingSelectors },
  { name: 'Migration20261128100000PairingRefusals', class: Migration20261128100000PairingRefusals },
  { name: 'Migration20261128100000SendingCapacity', class: Migration20261128100000SendingCapacity },
  { name: 'Migration20261128130000AccessTokens', class: Migration20261128130000AccessTokens },
  { name: 'Migration20261128200000PhoneWebhooks', class: Migration20261128200000PhoneWebhooks },
  { name: 'Migration20261128200000SimRotation', class: Migration20261128200000SimRotation },
  { name: 'Migration20261128210000InboxIndex', class: Migration20261128210000InboxIndex },
  { name: 'Migration20261129010000EncryptedBodies', class: Migration20261129010000EncryptedBodies },
  { name: 'Migration20261129020000DataSms', class: Migration20261129020000DataSms },
  { name: 'Migration20261129030000MmsAttachments', class: Migration20261129030000MmsAttachments },
  { name: 'Migration20261129040000WithdrawnIndex', class: Migration20261129040000WithdrawnIndex },
  { name: 'Migration20261129050000Redeliveries', class: Migration20261129050000Redeliveries },
  { name: 'Migration20261129070000MessageTemplates', class: Migration20261129070000MessageTemplates },
  { name: 'Migration20261129070100BatchRetries', class: Migration20261129070100BatchRetries },
  { name: 'Migration20261129080000BatchBodySearch', class: Migration20261129080000BatchBodySearch },
  { name: 'Migration20261129090000MessageParents', class: Migration20261129090000MessageParents },
  { name: 'Migration20261129100000MessageParentsOnce', class: Migration20261129100000MessageParentsOnce },
  { name: 'Migration20261130000000OwnTextSearch', class: Migration20261130000000OwnTextSearch },
  { name: 'Migration20261130010000ParentProbes', class: Migration20261130010000ParentProbes },
  { name: 'Migration20261130020000RateLimitIdle', class: Migration20261130020000RateLimitIdle },
  {
    name: 'Migration20261130030000SettingsTriggerColumns',
    class: Migration20261130030000SettingsTriggerColumns,
  },
];
