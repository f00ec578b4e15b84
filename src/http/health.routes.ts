import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';

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

/** /healthz: the process is alive. /readyz: it can reach Postgres and Temporal (503 otherwise). */
export function healthRoutes({ orm, temporal }: HealthDeps): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const [postgres, temporalStatus] = await Promise.all([
      check(() => orm.em.getConnection().execute('select 1')),
      check(() => temporal.workflowService.getSystemInfo({})),
    ]);
    const ready = postgres === 'ok' && temporalStatus === 'ok';
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'unavailable', checks: { postgres, temporal: temporalStatus } };
  });
  return router;
}
