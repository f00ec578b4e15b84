import type { Context, Middleware } from 'koa';
import { apiErrorOf } from '../http/error-handler';
import { statusClass, type Metrics } from './metrics';

/** The route label of requests no router matched (404s, the dashboard's files): never the raw path. */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The template of the route that answered (`/v1/messages/:id`), as @koa/router recorded it. */
function routeOf(ctx: Context): string {
  const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' && matched !== '' ? matched : UNMATCHED_ROUTE;
}

/**
 * Counts every request by method, route template and status, and times it. Mounted outside the
 * error handler, so it sees the status the client gets. Two counter increments and a clock read:
 * nothing here waits.
 */
export function httpMetrics(http: Metrics['http']): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = METHODS.has(ctx.method) ? ctx.method : 'OTHER';
      const route = routeOf(ctx);
      http.requests.inc({ method, route, status: String(ctx.status) });
      http.duration.observe({ method, route, status_class: statusClass(ctx.status) }, seconds);
    }
  };
}

/** Counts the refusals of the route it guards by their error code, the code the client gets. */
export function countRefusals(refused: Metrics['sends']['refused']): Middleware {
  return async (_ctx, next) => {
    try {
      await next();
    } catch (error) {
      refused.inc({ code: apiErrorOf(error).code });
      throw error;
    }
  };
}
