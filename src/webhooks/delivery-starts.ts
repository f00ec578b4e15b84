import type { EntityManager } from '@mikro-orm/postgresql';
import { idempotentStart } from '../../temporal/client';
import type { StartKind } from '../../temporal/starter';
import { deliveryWorkflowId, type WebhookDeliveryInput } from '../../workflows/definitions';
import type { Clock } from '../lib/clock';
import { webhooksRepository } from './webhooks.repository';

/** A committed webhook_deliveries row needs its delivery workflow (`delivery-<deliveryId>`). */
export function deliveryStarts(deps: {
  em: () => EntityManager;
  clock: Clock;
  taskQueue: string;
  retryScheduleMs: readonly number[];
}): StartKind<{ id: string }> {
  return {
    name: 'webhook-deliveries',
    workflowType: 'webhookDeliveryWorkflow',
    async start(temporal, { id }) {
      const input: WebhookDeliveryInput = { deliveryId: id, retryScheduleMs: [...deps.retryScheduleMs] };
      await temporal.workflow.start('webhookDeliveryWorkflow', {
        workflowId: deliveryWorkflowId(id),
        taskQueue: deps.taskQueue,
        args: [input],
        ...idempotentStart,
      });
    },
    markStarted: (ids) => webhooksRepository.markDeliveriesStarted(deps.em(), ids, deps.clock.now()),
    unstarted: (before, limit) => webhooksRepository.unstartedDeliveries(deps.em(), before, limit),
  };
}
