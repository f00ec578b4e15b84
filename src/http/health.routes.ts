import Router, { type RouterMiddleware } from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { query, sql } from '../db/sql';

export interface HealthDeps {
  orm: MikroORM;
  temporal: Client;
}

async function check(probe: () => Promise<unknown>, timeoutMs = 2000): Promise<'ok' | 'unreachable'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs))),
    ]);
    return 'ok';
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * /livez (and its older name /healthz): the process is up and serving; it checks no dependency, so an
 * orchestrator restarts the process only when the process itself is stuck, never during an outage.
 * /readyz: it can reach Postgres and Temporal (503 otherwise): take it out of the load balancer.
 */
/** Whether Postgres and Temporal answer, each check's result by name. */
export async function readiness({ orm, temporal }: HealthDeps) {
  const [postgres, temporalStatus] = await Promise.all([
    check(() => query(orm.em.fork(), sql`select 1`)),
    check(() => temporal.workflowService.getSystemInfo({})),
  ]);
  return { ready: postgres === 'ok' && temporalStatus === 'ok', checks: { postgres, temporal: temporalStatus } };
}

export function healthRoutes({ orm, temporal }: HealthDeps): Router {
  const router = new Router();
  const live: RouterMiddleware = (ctx) => {
    ctx.body = { status: 'ok' };
  };
  router.get('/livez', live);
  router.get('/healthz', live);
  router.get('/readyz', async (ctx) => {
    const { ready, checks } = await readiness({ orm, temporal });
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'unavailable', checks };
  });
  return router;
}
