import Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../http/errors';
import { setSessionCookie } from './session-cookie';
import type { GoogleService } from './google.service';
import { GOOGLE_STATE_TTL_MS } from './google.service';

export interface GoogleRoutesDeps {
  google: GoogleService;
  dashboardUrl: string;
  secureCookies: boolean;
}

// Binds the sign-in to the browser that started it: a callback link forged with someone else's
// code and state would otherwise sign the victim into the attacker's account.
const STATE_COOKIE = 'google_state';

export function googleRoutes(deps: GoogleRoutesDeps): Router {
  const { google, dashboardUrl, secureCookies } = deps;
  const router = new Router({ prefix: '/auth/google' });
  const failed = `${dashboardUrl}?error=google_sign_in_failed`;

  const stateCookie = (ctx: Context, value: string, maxAge: number) => {
    if (secureCookies) ctx.cookies.secure = true;
    // Lax: the provider brings the browser back with a top-level GET, which carries Lax cookies.
    ctx.cookies.set(STATE_COOKIE, value, {
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookies,
      path: '/v1/auth/google',
      maxAge,
      overwrite: true,
    });
  };

  router.use(async (_ctx, next) => {
    if (!google.enabled) throw notFound('endpoint');
    await next();
  });

  // Both routes are browser navigations: a failure sends the user back to the dashboard with an
  // error flag rather than a JSON error page.
  router.get('/start', async (ctx) => {
    try {
      const { url, state } = await google.start();
      stateCookie(ctx, state, GOOGLE_STATE_TTL_MS);
      ctx.redirect(url);
    } catch (error) {
      ctx.state.log?.warn({ err: error }, 'google sign-in could not start');
      ctx.redirect(failed);
    }
  });

  router.get('/callback', async (ctx) => {
    const browserState = ctx.cookies.get(STATE_COOKIE);
    stateCookie(ctx, '', 0);
    try {
      const { token } = await google.finish(
        { query: ctx.querystring, browserState },
        { ip: ctx.ip, userAgent: ctx.get('User-Agent') || null },
      );
      setSessionCookie(ctx, token, secureCookies);
      ctx.redirect(dashboardUrl);
    } catch (error) {
      ctx.state.log?.warn({ err: error }, 'google sign-in failed');
      ctx.redirect(failed);
    }
  });

  return router;
}
