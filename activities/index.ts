import type { Services } from '../src/services';
import { createDevicesActivities } from './devices.activities';
import { createMessagesActivities } from './messages.activities';
import { createReconcilerActivities } from './reconciler.activities';
import { createWebhookActivities } from './webhooks.activities';

/** Every activity the worker registers, one factory per feature, on the process's built services. */
export function createActivities(services: Services, orm: Parameters<typeof createMessagesActivities>[1]) {
  return {
    ...createReconcilerActivities(services.reconciler),
    ...createDevicesActivities(services.presence, orm),
    ...createWebhookActivities(services.webhookQueue),
    ...createMessagesActivities(services.batchProgress, orm),
  };
}

export type Activities = ReturnType<typeof createActivities>;
