import { Migration } from '@mikro-orm/migrations';

export class Migration20261128000000PairingSelectors extends Migration {
  override async up(): Promise<void> {
    // The first characters of a pairing code name it (their SHA-256, never the characters): a wrong
    // guess that names a live code counts against that code and its account, so wrong guesses are
    // limited per code and per account as well as per address (src/devices/pairing.service.ts).
    // Codes made before this have none, and are matched by their whole hash as before.
    this.addSql('alter table pairing_codes add column selector_hash text null;');
    this.addSql('create index pairing_codes_selector_idx on pairing_codes (selector_hash) where consumed_at is null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists pairing_codes_selector_idx;');
    this.addSql('alter table pairing_codes drop column if exists selector_hash;');
  }
}
