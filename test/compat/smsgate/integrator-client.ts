import { createHmac, timingSafeEqual } from 'node:crypto';
import Client, { type HttpClient } from 'android-sms-gateway';
import type { Received } from '../../webhooks/receiver';

/** The integrator API's path on this service (src/compat/smsgate/integrator.routes.ts INTEGRATOR_API). */
export const INTEGRATOR_API = '/compat/smsgate/api/3rdparty/v1';

/** What a refused call threw: the status and the JSON body the service answered. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: { message?: string; data?: { code?: string } },
  ) {
    super(`${status} ${JSON.stringify(body)}`);
  }
}

/**
 * The HttpClient the npm client `android-sms-gateway` asks its user for (its README's fetch-based
 * example): JSON in and out, a non-2xx answer thrown.
 */
export const fetchClient: HttpClient = (() => {
  const call = async <T>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    // Their 202s and 204s carry no JSON (fiber's SendStatus writes the status text): only JSON is read.
    const isJson = /json/.test(res.headers.get('content-type') ?? '');
    const parsed = text && isJson ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) throw new HttpError(res.status, (parsed ?? {}) as HttpError['body']);
    return parsed as T;
  };
  return {
    get: (url, headers) => call('GET', url, undefined, headers),
    post: (url, body, headers) => call('POST', url, body, headers),
    put: (url, body, headers) => call('PUT', url, body, headers),
    patch: (url, body, headers) => call('PATCH', url, body, headers),
    delete: (url, headers) => call('DELETE', url, undefined, headers),
  };
})();

/** The published client pointed at this service: the login is not read, the password is an API key. */
export const integratorClient = (baseUrl: string, key: string, login = 'integrator@example.com') =>
  new Client(login, key, fetchClient, `${baseUrl}${INTEGRATOR_API}`);

/** The error a call threw (the test fails if it did not throw one). */
export async function refusal(call: Promise<unknown>): Promise<HttpError> {
  const error = await call.then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  );
  if (!(error instanceof HttpError)) throw error;
  return error;
}

/**
 * A webhook call checked as SMSGate signs and documents it: capcom6/android-sms-gateway@15b9753d
 * app/src/main/java/me/capcom/smsgateway/modules/webhooks/plugins/PayloadSingingPlugin.kt (HmacSHA256
 * keyed with the signing key over `body + timestamp`, lower-case hex, headers X-Signature and
 * X-Timestamp in unix seconds), as its author states in the project's discussion #200 ("the raw
 * request body … concatenating it with the X-Timestamp header value without adding any extra
 * characters"), and as its webhooks guide tells receivers to verify (docs-web
 * docs/features/webhooks.md, "Payload Signing"): the raw body before any JSON parsing, compared in
 * constant time, and a timestamp accepted only within ±5 minutes of the receiver's clock (`now`).
 */
export function smsgateSignatureValid(request: Received, signingKey: string, now = Date.now()): boolean {
  const timestamp = String(request.headers['x-timestamp'] ?? '');
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > 5 * 60) return false;
  const expected = Buffer.from(
    createHmac('sha256', signingKey)
      .update(request.raw + timestamp)
      .digest('hex'),
  );
  const given = Buffer.from(String(request.headers['x-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
