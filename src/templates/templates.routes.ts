import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { pageBody } from '../http/pagination';
import { validate } from '../http/validate';
import { pathId } from '../lib/fields';
import { createTemplateBody, listTemplatesQuery, updateTemplateBody } from './templates.schemas';
import type { TemplatesService } from './templates.service';
import { templateView } from './templates.views';

/** Saved message texts: read with the `read` scope, written with `send` (or a dashboard session). */
export function templatesRoutes({ auth, templates }: { auth: Auth; templates: TemplatesService }): Router {
  const router = new Router({ prefix: '/templates' });

  router.get('/', auth.scope('read'), async (ctx) => {
    const { query } = await validate(ctx, { query: listTemplatesQuery });
    ctx.body = pageBody(await templates.list(callerOf(ctx).userId, query), templateView);
  });

  router.post('/', auth.scope('send'), async (ctx) => {
    const { body } = await validate(ctx, { body: createTemplateBody });
    ctx.status = 201;
    ctx.body = { template: templateView(await templates.create(callerOf(ctx).userId, body)) };
  });

  router.get('/:id', auth.scope('read'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    ctx.body = { template: templateView(await templates.get(callerOf(ctx).userId, params.id)) };
  });

  router.patch('/:id', auth.scope('send'), async (ctx) => {
    const { params, body } = await validate(ctx, { params: pathId(), body: updateTemplateBody });
    ctx.body = { template: templateView(await templates.update(callerOf(ctx).userId, params.id, body)) };
  });

  router.delete('/:id', auth.scope('send'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    await templates.remove(callerOf(ctx).userId, params.id);
    ctx.status = 204;
  });

  return router;
}
