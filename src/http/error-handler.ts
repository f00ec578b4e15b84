import type { Context, Middleware } from 'koa';
import type { Logger } from '../lib/logger';
import { NotFoundError, UniqueConstraintViolationException } from '@mikro-orm/core';
import { ValidationError } from '../lib/yup';
import {
  ApiError,
  badRequest,
  conflict,
  internal,
  methodNotAllowed,
  notFound,
  payloadTooLarge,
  unavailable,
} from './errors';
import { fieldErrors } from './validate';

// Errors that mean Postgres or Temporal is out of reach rather than a bug: node's network codes,
// the connection pool's timeout, Postgres going down or refusing (57P01-57P03, 53300, class 08 but
// 08P01, a protocol violation: what a NUL in a parameter causes),
// and gRPC's UNAVAILABLE (14) and DEADLINE_EXCEEDED (4) from Temporal.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const OUTAGE_NAMES = new Set(['KnexTimeoutError', 'ConnectionException', 'ConnectionError', 'TransportError']);
const OUTAGE_MESSAGES =
  /Connection terminated|Timeout acquiring a connection|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (shutting down|starting up)|terminating connection due to administrator command|Failed to connect before the deadline/i;

function isOutage(error: unknown): boolean {
  // Drivers wrap each other's errors: follow the causes a few levels down.
  let current = error as Record<string, unknown> | undefined;
  for (let level = 0; level < 5 && current && typeof current === 'object'; level++) {
    const code = current.code;
    const state = current.sqlState ?? current.code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (typeof state === 'string' && /^(0800[01346]|57P0[123]|53300)$/.test(state)) return true;
    if (typeof code === 'number' && (code === 14 || code === 4) && 'details' in current) return true;
    if (typeof current.name === 'string' && OUTAGE_NAMES.has(current.name)) return true;
    if (typeof current.message === 'string' && OUTAGE_MESSAGES.test(current.message)) return true;
    current = current.cause as Record<string, unknown> | undefined;
  }
  return false;
}

// Codes for errors raised by Koa and its middleware (http-errors) rather than by our services.
const HTTP_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  501: 'not_implemented',
};

/** The ApiError an error is answered with (the code and status the client sees). */
export function apiErrorOf(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ValidationError)
    return new ApiError(422, 'validation_failed', 'The request is invalid.', fieldErrors(error, 'body'));
  if (error instanceof NotFoundError) return notFound();
  if (error instanceof UniqueConstraintViolationException) return conflict('conflict', 'The resource already exists.');
  if (isOutage(error)) return unavailable();
  // A body whose Content-Encoding does not decode: zlib's Z_DATA_ERROR and the like, brotli's
  // ERR__ERROR_FORMAT_*.
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && /^(Z_|ERR__ERROR_)/.test(code))
    return badRequest('The request body could not be decoded.');
  // Koa, the router and the body parser raise errors carrying a 4xx status (http-errors, co-body).
  const http = error as { status?: number; statusCode?: number };
  const status = http?.status ?? http?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return payloadTooLarge();
    if (status === 400)
      return badRequest(error instanceof SyntaxError ? 'The request body is not valid JSON.' : undefined);
    // Their messages may quote the request; ours are fixed.
    const code = HTTP_CODES[status] ?? 'bad_request';
    return new ApiError(
      status,
      code,
      code === 'not_found' ? 'No such endpoint.' : `The request was refused (${code.replace(/_/g, ' ')}).`,
    );
  }
  return internal();
}

/**
 * The log line of a failed request, by what its answer means: 503 is a dependency out of reach
 * (warn), 501 is a documented answer to a call this server does not serve (debug: expected, and
 * the access log already has its status), any other 5xx a bug (error). 4xx are the client's.
 */
export function logFailure(ctx: Context, error: unknown, apiError: ApiError): void {
  const log = ctx.state.log as Logger | undefined;
  if (apiError.status === 503) log?.warn({ err: error }, 'request failed: a dependency is unreachable');
  else if (apiError.status === 501) log?.debug({ code: apiError.code }, 'request refused: not served here');
  else if (apiError.status >= 500) log?.error({ err: error }, 'request failed');
}

/** The one place where errors become responses. Unknown errors are logged and shown as a bare 500. */
export function errorHandler(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw notFound('endpoint');
        // The routers answer a known path with another method (405) or an unknown method (501)
        // with an Allow header and no body.
        if (ctx.status === 405 || ctx.status === 501) throw methodNotAllowed(ctx.response.get('Allow'));
      }
    } catch (error) {
      const apiError = apiErrorOf(error);
      logFailure(ctx, error, apiError);
      ctx.status = apiError.status;
      ctx.body = apiError.toBody();
      for (const [name, value] of Object.entries(apiError.headers ?? {})) ctx.set(name, value);
    }
  };
}
