import { Migration } from '@mikro-orm/migrations';

export class Migration20261128100000PairingRefusals extends Migration {
  override async up(): Promise<void> {
    // A refused pairing attempt whose code names one of an account's codes (src/devices/pairing.service.ts):
    // the dashboard's pairing card tells the account that a code was tried and why it was refused.
    // Nothing of the typed code is kept, only which of the account's codes it named. One row per code
    // and reason, counting its attempts: the SMSGate app retries a refused registration in the
    // background, and guesses at a code must not grow the table without bound.
    this.addSql(`
      create table pairing_refusals (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        pairing_code_id uuid not null references pairing_codes (id) on delete cascade,
        reason text not null check (reason in ('wrong', 'used', 'expired', 'rate_limited', 'device_limit')),
        attempts integer not null default 1,
        created_at timestamptz not null,
        last_attempt_at timestamptz not null
      );`);
    this.addSql('create unique index pairing_refusals_code_reason on pairing_refusals (pairing_code_id, reason);');
    this.addSql('create index pairing_refusals_user_idx on pairing_refusals (user_id, created_at desc, id desc);');
    // A used or expired code is found by its whole hash too (it was live-only before).
    this.addSql('create index pairing_codes_hash_idx on pairing_codes (code_hash);');
    this.addSql('drop index if exists pairing_codes_code_idx;');
  }

  override async down(): Promise<void> {
    this.addSql('create index pairing_codes_code_idx on pairing_codes (code_hash) where consumed_at is null;');
    this.addSql('drop index if exists pairing_codes_hash_idx;');
    this.addSql('drop table if exists pairing_refusals;');
  }
}
