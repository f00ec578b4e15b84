import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import { Session } from './session.entity';

// The sign-in sessions (`sessions`). A live session is neither revoked nor past either expiry.

const live = (now: Date) => ({ revokedAt: null, expiresAt: { $gt: now }, absoluteExpiresAt: { $gt: now } });

export const sessionsRepository = {
  liveByTokenHash: (em: EntityManager, tokenHash: string, now: Date) =>
    em.findOne(Session, { tokenHash, ...live(now) }),

  liveOfUser: (em: EntityManager, userId: string, id: string, now: Date) =>
    em.findOne(Session, { id, userId, ...live(now) }),

  /** The account's live sessions, most recently used first. */
  listLive: (em: EntityManager, userId: string, now: Date) =>
    em.find(Session, { userId, ...live(now) }, { orderBy: { lastSeenAt: 'desc', id: 'desc' } }),

  /** The addresses of the account's latest sessions (live or not) that recorded one, newest first. */
  async recentIps(em: EntityManager, userId: string, limit: number): Promise<string[]> {
    const sessions = await em.find(
      Session,
      { userId, ip: { $ne: null } },
      { fields: ['ip'], orderBy: { createdAt: 'desc' }, limit },
    );
    return sessions.flatMap((session) => (session.ip ? [session.ip] : []));
  },

  async insert(em: EntityManager, data: RequiredEntityData<Session>): Promise<Session> {
    const session = em.create(Session, data);
    await em.flush();
    return session;
  },

  /** Sets `changes` on the loaded session and writes them. */
  async update(
    em: EntityManager,
    session: Session,
    changes: Partial<Pick<Session, 'lastSeenAt' | 'expiresAt' | 'revokedAt'>>,
  ): Promise<void> {
    Object.assign(session, changes);
    await em.flush();
  },

  /** Revokes every unrevoked session of the account but `keepId` (all of them without it). */
  async revokeAll(em: EntityManager, userId: string, at: Date, keepId?: string): Promise<void> {
    await em.nativeUpdate(
      Session,
      { userId, revokedAt: null, ...(keepId ? { id: { $ne: keepId } } : {}) },
      { revokedAt: at },
    );
  },
};
