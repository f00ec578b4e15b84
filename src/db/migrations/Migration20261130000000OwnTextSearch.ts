import { Migration } from '@mikro-orm/migrations';

export class Migration20261130000000OwnTextSearch extends Migration {
  override async up(): Promise<void> {
    // The trigram index keeps only the texts that are their own (inbound, personalised). A send's
    // message, whose text is its batch's, left nothing in it but its number, and those trigrams were
    // about a fifth of a send's Postgres CPU; each status move of such a message wrote them again. A
    // send's numbers are searched by reading the account's sent texts newest first (a page's worth
    // when they match often), as its conversations are.
    this.addSql('drop index if exists messages_search_idx;');
    this.addSql(
      `create index messages_search_idx on messages using gin
         ((body || ' ' || coalesce(recipient, '') || ' ' || coalesce(sender, '')) gin_trgm_ops)
         where not encrypted and not body_from_batch;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists messages_search_idx;');
    this.addSql(
      `create index messages_search_idx on messages using gin
         (((case when body_from_batch then '' else body end) || ' ' || coalesce(recipient, '') || ' ' || coalesce(sender, ''))
          gin_trgm_ops) where not encrypted;`,
    );
  }
}
