import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { idempotentStart } from '../../temporal/client';
import type { webhookDeliveryWorkflow } from '../../workflows';
import { deliveryWorkflowId } from '../../workflows/definitions';
import type { Config } from '../config';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import type { Sweep } from '../reconciler/reconciler.service';

export interface DeliveryStarterDeps {
  temporal: Client;
  config: Config;
  logger: Logger;
  clock: Clock;
  /** How long a delivery may wait for its normal start before the reconciler starts it. */
  graceMs?: number;
}

const START_DEADLINE_MS = 5000;
const SWEEP_BATCH = 500;
const PARALLEL_STARTS = 20;

/**
 * Starts delivery workflows (id `delivery-<deliveryId>`) and records that they were started
 * (`workflow_started_at`), so the reconciler knows which ones a crash left behind.
 */
export function createDeliveryStarter(deps: DeliveryStarterDeps) {
  const graceMs = deps.graceMs ?? 30_000;

  async function startOne(deliveryId: string): Promise<boolean> {
    try {
      // Bounded: Temporal being unreachable must not hold up the request that queued the delivery.
      await deps.temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        deps.temporal.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
          workflowId: deliveryWorkflowId(deliveryId),
          taskQueue: deps.config.temporal.taskQueue,
          args: [{ deliveryId, retryScheduleMs: [...deps.config.webhooks.retryScheduleMs] }],
          ...idempotentStart,
        }),
      );
      return true;
    } catch (error) {
      // Already ran to its end: started is what we wanted to know.
      if (error instanceof WorkflowExecutionAlreadyStartedError) return true;
      deps.logger.warn({ err: error, delivery_id: deliveryId }, 'could not start a delivery workflow');
      return false;
    }
  }

  /** Starts the workflows of these deliveries; returns how many are now known to run. */
  async function start(em: EntityManager, deliveryIds: string[]): Promise<number> {
    const started: string[] = [];
    for (let i = 0; i < deliveryIds.length; i += PARALLEL_STARTS) {
      const chunk = deliveryIds.slice(i, i + PARALLEL_STARTS);
      const results = await Promise.all(chunk.map(startOne));
      chunk.forEach((id, index) => results[index] && started.push(id));
    }
    if (started.length > 0) {
      await em.execute(
        'update webhook_deliveries set workflow_started_at = ? where id = any(array[?]::uuid[]) and workflow_started_at is null',
        [deps.clock.now(), started],
      );
    }
    return started.length;
  }

  return {
    start,

    /** After the events' transaction committed: start the deliveries it queued. */
    async startForEvents(em: EntityManager, eventIds: string[]): Promise<number> {
      const rows = await em.execute<{ id: string }[]>(
        'select id from webhook_deliveries where event_id = any(array[?]::uuid[]) and workflow_started_at is null',
        [eventIds],
      );
      return start(
        em,
        rows.map((row) => row.id),
      );
    },

    /** The reconciler's sweep: open deliveries still unstarted after the grace period. */
    sweep(): Sweep {
      return {
        name: 'webhook-deliveries',
        run: async (em) => {
          const rows = await em.execute<{ id: string }[]>(
            `select id from webhook_deliveries
              where workflow_started_at is null and created_at < ? and status in ('pending', 'retrying')
              order by created_at limit ?`,
            [new Date(deps.clock.now().getTime() - graceMs), SWEEP_BATCH],
          );
          return start(
            em,
            rows.map((row) => row.id),
          );
        },
      };
    },
  };
}

export type DeliveryStarter = ReturnType<typeof createDeliveryStarter>;
