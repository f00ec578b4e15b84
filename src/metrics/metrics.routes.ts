import Router from '@koa/router';
import type { Auth } from '../http/auth';
import type { Metrics } from './metrics';

/** GET /metrics on the API port, for scrapers holding METRICS_TOKEN (mounted only when it is set). */
export function metricsRoutes({ auth, metrics }: { auth: Auth; metrics: Metrics }): Router {
  const router = new Router();
  router.get('/metrics', auth.operator(), async (ctx) => {
    const { contentType, body } = await metrics.render();
    ctx.type = contentType;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });
  return router;
}
