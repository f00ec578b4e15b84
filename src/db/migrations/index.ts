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
import { Migration20261128100000SendingCapacity } from './Migration20261128100000SendingCapacity';

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
  { name: 'Migration20261128100000SendingCapacity', class: Migration20261128100000SendingCapacity },
];
