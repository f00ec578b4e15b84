import type { Middleware } from 'koa';

/**
 * Content codings are case-insensitive (RFC 9110 section 8.4.1), but the body parser compares them
 * as written: `GZIP` was a 415. Put before the body parser: it sees the header lower-cased.
 */
export function contentEncoding(): Middleware {
  return async (ctx, next) => {
    const encoding = ctx.req.headers['content-encoding'];
    if (encoding) ctx.req.headers['content-encoding'] = encoding.trim().toLowerCase();
    await next();
  };
}
