import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import { query, sql } from '../db/sql';
import { User } from './user.entity';

// The account rows (`users`): the entity reads and writes the services make, and the SQL that is not
// a plain entity read or write.

/** What a service may change on a loaded account. */
export type UserChanges = Partial<
  Pick<User, 'name' | 'passwordHash' | 'emailVerifiedAt' | 'lastLoginAt' | 'googleSub' | 'avatarUrl'>
>;

export const accountsRepository = {
  /** The account; fails (NotFoundError, a 404) when there is none. */
  getUser: (em: EntityManager, id: string) => em.findOneOrFail(User, { id }),

  findUser: (em: EntityManager, id: string) => em.findOne(User, { id }),

  userByEmail: (em: EntityManager, email: string) => em.findOne(User, { email }),

  /** The accounts stored under any of `emails` (an address's current and older normal forms). */
  usersByEmails: (em: EntityManager, emails: string[]) => em.find(User, { email: { $in: emails } }),

  userByGoogleSub: (em: EntityManager, googleSub: string) => em.findOne(User, { googleSub }),

  /** A new account, written by this call; a taken address fails on the unique index (23505). */
  async insertUser(em: EntityManager, data: RequiredEntityData<User>): Promise<User> {
    const user = em.create(User, data);
    await em.flush();
    return user;
  },

  /** A new account, written with the next `updateUser` on the same EntityManager. */
  addUser: (em: EntityManager, data: RequiredEntityData<User>): User => em.create(User, data),

  /** Sets `changes` on the loaded account and writes them, with whatever else the EntityManager holds. */
  async updateUser(em: EntityManager, user: User, changes: UserChanges): Promise<void> {
    Object.assign(user, changes);
    await em.flush();
  },

  /** Whether the account's email is verified (every send asks); undefined for an unknown account. */
  async emailVerified(em: EntityManager, userId: string): Promise<boolean | undefined> {
    const [row] = await query<{ verified: boolean }>(
      em,
      sql`select email_verified_at is not null as verified from users where id = ${userId}`,
    );
    return row?.verified;
  },

  /** The account's settings (GET /v1/account/settings). */
  async settings(em: EntityManager, userId: string): Promise<{ failover: boolean } | undefined> {
    const [row] = await query<{ failover: boolean }>(em, sql`select failover from users where id = ${userId}`);
    return row;
  },

  async updateSettings(em: EntityManager, userId: string, patch: { failover?: boolean }, at: Date) {
    const [row] = await query<{ failover: boolean }>(
      em,
      sql`update users set failover = coalesce(${patch.failover ?? null}::boolean, failover), updated_at = ${at}
           where id = ${userId} returning failover`,
    );
    return row;
  },
};
