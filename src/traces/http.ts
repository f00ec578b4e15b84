import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Context, Middleware } from 'koa';

/** The template of the route that answered (`/v1/batches/:id`), as @koa/router recorded it. */
function routeOf(ctx: Context): string | undefined {
  const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' && matched !== '' ? matched : undefined;
}

/**
 * A server span per request, named by its route template (`POST /v1/messages`), with the HTTP
 * attributes of the OpenTelemetry conventions. Mounted first, so everything the request does (SQL,
 * workflow starts) is its child and the status is the one the client gets. A W3C `traceparent`
 * from the caller is continued. Never the query string: it may carry phone numbers.
 */
export function traceRequests(tracer: Tracer): Middleware {
  return async function traceRequest(ctx, next) {
    const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
    const span = tracer.startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': ctx.method,
          'url.scheme': ctx.protocol,
          'url.path': ctx.path,
        },
      },
      parent,
    );
    ctx.state.traceId = span.spanContext().traceId;
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      // The error handler answers everything; this is a failure past it.
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      const route = routeOf(ctx);
      if (route) {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', ctx.status);
      // Server spans: a 4xx is the client's mistake, not a failure of ours.
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
