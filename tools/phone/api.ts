// The few HTTP calls the simulator makes, against the public interface only: the phone's /v1/device
// endpoints with its token, and (for --api-key) pairing-code creation with an integrator's key.

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 30_000;

/** A JSON request; a non-2xx answer throws HttpError with the interface's error code. */
export async function request<T>(
  server: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(new URL(path, `${server.replace(/\/+$/, '')}/`), {
    method,
    headers: {
      accept: 'application/json',
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (!res.ok) {
    const error = (body ?? {}) as { code?: string; message?: string };
    throw new HttpError(
      res.status,
      error.code ?? 'http_error',
      `${method} ${path}: ${res.status} ${error.message ?? text}`,
    );
  }
  return { status: res.status, body: body as T };
}

/** The pairing code and server carried by a pair URL (`phonegateway://pair?code=…&server=…`). */
export function parsePairUrl(pairUrl: string): { code: string; server: string } {
  let url: URL;
  try {
    url = new URL(pairUrl);
  } catch {
    throw new Error(`not a pair URL: ${pairUrl}`);
  }
  const code = url.searchParams.get('code');
  const server = url.searchParams.get('server');
  if (url.protocol !== 'phonegateway:' || !code || !server) {
    throw new Error(`not a pair URL (expected phonegateway://pair?code=…&server=…): ${pairUrl}`);
  }
  return { code, server };
}

/** A fresh pairing code made with an API key (scope devices), as the dashboard would. */
export async function createPairingCode(server: string, apiKey: string): Promise<string> {
  const { body } = await request<{ code: string }>(server, 'POST', '/v1/devices/pairing-codes', {
    headers: { 'x-api-key': apiKey },
  });
  return body.code;
}

/** One line for a failure; fetch hides the reason (refused, reset, DNS) in `cause`. */
export function describeError(error: unknown): string {
  if (error instanceof HttpError) return `${error.message} (${error.code})`;
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause ? `${error.message}: ${cause.code ?? cause.message}` : error.message;
}
