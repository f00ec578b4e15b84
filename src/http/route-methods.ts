import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { methodNotAllowed } from './errors';

// OPTIONS, 405 and Allow per route. The router's own allowedMethods() takes the methods of every
// route whose pattern matches the path, so /v1/auth/sessions/revoke-others advertised DELETE (of
// /sessions/:id), and a DELETE there was dispatched to that route and answered 404. Here the route
// a path names is its most specific pattern (a literal segment beats a parameter), and only its
// methods are allowed.

/** Every method the API implements somewhere (Node parses more: WebDAV's, TRACE, PURGE...). */
export const IMPLEMENTED = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PATCH', 'DELETE'];

type Layer = Router['stack'][number];

const isParameter = (segment: string) => /[:*{]/.test(segment);

/** -1, 0 or 1 as `a`'s pattern is less, as or more specific than `b`'s: literal beats parameter, left first. */
function compareSpecificity(a: string | RegExp, b: string | RegExp): number {
  const left = String(a).split('/');
  const right = String(b).split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const [l, r] = [isParameter(left[i]), isParameter(right[i])];
    if (l !== r) return l ? -1 : 1;
  }
  return 0;
}

/** The routes of the most specific pattern among those that match `path`, across `routers`. */
function routesOf(routers: Router[], path: string): Layer[] {
  const layers = routers.flatMap((router) =>
    router.match(path, 'GET').path.filter((layer) => layer.methods.length > 0),
  );
  if (layers.length === 0) return [];
  const best = layers.reduce((top, layer) => (compareSpecificity(layer.path, top.path) > 0 ? layer : top));
  return layers.filter((layer) => compareSpecificity(layer.path, best.path) === 0);
}

/**
 * Put before the routers (in place of their allowedMethods()): a method the path's route lacks gets
 * 405 method_not_allowed with Allow, OPTIONS gets 204 with Allow, a method no route implements gets
 * 405 wherever it is sent.
 */
export function routeMethods(routers: Router[]): Middleware {
  return async (ctx, next) => {
    const routes = routesOf(routers, ctx.path);
    const allowed = [...new Set(routes.flatMap((layer) => layer.methods))];
    if (routes.length === 0) {
      if (!IMPLEMENTED.includes(ctx.method)) throw methodNotAllowed(IMPLEMENTED.join(', '));
      return next();
    }
    if (ctx.method === 'OPTIONS' && !allowed.includes('OPTIONS')) {
      ctx.set('Allow', [...allowed, 'OPTIONS'].join(', '));
      ctx.status = 204;
      return;
    }
    if (!allowed.includes(ctx.method)) throw methodNotAllowed(allowed.join(', '));
    await next();
  };
}
