import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type ApiError = Schemas['Error'];

/** Same origin, session cookie: the browser sends `sid` and the Origin the API checks. */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });

/** Thrown by `ok()` so screens can show the API's own message and per-field errors. */
export class ApiFailure extends Error {
  constructor(
    readonly problem: ApiError,
    readonly response?: Response,
  ) {
    super(problem.message);
  }
  field(name: string): string | undefined {
    return this.problem.errors?.find((e) => e.field === `body.${name}` || e.field === name)?.message;
  }
  get retryAfterSeconds(): number | undefined {
    const value = Number(this.response?.headers.get('Retry-After'));
    return Number.isFinite(value) && value > 0 ? value : undefined;
  }
}

function asProblem(error: unknown, response: Response): ApiError {
  if (error && typeof error === 'object' && 'message' in error && 'code' in error) return error as ApiError;
  return { code: 'unexpected', message: `The server answered ${response.status}.`, status: response.status };
}

/** Unwraps an openapi-fetch result: the data, or an ApiFailure with the error body. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new ApiFailure({ code: 'network', message: 'The server could not be reached.', status: 0 });
  }
  if (result.error !== undefined || !result.response.ok) {
    throw new ApiFailure(asProblem(result.error, result.response), result.response);
  }
  return result.data as T;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
