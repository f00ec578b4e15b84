import type { Context, Middleware, Next } from 'koa';
import type { Scope } from '../api-keys/api-key.entity';
import type { ApiKeysService, KeyUsageRecorder } from '../api-keys/api-keys.service';
import type { SessionsService } from '../accounts/sessions.service';
import type { Session } from '../accounts/session.entity';
import type { User } from '../accounts/user.entity';
import type { Clock } from '../lib/clock';
import { forbidden, insufficientScope, rateLimited, unauthenticated } from './errors';

export const SESSION_COOKIE = 'sid';

/** Who is calling. Every query a route makes is scoped by `userId`. */
export type Caller =
  | { kind: 'key'; userId: string; keyId: string; scopes: readonly Scope[] }
  | { kind: 'session'; userId: string; session: Session; user: User }
  | { kind: 'device'; userId: string; deviceId: string };

declare module 'koa' {
  interface DefaultState {
    caller?: Caller;
  }
}

/** Resolves a phone's device token (provided by the devices feature). */
export type DeviceAuthenticator = (token: string) => Promise<{ userId: string; deviceId: string } | null>;

export interface AuthDeps {
  apiKeys: ApiKeysService;
  keyUsage: KeyUsageRecorder;
  sessions: SessionsService;
  devices?: DeviceAuthenticator;
  clock: Clock;
  /** Origins allowed to make cookie-authenticated unsafe requests (PUBLIC_URL, DASHBOARD_URL). */
  trustedOrigins: string[];
  /** Per API key: sustained requests per second and burst. */
  keyRate?: { perSecond: number; burst: number };
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function bearer(ctx: Context): string | undefined {
  const header = ctx.get('Authorization');
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

export function callerOf(ctx: Context): Caller {
  const caller = ctx.state.caller;
  if (!caller) throw unauthenticated();
  return caller;
}

/**
 * The one authentication middleware, declared per route:
 *   auth.scope('read')   an API key with that scope, or a dashboard session
 *   auth.sessionOrKey()  a dashboard session or any API key (GET /v1/auth/me)
 *   auth.session()       a dashboard session only: API keys are refused
 *   auth.device()        a phone's device token only
 * Routes with no declaration need no credentials.
 */
export function createAuth(deps: AuthDeps) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const rate = deps.keyRate ?? { perSecond: 50, burst: 100 };

  function throttleKey(keyId: string) {
    const now = Date.now();
    const bucket = buckets.get(keyId) ?? { tokens: rate.burst, at: now };
    bucket.tokens = Math.min(rate.burst, bucket.tokens + ((now - bucket.at) / 1000) * rate.perSecond);
    bucket.at = now;
    buckets.set(keyId, bucket);
    if (bucket.tokens < 1) throw rateLimited((1 - bucket.tokens) / rate.perSecond);
    bucket.tokens -= 1;
    if (buckets.size > 10_000) buckets.clear();
  }

  async function fromKey(ctx: Context): Promise<Caller | null | undefined> {
    const presented = ctx.get('X-Api-Key') || bearer(ctx);
    if (!presented) return undefined;
    const key = await deps.apiKeys.authenticate(presented);
    if (!key) return null;
    throttleKey(key.id);
    deps.keyUsage.record(key.id, deps.clock.now());
    return { kind: 'key', userId: key.userId, keyId: key.id, scopes: key.scopes };
  }

  async function fromSession(ctx: Context): Promise<Caller | null | undefined> {
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (!token) return undefined;
    const found = await deps.sessions.resolve(token);
    if (!found) return null;
    if (UNSAFE.has(ctx.method)) checkOrigin(ctx);
    return { kind: 'session', userId: found.user.id, session: found.session, user: found.user };
  }

  // SameSite=Lax already keeps cross-site POSTs cookie-less; this also refuses a foreign Origin
  // (or Referer) outright. Clients that send neither (curl, servers) are not browsers.
  function checkOrigin(ctx: Context) {
    const origin = ctx.get('Origin') || (ctx.get('Referer') ? safeOrigin(ctx.get('Referer')) : '');
    if (origin && !deps.trustedOrigins.includes(origin)) {
      throw forbidden('origin_mismatch', 'Cookie-authenticated requests must come from the dashboard origin.');
    }
  }

  function declare(accept: { key?: Scope | 'any'; session?: boolean; device?: boolean }): Middleware {
    return async (ctx: Context, next: Next) => {
      let caller: Caller | null | undefined;
      if (accept.device) {
        const token = bearer(ctx);
        caller =
          token && deps.devices
            ? await deps.devices(token).then((d) => (d ? { kind: 'device' as const, ...d } : null))
            : undefined;
      } else {
        // An explicit API key wins over a cookie; a key on a session-only route is refused below.
        caller = (await fromKey(ctx)) ?? undefined;
        if (caller === undefined) caller = await fromSession(ctx);
        if (caller === null) {
          throw unauthenticated();
        }
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
