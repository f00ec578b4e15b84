import { createSign } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/logger';
import type { Background } from '../lib/background';
import { devicesRepository } from './devices.repository';

/** What a push provider reports about one message. */
export type PushOutcome =
  { kind: 'sent' } | { kind: 'invalid_token'; reason: string } | { kind: 'failed'; error: string };

/** Delivers a data message to one phone. */
export interface PushProvider {
  send(token: string, data: Record<string, string>): Promise<PushOutcome>;
}

export interface FcmOptions {
  projectId: string;
  clientEmail: string;
  privateKey: string;
  endpoint: string;
  tokenUrl: string;
  now?: () => number;
  timeoutMs?: number;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/**
 * FCM HTTP v1: an OAuth2 access token from a service-account JWT (RS256, jwt-bearer grant), cached
 * until shortly before it expires, then `messages:send`.
 */
export function createFcmProvider(options: FcmOptions): PushProvider {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Environment files often carry the PEM with literal "\n".
  const privateKey = options.privateKey.replace(/\\n/g, '\n');
  let cached: { token: string; expiresAt: number } | undefined;

  function assertion(): string {
    const iat = Math.floor(now() / 1000);
    const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
    const claims = b64url(
      JSON.stringify({ iss: options.clientEmail, scope: SCOPE, aud: options.tokenUrl, iat, exp: iat + 3600 }),
    );
    const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(privateKey);
    return `${header}.${claims}.${b64url(signature)}`;
  }

  async function accessToken(): Promise<string> {
    if (cached && cached.expiresAt > now()) return cached.token;
    const res = await fetch(options.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: assertion() }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`FCM token endpoint answered ${res.status}`);
    const body = (await res.json()) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new Error('FCM token endpoint returned no access_token');
    // A minute early, so a token never expires between the check and its use.
    cached = { token: body.access_token, expiresAt: now() + ((body.expires_in ?? 3600) - 60) * 1000 };
    return cached.token;
  }

  return {
    async send(token, data) {
      const res = await fetch(
        `${options.endpoint.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(options.projectId)}/messages:send`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await accessToken()}` },
          body: JSON.stringify({ message: { token, data } }),
          signal: AbortSignal.timeout(timeoutMs),
        },
      );
      if (res.ok) return { kind: 'sent' };
      if (res.status === 401) cached = undefined;
      const body = (await res.json().catch(() => ({}))) as FcmError;
      const reason = invalidTokenReason(res.status, body);
      if (reason) return { kind: 'invalid_token', reason };
      return { kind: 'failed', error: `FCM answered ${res.status} ${body.error?.status ?? ''}`.trim() };
    },
  };
}

interface FcmError {
  error?: {
    status?: string;
    message?: string;
    details?: Array<{ errorCode?: string; fieldViolations?: Array<{ field?: string }> }>;
  };
}

/** FCM's ways of saying the registration token will never work again. */
function invalidTokenReason(status: number, body: FcmError): string | null {
  const error = body.error ?? {};
  const codes = (error.details ?? []).map((d) => d.errorCode);
  if (codes.includes('UNREGISTERED') || (status === 404 && error.status === 'NOT_FOUND')) return 'unregistered';
  const aboutToken =
    /token/i.test(error.message ?? '') ||
    (error.details ?? []).some((d) => (d.fieldViolations ?? []).some((v) => /token/i.test(v.field ?? '')));
  if (status === 400 && error.status === 'INVALID_ARGUMENT' && aboutToken) return 'invalid_token';
  return null;
}

/** FCM when its credentials are configured; otherwise none, and phones catch up on their next heartbeat. */
export function pushProviderFor(config: Config): PushProvider | null {
  const { projectId, clientEmail, privateKey, endpoint, tokenUrl } = config.fcm;
  if (!projectId || !clientEmail || !privateKey) return null;
  return createFcmProvider({ projectId, clientEmail, privateKey, endpoint, tokenUrl });
}

/** The push target: what a device row says about reaching it. */
export interface PushTarget {
  id: string;
  pushToken?: string | null;
  pushTokenInvalidReason?: string | null;
}

export interface PushDeps {
  provider: PushProvider | null;
  em: () => EntityManager;
  clock: Clock;
  logger: Logger;
  background: Background;
}

/**
 * Tells phones to act now instead of at their next heartbeat. Never awaited by a request and never
 * failing one: an unreachable FCM is logged and the heartbeat catches up.
 */
export function createPush({ provider, em, clock, logger, background }: PushDeps) {
  async function send(device: PushTarget, type: string): Promise<void> {
    const token = device.pushToken;
    if (!provider || !token || device.pushTokenInvalidReason) return;
    const outcome = await provider.send(token, { type });
    if (outcome.kind === 'invalid_token') {
      // Only the token that was refused: a newer one the phone sent meanwhile stays valid.
      await devicesRepository.invalidatePushToken(em(), device.id, token, outcome.reason, clock.now());
      logger.info({ device_id: device.id, reason: outcome.reason }, 'push token invalidated');
    } else if (outcome.kind === 'failed') {
      logger.warn({ device_id: device.id, error: outcome.error }, 'push failed');
    }
  }

  const target = (device: PushTarget): PushTarget => ({
    id: device.id,
    pushToken: device.pushToken,
    pushTokenInvalidReason: device.pushTokenInvalidReason,
  });

  return {
    enabled: provider !== null,
    /** The phone should reload its settings (GET /v1/device). */
    settingsChanged(device: PushTarget): void {
      const to = target(device);
      background.run('settings push', () => send(to, 'settings'));
    },
    /** The phone should fetch its outbox now (messaging). */
    wake(device: PushTarget): void {
      const to = target(device);
      background.run('wake push', () => send(to, 'wake'));
    },
    /** Resolves when every push in flight has been answered or has failed (tests, shutdown). */
    idle: () => background.idle(),
    /** Awaited, for activities (which report their own failures): wakes a phone by id. */
    async wakeNow(deviceId: string): Promise<void> {
      const to = await devicesRepository.pushTarget(em(), deviceId);
      if (to) await send(to, 'wake');
    },
  };
}

export type Push = ReturnType<typeof createPush>;
