import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction';
import { ApiError } from '../http/errors';
import type { Clock } from '../lib/clock';
import type { SecretBox } from '../lib/secret-box';
import type { Sweep } from '../reconciler/reconciler.service';
import { idempotencyRepository } from './idempotency.repository';

/** How long a key answers with its first response. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const SWEEP_LIMIT = 5_000;

/** What a request answered: its status and JSON body. */
export interface Answer {
  status: number;
  body: unknown;
}

export interface IdempotentRequest {
  userId: string;
  key: string;
  /** What makes two requests "the same": method, path and body (see requestHash). */
  requestHash: string;
}

export interface IdempotencyDeps {
  em: () => EntityManager;
  clock: Clock;
  /** Answers can carry secrets shown once: they are sealed at rest as signing secrets are. */
  secretBox: SecretBox;
  /** Test-only: runs after the commit and before the answer (the crash test kills the process here). */
  afterCommit?: () => void;
}

export const keyInUse = () =>
  new ApiError(
    409,
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being processed; retry once it has finished.',
    undefined,
    { 'Retry-After': '1' },
  );
export const keyReused = () =>
  new ApiError(
    422,
    'idempotency_key_reused',
    'This Idempotency-Key was used in the last 24 hours with a different request; use a new key.',
  );

/** JSON with object keys sorted, so that {"a":1,"b":2} and {"b":2,"a":1} are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The fingerprint a key is bound to: the same key on another endpoint or with another body differs. */
export const requestHash = (method: string, path: string, body: unknown): string =>
  createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonical(body ?? {})}`)
    .digest('hex');

/**
 * Stripe's Idempotency-Key semantics. The work and the stored answer commit in one transaction
 * (the work's own transactions nest in it as savepoints), under a transaction-scoped advisory lock
 * on (account, key): a repeat waits for nothing, it finds either the lock (409, still running) or
 * the committed answer (replayed, nothing done again). A refused or failed request rolls back and
 * leaves the key free, as Stripe does for requests that changed nothing.
 */
export function createIdempotencyService(deps: IdempotencyDeps) {
  const { em, clock } = deps;

  return {
    async run(request: IdempotentRequest, work: () => Promise<Answer>): Promise<{ answer: Answer; replayed: boolean }> {
      const { userId, key } = request;
      let replayed = false;
      const answer = await transaction(em(), async (tx) => {
        if (!(await idempotencyRepository.tryLock(tx, userId, key))) throw keyInUse();
        const now = clock.now();
        const stored = await idempotencyRepository.find(tx, userId, key);
        if (stored && stored.createdAt.getTime() > now.getTime() - IDEMPOTENCY_TTL_MS) {
          if (stored.requestHash !== request.requestHash) throw keyReused();
          replayed = true;
          return {
            status: stored.responseStatus,
            body: JSON.parse(deps.secretBox.open(stored.responseBody)) as unknown,
          };
        }
        // Expired and not swept yet: the key starts over.
        if (stored) await idempotencyRepository.remove(tx, userId, key);
        const done = await work();
        await idempotencyRepository.insert(tx, {
          userId,
          key,
          requestHash: request.requestHash,
          status: done.status,
          body: deps.secretBox.seal(JSON.stringify(done.body ?? null)),
          createdAt: now,
        });
        return done;
      });
      if (!replayed) deps.afterCommit?.();
      return { answer, replayed };
    },

    /** The reconciler's pass that removes keys past their 24 hours. */
    sweep(): Sweep {
      return {
        name: 'expired-idempotency-keys',
        routine: true,
        run: () =>
          idempotencyRepository.removeExpired(
            em().fork(),
            new Date(clock.now().getTime() - IDEMPOTENCY_TTL_MS),
            SWEEP_LIMIT,
          ),
      };
    },
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
