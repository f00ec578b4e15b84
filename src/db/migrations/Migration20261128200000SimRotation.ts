import { Migration } from '@mikro-orm/migrations';

const NOTIFIED_BEFORE = [
  'enabled',
  'receive_enabled',
  'heartbeat_interval_minutes',
  'send_delay_seconds',
  'preferred_sim_subscription_id',
  'unpaired_at',
  'token_hash',
  'send_delay_jitter_seconds',
  'max_sends_per_minute',
  'max_sends_per_hour',
  'send_window',
  'sending_capacity',
  'sending_capacity_minutes',
  'paused_until',
];
export const NOTIFIED = [...NOTIFIED_BEFORE, 'max_sends_per_day', 'sim_selection', 'processing_order'];

/** The phone's settings trigger over `columns`; `named`, it fires only on updates that set one of them. */
export const trigger = (columns: string[], named = false) => `
  create trigger devices_notify_device after update${named ? ` of ${columns.join(', ')}` : ''} on devices
    for each row when ((${columns.map((c) => `old.${c}`).join(', ')})
                       is distinct from
                       (${columns.map((c) => `new.${c}`).join(', ')}))
    execute function notify_device_of_itself();`;

/**
 * Issue #38's SIM rotation, daily limit and newest-first order, per phone: how a message naming no
 * SIM gets one when it is handed out (os_default: none, the phone's default SIM; round_robin: the
 * next of the phone's SIMs, counted by sim_rotation; random), a daily pace beside the per-minute and
 * per-hour ones, and whether the outbox hands out oldest (fifo) or newest (lifo) first.
 */
export class Migration20261128200000SimRotation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table devices
        add column max_sends_per_day int null check (max_sends_per_day > 0),
        add column sim_selection text not null default 'os_default'
          check (sim_selection in ('os_default', 'round_robin', 'random')),
        add column sim_rotation bigint not null default 0,
        add column processing_order text not null default 'fifo' check (processing_order in ('fifo', 'lifo'));`);
    // The phone is told when a setting it applies changes, and its channel looks again when its pace does.
    this.addSql('drop trigger if exists devices_notify_device on devices;');
    this.addSql(trigger(NOTIFIED));
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists devices_notify_device on devices;');
    this.addSql(trigger(NOTIFIED_BEFORE));
    this.addSql(
      'alter table devices drop column max_sends_per_day, drop column sim_selection, drop column sim_rotation, drop column processing_order;',
    );
  }
}
