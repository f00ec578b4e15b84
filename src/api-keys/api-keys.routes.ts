import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { validate } from '../http/validate';
import type { Idempotency } from '../idempotency/idempotency.middleware';
import { pathId } from '../lib/fields';
import type { Scope } from './api-key.entity';
import type { ApiKeysService } from './api-keys.service';
import { createKeyBody, listKeysQuery, renameKeyBody } from './api-keys.schemas';
import { apiKeyView } from './api-keys.views';

/** API-key management: dashboard sessions only, never a key. */
export function apiKeysRoutes({
  auth,
  apiKeys,
  idempotency,
}: {
  auth: Auth;
  apiKeys: ApiKeysService;
  idempotency: Idempotency;
}): Router {
  const router = new Router({ prefix: '/api-keys' });

  router.get('/', auth.session(), async (ctx) => {
    const { query } = await validate(ctx, { query: listKeysQuery });
    ctx.body = { data: (await apiKeys.list(callerOf(ctx).userId, query.include_revoked)).map(apiKeyView) };
  });

  router.post('/', auth.session(), idempotency.key(), async (ctx) => {
    const { body } = await validate(ctx, { body: createKeyBody });
    const { apiKey, key } = await apiKeys.create(callerOf(ctx).userId, {
      name: body.name,
      scopes: body.scopes as Scope[] | null | undefined,
      expiresAt: body.expires_at,
    });
    ctx.status = 201;
    ctx.body = { api_key: apiKeyView(apiKey), key };
  });

  router.patch('/:id', auth.session(), async (ctx) => {
    const { params, body } = await validate(ctx, { params: pathId(), body: renameKeyBody });
    await apiKeys.rename(callerOf(ctx).userId, params.id, body.name);
    ctx.status = 204;
  });

  router.delete('/:id', auth.session(), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    await apiKeys.remove(callerOf(ctx).userId, params.id);
    ctx.status = 204;
  });

  router.post('/:id/revoke', auth.session(), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    await apiKeys.revoke(callerOf(ctx).userId, params.id);
    ctx.status = 204;
  });

  return router;
}
