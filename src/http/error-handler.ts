import type { Middleware } from 'koa';
import { NotFoundError, UniqueConstraintViolationException } from '@mikro-orm/core';
import { ValidationError } from 'yup';
import { ApiError, badRequest, conflict, internal, notFound, payloadTooLarge } from './errors';
import { fieldErrors } from './validate';

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

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ValidationError)
    return new ApiError(422, 'validation_failed', 'The request is invalid.', fieldErrors(error, 'body'));
  if (error instanceof NotFoundError) return notFound();
  if (error instanceof UniqueConstraintViolationException) return conflict('conflict', 'The resource already exists.');
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

/** The one place where errors become responses. Unknown errors are logged and shown as a bare 500. */
export function errorHandler(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound('endpoint');
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status >= 500) ctx.state.log?.error({ err: error }, 'request failed');
      ctx.status = apiError.status;
      ctx.body = apiError.toBody();
      for (const [name, value] of Object.entries(apiError.headers ?? {})) ctx.set(name, value);
    }
  };
}
