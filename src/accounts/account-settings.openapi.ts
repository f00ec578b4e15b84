import { object } from '../openapi/json-parts';
import { type Operation, op, tagged } from '../openapi/operation';
import * as accounts from './accounts.schemas';

// The OpenAPI document's part of account-settings.routes.ts.
export const accountSettingsOperations: Operation[] = tagged('Accounts', [
  op(
    'GET /v1/account/settings',
    { scope: 'devices' },
    'Account-wide settings',
    { 200: object({ settings: object({ failover: { type: 'boolean' } }) }) },
    {
      description:
        '`failover` (default false): when a phone goes offline, its messages not yet handed out move to ' +
        'another online, enabled phone of the account (the default first), with new deadlines and ' +
        'estimates; each moved message gets a `message.rerouted` event and its `device_id` says where it went.',
    },
  ),
  op(
    'PATCH /v1/account/settings',
    { scope: 'devices' },
    'Change account-wide settings; only sent fields change',
    { 200: object({ settings: object({ failover: { type: 'boolean' } }) }) },
    { body: accounts.accountSettingsBody },
  ),
]);
