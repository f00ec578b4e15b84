import Router from '@koa/router';
import type { Context } from 'koa';
import type { Auth } from '../http/auth';
import { callerOf, SESSION_COOKIE } from '../http/auth';
import { unauthenticated } from '../http/errors';
import { withoutControls } from '../http/input-guard';
import { clearSessionCookie, setSessionCookie } from './session-cookie';
import { validate } from '../http/validate';
import { pathId } from '../lib/fields';
import type { PlansService } from '../plans/plans.service';
import { limitsView, usageView } from '../plans/plans.views';
import type { AccountsService } from './accounts.service';
import {
  changePasswordBody,
  loginBody,
  profileBody,
  registerBody,
  resetBody,
  resetRequestBody,
  verifyEmailBody,
} from './accounts.schemas';
import { sessionView, userView } from './accounts.views';
import type { SessionsService } from './sessions.service';

export interface AccountsRoutesDeps {
  auth: Auth;
  accounts: AccountsService;
  sessions: SessionsService;
  plans: PlansService;
  secureCookies: boolean;
  googleSignIn: boolean;
  turnstileSiteKey: string;
  /** DEFAULT_COUNTRY: how numbers written without a country code are read. */
  defaultCountry: string | null;
}

// A header may carry C1 controls (latin1 bytes 0x80-0x9F): the stored copy drops every control character.
const origin = (ctx: Context) => ({ ip: ctx.ip, userAgent: withoutControls(ctx.get('User-Agent')) || null });

/** The dashboard session of the request (session-only routes). */
function sessionOf(ctx: Context) {
  const caller = callerOf(ctx);
  if (caller.kind !== 'session') throw unauthenticated();
  return caller;
}

export function accountsRoutes(deps: AccountsRoutesDeps): Router {
  const { auth, accounts, sessions, plans, secureCookies } = deps;
  const router = new Router({ prefix: '/auth' });

  router.get('/config', (ctx) => {
    ctx.body = {
      google_sign_in: deps.googleSignIn,
      turnstile_site_key: deps.turnstileSiteKey,
      default_country: deps.defaultCountry,
    };
  });

  router.post('/register', async (ctx) => {
    const { body } = await validate(ctx, { body: registerBody });
    const { user, token } = await accounts.register(
      { email: body.email, password: body.password, name: body.name, turnstileToken: body.turnstile_token },
      origin(ctx),
    );
    setSessionCookie(ctx, token, secureCookies);
    ctx.status = 201;
    ctx.body = { user: userView(user) };
  });

  router.post('/login', async (ctx) => {
    const { body } = await validate(ctx, { body: loginBody });
    const { user, token } = await accounts.login(
      { email: body.email, password: body.password, turnstileToken: body.turnstile_token },
      origin(ctx),
    );
    setSessionCookie(ctx, token, secureCookies);
    ctx.body = { user: userView(user) };
  });

  // Always succeeds: a missing or stale cookie is simply cleared.
  router.post('/logout', auth.sameOrigin(), async (ctx) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    const found = token ? await sessions.resolve(token) : null;
    if (found) await sessions.revoke(found.user.id, found.session.id);
    clearSessionCookie(ctx, secureCookies);
    ctx.status = 204;
  });

  router.get('/me', auth.sessionOrKey(), async (ctx) => {
    const caller = callerOf(ctx);
    const user = caller.kind === 'session' ? caller.user : await accounts.getUser(caller.userId);
    const [plan, usage] = await Promise.all([plans.planOf(user.id), plans.usage(user.id)]);
    ctx.body = { limits: limitsView(plan), usage: usageView(usage), user: userView(user) };
  });

  router.post('/password', auth.session(), async (ctx) => {
    const { body } = await validate(ctx, { body: changePasswordBody });
    const { user, session } = sessionOf(ctx);
    await accounts.changePassword(
      user,
      { currentPassword: body.current_password, newPassword: body.new_password },
      session.id,
    );
    ctx.status = 204;
  });

  router.post('/password-reset/request', async (ctx) => {
    const { body } = await validate(ctx, { body: resetRequestBody });
    await accounts.requestReset({ email: body.email, turnstileToken: body.turnstile_token }, origin(ctx));
    ctx.status = 202;
  });

  router.post('/password-reset', async (ctx) => {
    const { body } = await validate(ctx, { body: resetBody });
    await accounts.resetPassword({ email: body.email, code: body.code, newPassword: body.new_password }, origin(ctx));
    ctx.status = 204;
  });

  router.patch('/profile', auth.session(), async (ctx) => {
    const { body } = await validate(ctx, { body: profileBody });
    ctx.body = { user: userView(await accounts.updateProfile(sessionOf(ctx).user, body)) };
  });

  router.get('/sessions', auth.session(), async (ctx) => {
    const { user, session } = sessionOf(ctx);
    ctx.body = { data: (await sessions.list(user.id)).map((s) => sessionView(s, session.id)) };
  });

  // Declared before /sessions/:id so "revoke-others" is not taken for an id.
  router.post('/sessions/revoke-others', auth.session(), async (ctx) => {
    const { user, session } = sessionOf(ctx);
    await sessions.revokeAll(user.id, session.id);
    ctx.status = 204;
  });

  router.delete('/sessions/:id', auth.session(), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    const { user, session } = sessionOf(ctx);
    await sessions.revoke(user.id, params.id);
    if (params.id === session.id) clearSessionCookie(ctx, secureCookies);
    ctx.status = 204;
  });

  router.post('/verify-email', auth.session(), async (ctx) => {
    const { body } = await validate(ctx, { body: verifyEmailBody });
    ctx.body = { user: userView(await accounts.verifyEmail(sessionOf(ctx).user, body.code, origin(ctx))) };
  });

  router.post('/verify-email/send', auth.session(), async (ctx) => {
    await accounts.sendVerification(sessionOf(ctx).user);
    ctx.status = 202;
  });

  return router;
}
