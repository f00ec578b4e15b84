import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { RequestContext, type MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../lib/logger';

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Gives every request an id (kept from X-Request-Id when it is well formed), a child logger that
 * carries it, one access-log line when it ends, and its own EntityManager fork.
 */
export function requestContext(logger: Logger, orm: MikroORM): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = INCOMING_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    // With tracing on, the trace id too: a log line leads to its trace.
    const traceId: string | undefined = ctx.state.traceId;
    ctx.state.log = logger.child(traceId ? { req_id: id, trace_id: traceId } : { req_id: id });
    ctx.set('X-Request-Id', id);
    const started = process.hrtime.bigint();
    try {
      await RequestContext.create(orm.em, next);
    } finally {
      // The path only, never the query string: it may carry cursors or filters with phone numbers.
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
          ip: ctx.ip,
        },
        'request',
      );
    }
  };
}
