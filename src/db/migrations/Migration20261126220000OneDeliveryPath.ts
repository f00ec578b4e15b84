import { Migration } from '@mikro-orm/migrations';

export class Migration20261126220000OneDeliveryPath extends Migration {
  override async up(): Promise<void> {
    // Every delivery goes through its webhook's queue workflow: the workflow per delivery that came
    // before the queues is gone, and with it what told its rows apart. Its rows still open become the
    // queue's first, where they continue from their attempt count and next attempt time (the
    // reconciler tells their queue once they are due).
    this.addSql(
      "update webhook_deliveries set via_queue = true where not via_queue and status in ('pending', 'retrying');",
    );
    this.addSql('drop index webhook_deliveries_queue_idx;');
    this.addSql('drop index webhook_deliveries_unstarted_idx;');
    this.addSql('alter table webhook_deliveries drop column via_queue;');
    this.addSql('alter table webhook_deliveries drop column workflow_started_at;');
    // A webhook's open deliveries in the order they fall due: a pending one at its creation, a
    // retrying one at its next attempt.
    this.addSql(
      `create index webhook_deliveries_queue_idx on webhook_deliveries
         (webhook_id, (coalesce(next_attempt_at, created_at)), id)
         where status in ('pending', 'retrying');`,
    );
  }

  override async down(): Promise<void> {
    // Every row is the queue's: none is left to a workflow of its own.
    this.addSql('drop index webhook_deliveries_queue_idx;');
    this.addSql('alter table webhook_deliveries add column workflow_started_at timestamptz null;');
    this.addSql('alter table webhook_deliveries add column via_queue boolean not null default false;');
    this.addSql('update webhook_deliveries set via_queue = true;');
    this.addSql(
      `create index webhook_deliveries_unstarted_idx on webhook_deliveries (created_at)
         where workflow_started_at is null and not via_queue and status in ('pending', 'retrying');`,
    );
    this.addSql(
      `create index webhook_deliveries_queue_idx on webhook_deliveries
         (webhook_id, (coalesce(next_attempt_at, created_at)), id)
         where via_queue and status in ('pending', 'retrying');`,
    );
  }
}
