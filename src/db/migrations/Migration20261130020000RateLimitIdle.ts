import { Migration } from '@mikro-orm/migrations';

export class Migration20261130020000RateLimitIdle extends Migration {
  override async up(): Promise<void> {
    // A window is dropped once the database's own clock has not seen it hit for a day: the
    // processes' clocks may disagree, and a window by one process's clock is not a window by another's.
    this.addSql('alter table rate_limit_windows add column last_hit_at timestamptz not null default now();');
    this.addSql('drop index rate_limit_windows_start_idx;');
    this.addSql('create index rate_limit_windows_idle_idx on rate_limit_windows (last_hit_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index rate_limit_windows_idle_idx;');
    this.addSql('alter table rate_limit_windows drop column last_hit_at;');
    this.addSql('create index rate_limit_windows_start_idx on rate_limit_windows (window_start);');
  }
}
