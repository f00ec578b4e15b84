import type { Context, Middleware, Next } from 'koa';
import type { Scope } from './scopes';
import type { Clock } from '../lib/clock';
import { safeEqual, sha256 } from '../lib/crypto';
import { forbidden, insufficientScope, unauthenticated } from './errors';
import { tokenBuckets, type Rate } from './request-rate';

export const SESSION_COOKIE = 'sid';

/**
 * A person signed in with a session cookie. The accounts feature, which resolves the cookie, declares
 * the rest of its fields (the session and its user: accounts/sessions.service.ts), so this module
 * needs no feature of its own.
 */
export interface SessionCaller {
  kind: 'session';
  userId: string;
}

/** Who is calling. Every query a route makes is scoped by `userId`. */
export type Caller =
  // An API key, or a short-lived token (tokenId set; keyId the key that minted it, null for a session).
  | { kind: 'key'; userId: string; keyId: string | null; tokenId?: string; scopes: readonly Scope[] }
  | SessionCaller
  | { kind: 'device'; userId: string; deviceId: string };

declare module 'koa' {
  interface DefaultState {
    caller?: Caller;
  }
}

/** Resolves a phone's device token (provided by the devices feature). */
export type DeviceAuthenticator = (token: string) => Promise<{ userId: string; deviceId: string } | null>;

/** A usable credential behind a presented secret (unknown, revoked and expired ones are null). */
interface Credentials<T> {
  authenticate(secret: string): Promise<T | null>;
}

export interface AuthDeps {
  apiKeys: Credentials<{ id: string; userId: string; scopes: readonly Scope[] }>;
  keyUsage: { record(keyId: string, at: Date): void };
  /** Short-lived tokens, accepted wherever an API key is. */
  tokens?: Credentials<{ id: string; userId: string; apiKeyId: string | null; scopes: readonly Scope[] }>;
  sessions: { callerOf(token: string): Promise<SessionCaller | null> };
  devices?: DeviceAuthenticator;
  clock: Clock;
  /** Origins allowed to make cookie-authenticated unsafe requests (PUBLIC_URL, DASHBOARD_URL). */
  trustedOrigins: string[];
  /** Request rates per API key and per device token (in this process's memory). */
  rates?: { key: Rate; device: Rate };
  /** The bearer token of operators' scrapers (METRICS_TOKEN); unset: auth.operator() admits no one. */
  operatorToken?: string;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The bearer token; null when an Authorization header is there but is not one (a wrong credential). */
function bearer(ctx: Context): string | null | undefined {
  const header = ctx.get('Authorization');
  if (!header) return undefined;
  return /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? null;
}

/**
 * Whether an Authorization header carries `secret` as its bearer token. Compared as hashes in
 * constant time, so neither the token nor its length leaks through timing.
 */
export function bearerIs(header: string | undefined, secret: string | undefined): boolean {
  const token = header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
  return Boolean(token && secret) && safeEqual(sha256(token!), sha256(secret!));
}

export function callerOf(ctx: Context): Caller {
  const caller = ctx.state.caller;
  if (!caller) throw unauthenticated();
  return caller;
}

/**
 * The one authentication middleware, declared per route:
 *   auth.scope('read')   an API key (or a token) with that scope, or a dashboard session
 *   auth.sessionOrKey()  a dashboard session or any API key (GET /v1/auth/me)
 *   auth.session()       a dashboard session only: API keys are refused
 *   auth.device()        a phone's device token only
 *   auth.operator()      the operators' bearer token (METRICS_TOKEN): no caller, no account
 * Routes with no declaration need no credentials.
 */
export function createAuth(deps: AuthDeps) {
  const rates = deps.rates ?? { key: { perSecond: 50, burst: 100 }, device: { perSecond: 50, burst: 200 } };
  const keyBuckets = tokenBuckets(rates.key, deps.clock);
  const deviceBuckets = tokenBuckets(rates.device, deps.clock);

  // null: a credential was presented and is wrong (401 whatever else came with it); undefined: none.
  async function fromKey(ctx: Context): Promise<Caller | null | undefined> {
    const header = ctx.get('X-Api-Key');
    const token = bearer(ctx);
    if (token === null) return null;
    if (!header && !token) return undefined;
    // Two different keys name no one caller.
    if (header && token && header !== token) return null;
    const secret = (header || token)!;
    // A token is looked up on every request (no cache), so its revocation holds at once. It shares
    // the rate of the key that minted it.
    const minted = deps.tokens ? await deps.tokens.authenticate(secret) : null;
    if (minted) {
      keyBuckets.take(minted.apiKeyId ?? minted.id);
      return { kind: 'key', userId: minted.userId, keyId: minted.apiKeyId, tokenId: minted.id, scopes: minted.scopes };
    }
    const key = await deps.apiKeys.authenticate(secret);
    if (!key) return null;
    keyBuckets.take(key.id);
    deps.keyUsage.record(key.id, deps.clock.now());
    return { kind: 'key', userId: key.userId, keyId: key.id, scopes: key.scopes };
  }

  async function fromSession(ctx: Context): Promise<Caller | null | undefined> {
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (!token) return undefined;
    return deps.sessions.callerOf(token);
  }

  // SameSite=Lax already keeps cross-site POSTs cookie-less; beyond it, a state-changing request on a
  // session must prove where it came from (OWASP's CSRF guidance): its Origin, else its Referer,
  // else Sec-Fetch-Site. A foreign one is refused, and so is a request with none of them: every
  // browser sends Origin on a POST, PUT, PATCH or DELETE, and a program holding a cookie can send it
  // too (or use an API key).
  function checkOrigin(ctx: Context) {
    const origin = ctx.get('Origin') || (ctx.get('Referer') ? safeOrigin(ctx.get('Referer')) : '');
    if (origin) {
      if (!deps.trustedOrigins.includes(origin)) {
        throw forbidden('origin_mismatch', 'Cookie-authenticated requests must come from the dashboard origin.');
      }
      return;
    }
    const site = ctx.get('Sec-Fetch-Site').toLowerCase();
    if (site === 'same-origin' || site === 'none') return;
    if (site) throw forbidden('origin_mismatch', 'Cookie-authenticated requests must come from the dashboard origin.');
    throw forbidden(
      'origin_required',
      'A cookie-authenticated request that changes something must say where it comes from: send an Origin header (or use an API key).',
    );
  }

  function declare(accept: { key?: Scope | 'any'; session?: boolean; device?: boolean }): Middleware {
    return async (ctx: Context, next: Next) => {
      let caller: Caller | null | undefined;
      if (accept.device) {
        const token = bearer(ctx);
        // A phone sends its token only; an API key or a cookie here is not its credential.
        if (token === null || ctx.get('X-Api-Key') || ctx.cookies.get(SESSION_COOKIE)) throw unauthenticated();
        const device = token && deps.devices ? await deps.devices(token) : undefined;
        if (device) deviceBuckets.take(device.deviceId);
        caller = device ? { kind: 'device', ...device } : device;
      } else {
        // An explicit API key wins over a cookie; a key on a session-only route is refused below.
        // Every credential presented must be valid, even the one that does not win.
        const key = await fromKey(ctx);
        const session = key === null ? null : await fromSession(ctx);
        if (key === null || session === null) throw unauthenticated();
        caller = key ?? session;
        if (caller?.kind === 'session' && UNSAFE.has(ctx.method)) checkOrigin(ctx);
      }
      if (!caller) throw unauthenticated();
      if (caller.kind === 'key') {
        if (!accept.key) throw unauthenticated('This operation needs a dashboard session; API keys cannot do it.');
        if (accept.key !== 'any' && !caller.scopes.includes(accept.key)) throw insufficientScope(accept.key);
      }
      if (caller.kind === 'session' && !accept.session) throw unauthenticated();
      ctx.state.caller = caller;
      await next();
    };
  }

  return {
    scope: (scope: Scope) => declare({ key: scope, session: true }),
    sessionOrKey: () => declare({ key: 'any', session: true }),
    session: () => declare({ session: true }),
    device: () => declare({ device: true }),
    /**
     * For a route that reads the session cookie itself (logout, which succeeds without a valid
     * session): a cookie-carrying unsafe request from a foreign Origin is refused all the same.
     */
    sameOrigin: (): Middleware => async (ctx, next) => {
      if (ctx.cookies.get(SESSION_COOKIE) && UNSAFE.has(ctx.method)) checkOrigin(ctx);
      await next();
    },
    operator: (): Middleware => async (ctx, next) => {
      if (!bearerIs(ctx.get('Authorization'), deps.operatorToken)) throw unauthenticated();
      await next();
    },
  };
}

export type Auth = ReturnType<typeof createAuth>;

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}
