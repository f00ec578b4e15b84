import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { pageBody } from '../http/pagination';
import { validate } from '../http/validate';
import { addOptOutBody, listOptOutsQuery, phoneNumberParams } from './opt-outs.schemas';
import type { OptOutsService } from './opt-outs.service';
import { optOutView } from './opt-outs.views';

/** The account's suppression list: API keys with the `send` scope, or a dashboard session. */
export function optOutsRoutes({ auth, optOuts }: { auth: Auth; optOuts: OptOutsService }): Router {
  const router = new Router({ prefix: '/opt-outs' });
  const scope = auth.scope('send');

  router.get('/', scope, async (ctx) => {
    const { query } = await validate(ctx, { query: listOptOutsQuery });
    ctx.body = pageBody(await optOuts.list(callerOf(ctx).userId, query), optOutView);
  });

  router.post('/', scope, async (ctx) => {
    const { body } = await validate(ctx, { body: addOptOutBody });
    const { optOut, created } = await optOuts.add(callerOf(ctx).userId, body.phone_number);
    ctx.status = created ? 201 : 200;
    ctx.body = { opt_out: optOutView(optOut) };
  });

  router.delete('/:phone_number', scope, async (ctx) => {
    const { params } = await validate(ctx, { params: phoneNumberParams });
    await optOuts.remove(callerOf(ctx).userId, params.phone_number);
    ctx.status = 204;
  });

  return router;
}
