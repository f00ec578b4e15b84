import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { createHttpServer } from '../../src/server';

export interface Served {
  url: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Serves a Koa app on a loopback port (a free one unless given) as the api process does (src/server.ts). */
export async function serve(app: Koa, port = 0): Promise<Served> {
  const server = createHttpServer(app.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    fetch: (path, init) => fetch(url + path, init),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A response body as JSON, typed loosely: tests assert its shape. */
export const readJson = (res: Response): Promise<any> => res.json();

/**
 * Whether a parsed body is an error in the interface's shape, `{code, message, status, errors?}`
 * with `status` the answer's and each FieldError just `{field, message}`.
 */
export function isErrorBody(body: unknown, answered: number): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { code, message, status, errors, ...rest } = body as Record<string, unknown>;
  return (
    typeof code === 'string' &&
    typeof message === 'string' &&
    status === answered &&
    Object.keys(rest).length === 0 &&
    (errors === undefined ||
      (Array.isArray(errors) &&
        errors.every(
          (e) => typeof e?.field === 'string' && typeof e?.message === 'string' && Object.keys(e).length === 2,
        )))
  );
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The headers of a request as the dashboard's browser sends it: a state-changing request with a
 * session cookie carries where it comes from (src/http/auth.ts refuses it otherwise). Adds `origin`
 * when given, else `Sec-Fetch-Site: same-origin`, unless the request already says where it comes from
 * (a test of a foreign or missing origin sets its own headers, or leaves out the cookie helper).
 */
export function asBrowser(method: string | undefined, init: HeadersInit | undefined, origin?: string): Headers {
  const headers = new Headers(init);
  const says = headers.has('origin') || headers.has('referer') || headers.has('sec-fetch-site');
  if (headers.has('cookie') && UNSAFE.has((method ?? 'GET').toUpperCase()) && !says) {
    if (origin) headers.set('origin', origin);
    else headers.set('sec-fetch-site', 'same-origin');
  }
  return headers;
}
