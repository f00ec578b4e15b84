import Router from '@koa/router';
import type { Context } from 'koa';
import { SCOPES, type Scope } from '../api-keys/api-key.entity';
import { callerOf, type Auth } from '../http/auth';
import { pageBody } from '../http/pagination';
import { validate } from '../http/validate';
import { pathId } from '../lib/fields';
import { listTokensQuery, mintTokenBody } from './tokens.schemas';
import type { TokenOwner, TokensService } from './tokens.service';
import { tokenView } from './tokens.views';

/** Who is asking, as the tokens service sees it: a session holds every scope. */
export function tokenOwnerOf(ctx: Context): TokenOwner {
  const caller = callerOf(ctx);
  if (caller.kind === 'key')
    return { userId: caller.userId, keyId: caller.keyId, tokenId: caller.tokenId, scopes: caller.scopes };
  return { userId: caller.userId, keyId: null, scopes: SCOPES };
}

/** Short-lived tokens: minted by an API key (within its scopes) or a dashboard session. */
export function tokensRoutes({ auth, tokens }: { auth: Auth; tokens: TokensService }): Router {
  const router = new Router({ prefix: '/tokens' });

  router.post('/', auth.sessionOrKey(), async (ctx) => {
    const { body } = await validate(ctx, { body: mintTokenBody });
    const { token, secret } = await tokens.mint(tokenOwnerOf(ctx), {
      scopes: body.scopes as Scope[] | null | undefined,
      ttlSeconds: body.ttl_seconds,
    });
    ctx.status = 201;
    ctx.body = { token: tokenView(token), secret };
  });

  router.get('/', auth.sessionOrKey(), async (ctx) => {
    const { query } = await validate(ctx, { query: listTokensQuery });
    ctx.body = pageBody(await tokens.list(tokenOwnerOf(ctx), query), tokenView);
  });

  router.delete('/:id', auth.sessionOrKey(), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    await tokens.revoke(tokenOwnerOf(ctx), params.id);
    ctx.status = 204;
  });

  return router;
}
