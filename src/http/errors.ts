// The one error type of the API. Services throw it; the error middleware renders it as the
// interface's error body {code, message, status, errors?}.

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): { code: string; message: string; status: number; errors?: FieldError[] } {
    return {
      code: this.code,
      message: this.message,
      status: this.status,
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

export const badRequest = (message = 'The request could not be read.') => new ApiError(400, 'bad_request', message);
export const unauthenticated = (message = 'Credentials are missing or invalid.') =>
  new ApiError(401, 'unauthenticated', message);
export const insufficientScope = (scope: string) =>
  new ApiError(403, 'insufficient_scope', `This API key lacks the "${scope}" scope.`);
export const forbidden = (code: string, message: string) => new ApiError(403, code, message);
export const notFound = (what = 'resource') => new ApiError(404, 'not_found', `The ${what} does not exist.`);
export const conflict = (code: string, message: string) => new ApiError(409, code, message);
export const payloadTooLarge = () => new ApiError(413, 'payload_too_large', 'The request body is too large.');
/** At most this many FieldErrors are listed; the message counts them all. */
export const MAX_FIELD_ERRORS = 100;
/** `total`: how many problems were found, when the caller stopped listing them at MAX_FIELD_ERRORS. */
export const validationFailed = (errors: FieldError[], total = errors.length) =>
  new ApiError(
    422,
    'validation_failed',
    total > MAX_FIELD_ERRORS
      ? `The request is invalid: ${total} problems, the first ${MAX_FIELD_ERRORS} listed.`
      : 'The request is invalid.',
    errors.slice(0, MAX_FIELD_ERRORS),
  );
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, 'rate_limited', 'Too many requests; try again later.', undefined, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
export const planLimit = (code: string, message: string) => new ApiError(429, code, message);
export const methodNotAllowed = (allow: string) =>
  new ApiError(405, 'method_not_allowed', 'This endpoint does not support that method.', undefined, {
    Allow: allow,
  });
/** Postgres or Temporal cannot be reached: nothing was done, and the same request may succeed later. */
export const unavailable = (retryAfterSeconds = 5) =>
  new ApiError(503, 'unavailable', 'The service is temporarily unavailable; try again later.', undefined, {
    'Retry-After': String(retryAfterSeconds),
  });
export const internal = () => new ApiError(500, 'internal', 'Something went wrong on our side.');
