import Router, { type RouterMiddleware } from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { healthRepository } from './health.repository';
import { searchAttributesProblem } from '../../temporal/search-attributes';

export interface HealthDeps {
  orm: MikroORM;
  temporal: Client;
}

/** 'ok', 'unreachable', or what the probe found wrong in words. */
async function check(probe: () => Promise<string | void>, timeoutMs = 2000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const problem = await Promise.race([
      probe(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs))),
    ]);
    return problem || 'ok';
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Once a client's namespace was found with every search attribute it is taken as there for this
 * long: a namespace does not vanish, and a probe every few seconds should cost one cheap call. Past
 * it the namespace is looked at again, in case an operator deleted it or its attributes.
 */
export const NAMESPACE_RECHECK_MS = 15 * 60_000;
const namespaceFound = new WeakMap<Client, number>();
const NOT_FOUND = 5;

/**
 * Temporal answers, and the client's namespace exists with the custom search attributes (without
 * them every workflow start fails): undefined, or what is wrong in words.
 */
async function temporalProblem(temporal: Client, now = Date.now()): Promise<string | undefined> {
  await temporal.workflowService.getSystemInfo({});
  const found = namespaceFound.get(temporal);
  if (found !== undefined && now - found < NAMESPACE_RECHECK_MS) return undefined;
  const namespace = temporal.options.namespace;
  try {
    await temporal.workflowService.describeNamespace({ namespace });
  } catch (error) {
    if (isGrpcServiceError(error) && error.code === NOT_FOUND) return `namespace ${namespace} does not exist`;
    throw error;
  }
  const problem = await searchAttributesProblem(temporal.connection, namespace);
  if (problem) return problem;
  namespaceFound.set(temporal, now);
  return undefined;
}

/**
 * /livez (and its older name /healthz): the process is up and serving; it checks no dependency, so an
 * orchestrator restarts the process only when the process itself is stuck, never during an outage.
 * /readyz: it can reach Postgres and Temporal, whose namespace is ready (503 otherwise): take it out
 * of the load balancer.
 */
/**
 * Whether Postgres and Temporal answer, and Temporal has the namespace ready: each check's result by
 * name, 'ok', 'unreachable' or the reason (`namespace x does not exist`).
 */
export async function readiness({ orm, temporal }: HealthDeps) {
  const [postgres, temporalStatus] = await Promise.all([
    check(() => healthRepository.ping(orm.em.fork())),
    check(() => temporalProblem(temporal)),
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
