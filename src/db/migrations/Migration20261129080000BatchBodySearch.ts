import { Migration } from '@mikro-orm/migrations';

export class Migration20261129080000BatchBodySearch extends Migration {
  override async up(): Promise<void> {
    // A send's text is searched once, in its batch, not again in each of its messages: the body's
    // trigrams were most of what a message's insert and each of its status moves cost Postgres (every
    // move writes a new row version into every index). A message whose text is its own (inbound, a
    // personalised send, rows from before this column) keeps its body in the messages index.
    this.addSql('alter table messages add column body_from_batch boolean not null default false;');
    this.addSql('drop index if exists messages_search_idx;');
    this.addSql(
      `create index messages_search_idx on messages using gin
         (((case when body_from_batch then '' else body end) || ' ' || coalesce(recipient, '') || ' ' || coalesce(sender, ''))
          gin_trgm_ops) where not encrypted;`,
    );
    this.addSql('create index batches_search_idx on batches using gin (body gin_trgm_ops) where not encrypted;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists batches_search_idx;');
    this.addSql('drop index if exists messages_search_idx;');
    this.addSql(
      `create index messages_search_idx on messages using gin
         ((body || ' ' || coalesce(recipient, '') || ' ' || coalesce(sender, '')) gin_trgm_ops) where not encrypted;`,
    );
    this.addSql('alter table messages drop column body_from_batch;');
  }
}
