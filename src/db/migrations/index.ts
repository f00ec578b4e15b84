import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261120000000Init } from './Migration20261120000000Init';

// In order of application. `npm run migration:create` writes a new file; add it here.
export const migrations: MigrationObject[] = [
  { name: 'Migration20261120000000Init', class: Migration20261120000000Init },
];
