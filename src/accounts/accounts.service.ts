import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, conflict, forbidden, notFound, validationFailed } from '../http/errors';
import { LIMITS, networkOf, type RateLimiter } from '../http/rate-limit';
import type { Clock } from '../lib/clock';
import { normalizeEmail } from '../lib/fields';
import type { Logger } from '../lib/logger';
import type { PlansService } from '../plans/plans.service';
import type { BotCheck } from './bot-check';
import { invalidCode, type EmailCodesService } from './email-codes.service';
import type { Mailer } from './mailer';
import { hashPassword, verifyPassword } from './passwords';
import type { SessionOrigin, SessionsService } from './sessions.service';
import type { User } from './user.entity';
import { accountsRepository } from './accounts.repository';
import { sessionsRepository } from './sessions.repository';

export interface AccountsDeps {
  em: () => EntityManager;
  clock: Clock;
  logger: Logger;
  sessions: SessionsService;
  codes: EmailCodesService;
  mailer: Mailer;
  botCheck: BotCheck;
  limiter: RateLimiter;
  plans: PlansService;
  defaultPlan: string;
}

export interface Origin extends SessionOrigin {
  ip: string;
}

const invalidCredentials = () => new ApiError(401, 'invalid_credentials', 'The email or password is wrong.');

const MAX_REMEMBERED_VERIFIED = 100_000;

export function createAccountsService(deps: AccountsDeps) {
  const { em, clock, sessions, codes, mailer, limiter } = deps;

  /**
   * The account of an address in its one form (normalizeEmail). An account stored before that form
   * (trimmed and lower-cased only) is found by that older form too, so it still signs in.
   */
  async function findByEmail(email: string): Promise<User | null> {
    const normal = normalizeEmail(email);
    const legacy = email.trim().toLowerCase();
    if (legacy === normal) return accountsRepository.userByEmail(em(), normal);
    const found = await accountsRepository.usersByEmails(em(), [normal, legacy]);
    return found.find((user) => user.email === normal) ?? found[0] ?? null;
  }
  // Mails sent after the answer; shutdown (and a test) waits for them rather than dropping them.
  const mailsInFlight = new Set<Promise<void>>();
  // Accounts seen verified: an address once verified stays so (nothing sets it back), so a send
  // needs no query for them.
  const verified = new Set<string>();

  /** Whether the account has a session (live or not) started from that network (networkOf). */
  async function signedInFrom(userId: string, network: string): Promise<boolean> {
    const ips = await sessionsRepository.recentIps(em(), userId, 200);
    return ips.some((ip) => networkOf(ip) === network);
  }

  async function mailCode(user: User, purpose: 'verify' | 'reset'): Promise<void> {
    await limiter.hit(`mail:${user.email}`, LIMITS.mailsPerAddress);
    const code = await codes.issue(user.id, purpose);
    if (!code) return; // asked again within a minute: the code already mailed still works
    const text =
      purpose === 'verify'
        ? `Your verification code is ${code}. It expires in 10 minutes.`
        : `Your password reset code is ${code}. It expires in 10 minutes. If you did not ask for it, ignore this email.`;
    await mailer.send({
      to: user.email,
      subject: purpose === 'verify' ? 'Verify your email' : 'Reset your password',
      text,
    });
  }

  return {
    findByEmail,
    /** Resolves once every mail started in the background has been sent or has failed. */
    async mailsSent(): Promise<void> {
      while (mailsInFlight.size > 0) await Promise.all(mailsInFlight);
    },
    getUser: (id: string) => accountsRepository.getUser(em(), id),

    async register(
      input: { email: string; password: string; name?: string | null; turnstileToken?: string | null },
      origin: Origin,
    ) {
      await limiter.hit(`register:ip:${networkOf(origin.ip)}`, LIMITS.registerPerIp);
      await deps.botCheck.verify(input.turnstileToken ?? undefined, origin.ip);
      const email = normalizeEmail(input.email);
      if (await findByEmail(input.email)) throw conflict('email_taken', 'An account with this email already exists.');
      const now = clock.now();
      const data = {
        email,
        name: input.name ?? null,
        passwordHash: await hashPassword(input.password),
        planId: deps.defaultPlan,
        onboarding: {},
        createdAt: now,
        updatedAt: now,
        lastLoginAt: now,
      };
      let user: User;
      try {
        user = await accountsRepository.insertUser(em(), data);
      } catch (error) {
        // Two registrations of one address racing: the unique index decides.
        if ((error as { code?: string }).code === '23505')
          throw conflict('email_taken', 'An account with this email already exists.');
        throw error;
      }
      const { token } = await sessions.create(user.id, origin);
      await mailCode(user, 'verify').catch((error) => deps.logger.error({ err: error }, 'verification email failed'));
      return { user, token };
    },

    /** Same answer and similar time for an unknown email and a wrong password. */
    async login(input: { email: string; password: string; turnstileToken?: string | null }, origin: Origin) {
      const network = networkOf(origin.ip);
      await limiter.hit(`login:ip:${network}`, LIMITS.loginPerIp);
      await deps.botCheck.verify(input.turnstileToken ?? undefined, origin.ip);
      const email = normalizeEmail(input.email);
      // Wrong passwords lock out the network they come from. Past the account-wide count, only
      // networks the account has signed in from before may still try (each within its own count):
      // a flood from elsewhere cannot lock the owner out, and guessing stays bounded everywhere.
      const networkFailures = `login-failures:${email}:${network}`;
      const accountFailures = `login-failures:${email}`;
      await limiter.check(networkFailures, LIMITS.loginFailuresPerAccountAndIp);
      const user = await findByEmail(input.email);
      await limiter.check(accountFailures, LIMITS.loginFailuresPerAccount).catch(async (error: unknown) => {
        if (!user || !(await signedInFrom(user.id, network))) throw error;
      });
      const ok = await verifyPassword(user?.passwordHash, input.password);
      if (!user || !ok) {
        await limiter.hit(networkFailures, LIMITS.loginFailuresPerAccountAndIp).catch(() => undefined);
        await limiter.hit(accountFailures, LIMITS.loginFailuresPerAccount).catch(() => undefined);
        throw invalidCredentials();
      }
      await accountsRepository.updateUser(em(), user, { lastLoginAt: clock.now() });
      const { token } = await sessions.create(user.id, origin);
      return { user, token };
    },

    async changePassword(user: User, input: { currentPassword: string; newPassword: string }, keepSessionId: string) {
      if (!(await verifyPassword(user.passwordHash, input.currentPassword))) {
        throw validationFailed([{ field: 'body.current_password', message: 'current_password is wrong' }]);
      }
      await accountsRepository.updateUser(em(), user, { passwordHash: await hashPassword(input.newPassword) });
      await sessions.revokeAll(user.id, keepSessionId);
    },

    /** The account-wide settings (failover). */
    async settings(userId: string): Promise<{ failover: boolean }> {
      const row = await accountsRepository.settings(em(), userId);
      if (!row) throw notFound('account');
      return row;
    },

    async updateSettings(userId: string, patch: { failover?: boolean }): Promise<{ failover: boolean }> {
      const row = await accountsRepository.updateSettings(em(), userId, patch, clock.now());
      if (!row) throw notFound('account');
      return row;
    },

    async updateProfile(user: User, input: { name?: string | null }) {
      await accountsRepository.updateUser(em(), user, input.name !== undefined ? { name: input.name } : {});
      return user;
    },

    sendVerification: (user: User) => (user.emailVerifiedAt ? Promise.resolve() : mailCode(user, 'verify')),

    async verifyEmail(user: User, code: string, origin: Origin) {
      await limiter.hit(`code:ip:${networkOf(origin.ip)}`, LIMITS.codeChecksPerIp);
      if (user.emailVerifiedAt) return user;
      await codes.consume(user.id, 'verify', code);
      await accountsRepository.updateUser(em(), user, { emailVerifiedAt: clock.now() });
      return user;
    },

    /** Always the same outcome for the caller; only a known address gets a code. */
    async requestReset(input: { email: string; turnstileToken?: string | null }, origin: Origin) {
      await limiter.hit(`reset:ip:${networkOf(origin.ip)}`, LIMITS.resetRequestsPerIp);
      await deps.botCheck.verify(input.turnstileToken ?? undefined, origin.ip);
      const user = await findByEmail(input.email);
      if (!user) return;
      // Not awaited: the mail round trip would otherwise tell a known address from an unknown one.
      const mail = mailCode(user, 'reset')
        .catch((error) => {
          if (!(error instanceof ApiError)) deps.logger.error({ err: error }, 'reset email failed');
        })
        .finally(() => mailsInFlight.delete(mail));
      mailsInFlight.add(mail);
    },

    async resetPassword(input: { email: string; code: string; newPassword: string }, origin: Origin) {
      await limiter.hit(`code:ip:${networkOf(origin.ip)}`, LIMITS.codeChecksPerIp);
      const user = await findByEmail(input.email);
      if (!user) throw invalidCode();
      await codes.consume(user.id, 'reset', input.code);
      await accountsRepository.updateUser(em(), user, {
        passwordHash: await hashPassword(input.newPassword),
        // Whoever can read the mailbox owns the address.
        emailVerifiedAt: user.emailVerifiedAt ?? clock.now(),
      });
      await sessions.revokeAll(user.id);
    },

    /** The single check the messaging feature calls before accepting a send. */
    async assertCanSend(userId: string): Promise<void> {
      if (verified.has(userId)) return;
      if (!(await accountsRepository.emailVerified(em(), userId)))
        throw forbidden('email_unverified', 'Verify your email address before sending messages.');
      if (verified.size >= MAX_REMEMBERED_VERIFIED) verified.clear();
      verified.add(userId);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
