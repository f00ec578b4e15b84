import Router from '@koa/router';
import type { PlansService } from './plans.service';
import { planView } from './plans.views';

export function plansRoutes({ plans }: { plans: PlansService }): Router {
  const router = new Router();
  // No credentials: the public catalogue.
  router.get('/plans', async (ctx) => {
    ctx.body = { data: (await plans.list()).map(planView) };
  });
  return router;
}
