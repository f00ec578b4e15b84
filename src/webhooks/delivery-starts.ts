import type { EntityManager } from '@mikro-orm/postgresql';
import type { StartKind } from '../../temporal/starter';
import { deliveriesQueuedSignal, webhookQueueWorkflowId, type WebhookQueueInput } from '../../workflows/definitions';
import { queueSearchAttributes } from '../../workflows/search-attributes';
import { webhooksRepository } from './webhooks.repository';

export interface DeliveryStart {
  id: string;
  userId: string;
  webhookId: string;
}

/** Signals from one api process to one webhook's queue: at most one per this many milliseconds under load. */
const SIGNAL_PAUSE_MS = 500;

/**
 * A committed webhook_deliveries row needs its webhook's queue workflow (`webhook-<webhookId>`) to
 * know: signal-with-start, so a queue that ended while idle starts again and a running one makes
 * another pass. The deliveries of one webhook committed together share one signal.
 */
export function deliveryStarts(deps: { em: () => EntityManager; taskQueue: string }): StartKind<DeliveryStart> {
  return {
    name: 'webhook-deliveries',
    workflowType: 'webhookQueueWorkflow',
    async start(temporal, { webhookId }, options) {
      const input: WebhookQueueInput = { webhookId };
      await temporal.workflow.signalWithStart('webhookQueueWorkflow', {
        workflowId: webhookQueueWorkflowId(webhookId),
        taskQueue: deps.taskQueue,
        args: [input],
        signal: deliveriesQueuedSignal,
        signalArgs: [],
        typedSearchAttributes: options.typedSearchAttributes,
      });
    },
    searchAttributes: queueSearchAttributes,
    groupKey: (item) => item.webhookId,
    pauseMs: SIGNAL_PAUSE_MS,
    // Nothing to record: a delivery's due time is its record, and one still open past it is told
    // again by the reconciler (a write per delivery here would cost more than the signal).
    markStarted: async () => {},
    unstarted: async (before, limit) =>
      (await webhooksRepository.lateDeliveries(deps.em(), before, limit)).map((row) => ({
        id: row.id,
        userId: row.userId,
        webhookId: row.webhookId,
      })),
  };
}
