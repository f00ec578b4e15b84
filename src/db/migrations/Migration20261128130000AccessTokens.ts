import { Migration } from '@mikro-orm/migrations';

export class Migration20261128130000AccessTokens extends Migration {
  override async up(): Promise<void> {
    // Short-lived access tokens (src/tokens/): minted by an API key (within its scopes) or a dashboard
    // session, used wherever an API key is. Only the SHA-256 of the secret is kept. A token minted by a
    // key goes with it: deleting the key deletes its tokens (the cascade), revoking or expiring it
    // refuses them (the lookup joins the key). Every request looks its token up: nothing caches one.
    // A token minted on SMSGate's API also has a refresh secret (its SHA-256 too), used once
    // (refreshed_at) for the next token, until refresh_expires_at.
    this.addSql(`
      create table access_tokens (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        api_key_id uuid null references api_keys (id) on delete cascade,
        prefix text not null,
        token_hash text not null unique,
        scopes text[] not null,
        expires_at timestamptz not null,
        revoked_at timestamptz null,
        refresh_hash text null unique,
        refresh_expires_at timestamptz null,
        refreshed_at timestamptz null,
        created_at timestamptz not null
      );`);
    this.addSql('create index access_tokens_user_idx on access_tokens (user_id, created_at desc, id desc);');
    this.addSql('create index access_tokens_api_key_idx on access_tokens (api_key_id);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists access_tokens;');
  }
}
