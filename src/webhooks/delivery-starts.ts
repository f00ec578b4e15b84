import type { EntityManager } from '@mikro-orm/postgresql';
import { idempotentStart } from '../../temporal/client';
import type { StartKind } from '../../temporal/starter';
import { deliveryWorkflowId, type WebhookDeliveryInput } from '../../workflows/definitions';
import { deliverySearchAttributes } from '../../workflows/search-attributes';
import type { Clock } from '../lib/clock';
import { webhooksRepository } from './webhooks.repository';

export interface DeliveryStart {
  id: string;
  accountId: string;
  webhookId: string;
}

/** A committed webhook_deliveries row needs its delivery workflow (`delivery-<deliveryId>`). */
export function deliveryStarts(deps: {
  em: () => EntityManager;
  clock: Clock;
  taskQueue: string;
  retryScheduleMs: readonly number[];
}): StartKind<DeliveryStart> {
  return {
    name: 'webhook-deliveries',
    workflowType: 'webhookDeliveryWorkflow',
    async start(temporal, { id }, options) {
      const input: WebhookDeliveryInput = { deliveryId: id, retryScheduleMs: [...deps.retryScheduleMs] };
      await temporal.workflow.start('webhookDeliveryWorkflow', {
        workflowId: deliveryWorkflowId(id),
        taskQueue: deps.taskQueue,
        args: [input],
        ...idempotentStart,
        ...options,
      });
    },
    searchAttributes: deliverySearchAttributes,
    markStarted: (ids) => webhooksRepository.markDeliveriesStarted(deps.em(), ids, deps.clock.now()),
    unstarted: async (before, limit) =>
      (await webhooksRepository.unstartedDeliveries(deps.em(), before, limit)).map((row) => ({
        id: row.id,
        accountId: row.user_id,
        webhookId: row.webhook_id,
      })),
  };
}
