import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from '../src/config';
import type { Logger } from '../src/lib/logger';
import { createReconcilerService, type Sweep } from '../src/reconciler/reconciler.service';
import { createReconcilerActivities } from './reconciler.activities';

export interface ActivityDeps {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  logger: Logger;
  /** Extra sweeps (tests); the features' own sweeps are added here as they land. */
  sweeps?: Sweep[];
}

/** Every activity the worker registers, one factory per feature; each call forks its own EntityManager. */
export function createActivities(deps: ActivityDeps) {
  const em = () => deps.orm.em.fork();
  const reconciler = createReconcilerService({ em, sweeps: [...(deps.sweeps ?? [])], logger: deps.logger });
  return {
    ...createReconcilerActivities(reconciler),
  };
}

export type Activities = ReturnType<typeof createActivities>;
