import { Migration } from '@mikro-orm/migrations';

export class Migration20261129010000EncryptedBodies extends Migration {
  override async up(): Promise<void> {
    // An encrypted send's body and recipients are ciphertext in the SMSGate app's format: only the
    // owner's phone can read them (docs/sending.md#encrypted-sends).
    this.addSql('alter table batches add column encrypted boolean not null default false;');
    this.addSql('alter table messages add column encrypted boolean not null default false;');
    // q= searches readable text only: ciphertext is left out of the trigram index, and the search
    // (messages.repository list) says `not encrypted` so this index still serves it.
    this.addSql('drop index if exists messages_search_idx;');
    this.addSql(
      `create index messages_search_idx on messages using gin
         ((body || ' ' || coalesce(recipient, '') || ' ' || coalesce(sender, '')) gin_trgm_ops) where not encrypted;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists messages_search_idx;');
    this.addSql(
      `create index messages_search_idx on messages using gin
         ((body || ' ' || coalesce(recipient, '') || ' ' || coalesce(sender, '')) gin_trgm_ops);`,
    );
    this.addSql('alter table messages drop column encrypted;');
    this.addSql('alter table batches drop column encrypted;');
  }
}
