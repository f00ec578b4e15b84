import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261120000000Init } from './Migration20261120000000Init';
import { Migration20261120010000Accounts } from './Migration20261120010000Accounts';
import { Migration20261120020000Events } from './Migration20261120020000Events';

// In order of application. `npm run migration:create` writes a new file; add it here.
export const migrations: MigrationObject[] = [
  { name: 'Migration20261120000000Init', class: Migration20261120000000Init },
  { name: 'Migration20261120010000Accounts', class: Migration20261120010000Accounts },
  { name: 'Migration20261120020000Events', class: Migration20261120020000Events },
];
