import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../http/errors';
import type { Clock } from '../lib/clock';
import { randomToken, sha256 } from '../lib/crypto';
import { accountsRepository } from './accounts.repository';
import type { Session } from './session.entity';
import { sessionsRepository } from './sessions.repository';
import type { User } from './user.entity';
import type { SessionCaller } from '../http/auth';

declare module '../http/auth' {
  interface SessionCaller {
    session: Session;
    user: User;
  }
}

const DAY = 86_400_000;
export const SESSION_IDLE_MS = 30 * DAY;
export const SESSION_MAX_MS = 180 * DAY;
// last_seen_at is written at most once a minute per session, not on every request.
const TOUCH_EVERY_MS = 60_000;

export interface SessionOrigin {
  ip?: string | null;
  userAgent?: string | null;
}

export function createSessionsService({ em, clock }: { em: () => EntityManager; clock: Clock }) {
  /** The live session behind a cookie value, slid forward (30 days idle, 180 at most), with its user. */
  async function resolve(token: string): Promise<{ session: Session; user: User } | null> {
    const now = clock.now();
    const session = await sessionsRepository.liveByTokenHash(em(), sha256(token), now);
    if (!session) return null;
    const user = await accountsRepository.findUser(em(), session.userId);
    if (!user) return null;
    if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      await sessionsRepository.update(em(), session, {
        lastSeenAt: now,
        expiresAt: new Date(Math.min(now.getTime() + SESSION_IDLE_MS, session.absoluteExpiresAt.getTime())),
      });
    }
    return { session, user };
  }

  return {
    /** A new session (login, register, Google): the cookie value is returned once, only its hash kept. */
    async create(userId: string, origin: SessionOrigin): Promise<{ session: Session; token: string }> {
      const now = clock.now();
      const token = randomToken(32);
      const session = await sessionsRepository.insert(em(), {
        userId,
        tokenHash: sha256(token),
        ip: origin.ip ?? null,
        userAgent: origin.userAgent?.slice(0, 512) ?? null,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + SESSION_IDLE_MS),
        absoluteExpiresAt: new Date(now.getTime() + SESSION_MAX_MS),
      });
      return { session, token };
    },

    /** The signed-in caller a session cookie names (the auth middleware asks on every request). */
    async callerOf(token: string): Promise<SessionCaller | null> {
      const found = await resolve(token);
      return found && { kind: 'session', userId: found.user.id, ...found };
    },

    resolve,

    /** Live sessions, most recently used first. */
    list: (userId: string) => sessionsRepository.listLive(em(), userId, clock.now()),

    async revoke(userId: string, id: string): Promise<void> {
      const session = await sessionsRepository.liveOfUser(em(), userId, id, clock.now());
      if (!session) throw notFound('session');
      await sessionsRepository.update(em(), session, { revokedAt: clock.now() });
    },

    /** Ends every live session of the account except `keepId` (all of them without it). */
    async revokeAll(userId: string, keepId?: string): Promise<void> {
      await sessionsRepository.revokeAll(em(), userId, clock.now(), keepId);
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
