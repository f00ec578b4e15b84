import { Migration } from '@mikro-orm/migrations';

export class Migration20261125200000WebhookQueue extends Migration {
  override async up(): Promise<void> {
    // Deliveries are attempted by their webhook's queue workflow (one per webhook, draining its open
    // deliveries in batches) rather than by one workflow each: a workflow per delivery cost the
    // Temporal server more than the delivery itself. Rows from before keep their own workflow until
    // it ends; those whose workflow never started move to the queue.
    this.addSql('alter table webhook_deliveries add column via_queue boolean not null default false;');
    this.addSql(
      "update webhook_deliveries set via_queue = true where workflow_started_at is null and status in ('pending', 'retrying');",
    );
    // A queue's rows are never marked started (their due time tells the reconciler when one is
    // late), so the index of unstarted rows would hold them all: it keeps only rows from before the
    // queues whose own workflow never started (an api process of the previous version).
    this.addSql('drop index webhook_deliveries_unstarted_idx;');
    this.addSql(
      `create index webhook_deliveries_unstarted_idx on webhook_deliveries (created_at)
         where workflow_started_at is null and not via_queue and status in ('pending', 'retrying');`,
    );
    // With tracing on, the trace that queued the delivery: its attempts continue it.
    this.addSql('alter table webhook_deliveries add column trace_parent text;');
    // A webhook's open deliveries in the order they fall due: a pending one at its creation, a
    // retrying one at its next attempt.
    this.addSql(
      `create index webhook_deliveries_queue_idx on webhook_deliveries
         (webhook_id, (coalesce(next_attempt_at, created_at)), id)
         where via_queue and status in ('pending', 'retrying');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index webhook_deliveries_queue_idx;');
    this.addSql('drop index webhook_deliveries_unstarted_idx;');
    this.addSql(
      'create index webhook_deliveries_unstarted_idx on webhook_deliveries (created_at) where workflow_started_at is null;',
    );
    this.addSql('alter table webhook_deliveries drop column trace_parent;');
    this.addSql('alter table webhook_deliveries drop column via_queue;');
  }
}
