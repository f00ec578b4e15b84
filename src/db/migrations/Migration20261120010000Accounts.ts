import { Migration } from '@mikro-orm/migrations';

export class Migration20261120010000Accounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table plans (
        id text primary key,
        name text not null,
        active boolean not null default true,
        sort_order int not null default 0,
        batch_limit int not null,
        daily_limit int not null,
        monthly_limit int not null,
        device_limit int not null,
        webhook_limit int not null,
        monthly_price_cents int not null,
        yearly_price_cents int not null
      );`);
    this.addSql(`
      insert into plans (id, name, sort_order, daily_limit, monthly_limit, batch_limit, device_limit, webhook_limit, monthly_price_cents, yearly_price_cents) values
        ('free', 'Free', 1, 50, 500, 10, 1, 2, 0, 0),
        ('pro', 'Pro', 2, 1000, 20000, 500, 5, 10, 1500, 15000),
        ('business', 'Business', 3, 10000, 300000, 5000, 50, 50, 9900, 99000);`);

    this.addSql(`
      create table users (
        id uuid primary key,
        email text not null,
        name text null,
        avatar_url text null,
        role text not null default 'owner',
        password_hash text null,
        google_sub text null,
        plan_id text not null references plans (id),
        email_verified_at timestamptz null,
        last_login_at timestamptz null,
        deletion_requested_at timestamptz null,
        onboarding jsonb not null default '{}',
        created_at timestamptz not null,
        updated_at timestamptz not null
      );`);
    // Emails are compared case-insensitively; the stored spelling is the lower-cased one.
    this.addSql('create unique index users_email_unique on users (lower(email));');
    this.addSql('create unique index users_google_sub_unique on users (google_sub) where google_sub is not null;');

    this.addSql(`
      create table sessions (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        token_hash text not null unique,
        ip text null,
        user_agent text null,
        created_at timestamptz not null,
        last_seen_at timestamptz not null,
        expires_at timestamptz not null,
        absolute_expires_at timestamptz not null,
        revoked_at timestamptz null
      );`);
    this.addSql('create index sessions_user_idx on sessions (user_id, last_seen_at desc);');

    this.addSql(`
      create table email_codes (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        purpose text not null check (purpose in ('verify', 'reset')),
        code_hash text not null,
        attempts int not null default 0,
        expires_at timestamptz not null,
        consumed_at timestamptz null,
        created_at timestamptz not null
      );`);
    this.addSql('create index email_codes_user_idx on email_codes (user_id, purpose, created_at desc);');

    this.addSql(`
      create table api_keys (
        id uuid primary key,
        user_id uuid not null references users (id) on delete cascade,
        name text not null,
        prefix text not null,
        key_hash text not null unique,
        scopes text[] not null,
        use_count bigint not null default 0,
        last_used_at timestamptz null,
        expires_at timestamptz null,
        revoked_at timestamptz null,
        created_at timestamptz not null
      );`);
    this.addSql('create index api_keys_user_idx on api_keys (user_id, created_at desc);');

    // Messages sent and received per account per UTC day; a month is the sum of its days.
    this.addSql(`
      create table usage_days (
        user_id uuid not null references users (id) on delete cascade,
        day date not null,
        sent int not null default 0,
        received int not null default 0,
        primary key (user_id, day)
      );`);

    // Fixed-window counters shared by every api process (abuse limits).
    this.addSql(`
      create table rate_limit_windows (
        key text not null,
        window_start timestamptz not null,
        hits int not null default 0,
        primary key (key, window_start)
      );`);
    this.addSql('create index rate_limit_windows_start_idx on rate_limit_windows (window_start);');

    // State, nonce and PKCE verifier of a Google sign-in between /start and /callback.
    this.addSql(`
      create table oauth_states (
        state_hash text primary key,
        nonce text not null,
        code_verifier text not null,
        created_at timestamptz not null,
        expires_at timestamptz not null
      );`);
  }

  override async down(): Promise<void> {
    for (const table of [
      'oauth_states',
      'rate_limit_windows',
      'usage_days',
      'api_keys',
      'email_codes',
      'sessions',
      'users',
      'plans',
    ]) {
      this.addSql(`drop table if exists ${table};`);
    }
  }
}
