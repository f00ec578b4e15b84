import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { validate } from '../http/validate';
import type { AccountsService } from './accounts.service';
import { accountSettingsBody } from './accounts.schemas';

/** GET/PATCH /v1/account/settings: what applies to the whole account (scope devices, or a session). */
export function accountSettingsRoutes({ auth, accounts }: { auth: Auth; accounts: AccountsService }): Router {
  const router = new Router({ prefix: '/account' });

  router.get('/settings', auth.scope('devices'), async (ctx) => {
    ctx.body = { settings: await accounts.settings(callerOf(ctx).userId) };
  });

  router.patch('/settings', auth.scope('devices'), async (ctx) => {
    const { body } = await validate(ctx, { body: accountSettingsBody });
    ctx.body = { settings: await accounts.updateSettings(callerOf(ctx).userId, { failover: body.failover }) };
  });

  return router;
}
