import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from '../src/config';
import type { Logger } from '../src/lib/logger';
import { createReconcilerService, type Sweep } from '../src/reconciler/reconciler.service';
import { createReconcilerActivities } from './reconciler.activities';
import { buildServices, type Services } from '../src/services';
import { systemClock } from '../src/lib/clock';
import { createDevicesActivities } from './devices.activities';
import type { Clock } from '../src/lib/clock';
import { createAttemptsService } from '../src/webhooks/attempts.service';
import { createWebhookActivities } from './webhooks.activities';
import { createMessagesActivities } from './messages.activities';

export interface ActivityDeps {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  logger: Logger;
  /**
   * Replaces the features' own sweeps (tests): a feature's sweep over the shared test database would
   * start other test files' workflows.
   */
  sweeps?: Sweep[];
  /** Timestamps webhook attempts record (tests pass one following the time-skipping server). */
  clock?: Clock;
  /** The process's services (the worker's container); built here when absent (tests). */
  services?: Services;
}

/** Every activity the worker registers, one factory per feature; each call forks its own EntityManager. */
export function createActivities(deps: ActivityDeps) {
  const em = () => deps.orm.em.fork();
  const services = deps.services ?? buildServices({ ...deps, clock: deps.clock ?? systemClock });
  const sweeps = deps.sweeps ?? [
    services.deliveryStarter.sweep(),
    services.messages.sweep(),
    services.liveness.sweep(),
  ];
  const reconciler = createReconcilerService({ em, sweeps, logger: deps.logger });
  const attempts = createAttemptsService({
    secretBox: services.secretBox,
    em,
    clock: deps.clock ?? systemClock,
    logger: deps.logger,
    allowPrivateNetworks: deps.config.webhooks.allowPrivateNetworks,
  });
  return {
    ...createReconcilerActivities(reconciler),
    ...createDevicesActivities({ orm: deps.orm, events: services.events, clock: systemClock }),
    ...createWebhookActivities(attempts),
    ...createMessagesActivities(services.batchProgress, deps.orm),
  };
}

export type Activities = ReturnType<typeof createActivities>;
