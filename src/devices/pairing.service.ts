import { newId } from '../lib/ids';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidCode } from '../accounts/email-codes.service';
import { transaction } from '../db/transaction';
import type { EventsService } from '../events/events.service';
import { ApiError, notFound } from '../http/errors';
import { LIMITS, networkOf, type RateLimiter } from '../http/rate-limit';
import type { Clock } from '../lib/clock';
import { randomFrom, randomToken, sha256 } from '../lib/crypto';
import type { PlansService } from '../plans/plans.service';
import type { Device, PairingCode, PairingRefusalReason } from './device.entity';
import { deviceRowsRepository } from './device-rows.repository';
import type { Liveness } from './liveness';
import { deviceView } from './devices.views';
import { pairingRepository } from './pairing.repository';

/** A code's life when the caller asks for none: the interface's 10 minutes. */
export const PAIRING_CODE_TTL_MS = 10 * 60_000;
// No 0/O, 1/I/L: codes are read off a screen and typed on a phone.
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

/**
 * A code's first characters name it, the rest prove it: a wrong guess whose first characters name a
 * live code counts against that code and its account. Three of eight: with five characters left
 * (31^5, about 29 million) and five wrong guesses per code and 10-minute window, whatever rate an
 * attacker has, a code living 10 minutes (at most two windows) is guessed with a chance below 1 in
 * 2 million, one living 30 minutes (at most four) below 1 in 1.4 million.
 */
const SELECTOR_LENGTH = 3;

/** Accepts the code as people type it: any case, with spaces or dashes. */
const normalizeCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');
const hashCode = (code: string) => sha256(`pairing:${code}`);
const hashSelector = (code: string) => sha256(`pairing-selector:${code.slice(0, SELECTOR_LENGTH)}`);

export interface PairingDeps {
  em: () => EntityManager;
  clock: Clock;
  limiter: RateLimiter;
  plans: PlansService;
  events: EventsService;
  liveness: Liveness;
  publicUrl: string;
  /** The phone's previous token stops working here at once (devices.service's credential cache). */
  forgetToken: (deviceId: string) => void;
}

export interface PairInput {
  code: string;
  hardwareKey: string;
  name?: string;
  brand?: string | null;
  buildId?: string | null;
  manufacturer?: string | null;
  model?: string | null;
  osVersion?: string | null;
  osApiLevel?: number | null;
  appVersionCode?: number | null;
  appVersionName?: string | null;
  pushToken?: string;
}

/** A code found by its whole hash, whatever its state. */
type SpentCode = { id: string; userId: string; consumedAt: Date | null };

export function createPairingService(deps: PairingDeps) {
  const { em, clock, limiter, plans, events, liveness } = deps;

  /**
   * Counts a refused attempt against each account code it named, for the dashboard's pairing card.
   * A code that names none of them (mistyped in its first characters, or made up) is told to no one.
   */
  async function refused(codes: { id: string; userId: string }[], reason: PairingRefusalReason, at: Date) {
    for (const code of codes) {
      await pairingRepository.recordRefusal(em(), {
        id: newId(),
        userId: code.userId,
        pairingCodeId: code.id,
        reason,
        at,
      });
    }
  }

  /** Finds or creates the phone for a hardware key; the plan limit applies only when one more phone goes live. */
  async function deviceFor(tx: EntityManager, userId: string, input: PairInput, now: Date) {
    const live = await deviceRowsRepository.pairedByHardwareKey(tx, userId, input.hardwareKey);
    if (live) return { device: live, cameBack: !live.online };
    await plans.admitOneMore(tx, userId, 'devices', () => deviceRowsRepository.countPaired(tx, userId));
    const isDefault = (await deviceRowsRepository.countPairedDefaults(tx, userId)) === 0;
    const previous = await deviceRowsRepository.lastUnpairedByHardwareKey(tx, userId, input.hardwareKey);
    if (previous) {
      // Re-paired: the same row, so its message history and counters carry on.
      previous.unpairedAt = null;
      previous.pairedAt = now;
      previous.isDefault = isDefault;
      return { device: previous, cameBack: false };
    }
    const name = [input.manufacturer ?? input.brand, input.model].filter(Boolean).join(' ') || 'Phone';
    const device = deviceRowsRepository.add(tx, {
      userId,
      name: name.slice(0, 100),
      hardwareKey: input.hardwareKey,
      isDefault,
      pairedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    return { device, cameBack: false };
  }

  return {
    async createCode(userId: string, ttlMs = PAIRING_CODE_TTL_MS) {
      const now = clock.now();
      // A selector no live code has, when one is found in a few draws (a shared one only means that
      // a wrong guess naming it counts against both codes).
      let plain = randomFrom(CODE_ALPHABET, CODE_LENGTH);
      for (let draw = 0; draw < 5 && (await pairingRepository.selectorTaken(em(), hashSelector(plain), now)); draw++) {
        plain = randomFrom(CODE_ALPHABET, CODE_LENGTH);
      }
      const code = await pairingRepository.insertCode(em(), {
        userId,
        codeHash: hashCode(plain),
        selectorHash: hashSelector(plain),
        expiresAt: new Date(now.getTime() + ttlMs),
        createdAt: now,
      });
      const pairUrl = `phonegateway://pair?${new URLSearchParams({ code: plain, server: deps.publicUrl })}`;
      return { code, plain, pairUrl };
    },

    async codeStatus(userId: string, id: string): Promise<{ code: PairingCode; device: Device | null }> {
      const code = await pairingRepository.ownedCode(em(), userId, id);
      if (!code) throw notFound('pairing code');
      const device = code.deviceId ? await deviceRowsRepository.pairedById(em(), code.deviceId) : null;
      return { code, device };
    },

    /** Refused attempts with the account's codes; another account's code is 404. */
    async refusals(userId: string, filter: { pairingCodeId?: string; cursor?: string; limit: number }) {
      if (filter.pairingCodeId && !(await pairingRepository.hasCode(em(), userId, filter.pairingCodeId))) {
        throw notFound('pairing code');
      }
      return pairingRepository.listRefusals(em(), userId, filter);
    },

    /**
     * Pairs a phone: the code is consumed by a guarded UPDATE (single use under concurrency), and a
     * repeat pairing of the same handset finds its device and replaces its token (the old one stops
     * working).
     *
     * Wrong codes are limited three ways. Per address (its network): past the limit its wrong
     * guesses are 429, but a right, unexpired code still pairs, so someone else's guesses behind a
     * shared address cannot keep a person from pairing. Per code and per account: a wrong guess whose
     * first characters name a live code counts against it and its account, and past either limit
     * that code (or every code of that account) is void, right or not, until the window ends: these
     * bound the chance of guessing a code whatever the number of addresses or the rate.
     *
     * Every refusal that names one of an account's codes (wrong, used, expired, rate limited, or the
     * plan's device limit) is counted for that account (`refused`): the phone is only told
     * invalid_code, and the SMSGate app closes on it, so the dashboard's pairing card tells why.
     */
    async pair(input: PairInput, ip: string): Promise<{ device: Device; token: string }> {
      const addressKey = `pair:ip:${networkOf(ip)}`;
      const now = clock.now();
      const typed = normalizeCode(input.code);
      const named =
        typed.length === CODE_LENGTH ? await pairingRepository.liveBySelector(em(), hashSelector(typed), now) : [];
      const match = named.find((code) => code.codeHash === hashCode(typed));
      const over = (key: string, window: (typeof LIMITS)['pairingPerCode']) =>
        limiter.check(key, window).then(
          () => false,
          (error: unknown) => {
            if (error instanceof ApiError && error.code === 'rate_limited') return true;
            throw error;
          },
        );
      const codeKey = (id: string) => `pair:code:${id}`;
      const accountKey = (userId: string) => `pair:account:${userId}`;
      const voided =
        match !== undefined &&
        ((await over(codeKey(match.id), LIMITS.pairingPerCode)) ||
          (await over(accountKey(match.userId), LIMITS.pairingPerAccount)));
      /** The account codes a refused guess names: the used or expired code it is, else the live codes it begins like. */
      const namedBy = async (): Promise<{ spent: SpentCode[]; near: { id: string; userId: string }[] }> => {
        const spent = typed.length === CODE_LENGTH ? await pairingRepository.byHash(em(), hashCode(typed)) : [];
        return { spent, near: spent.length > 0 ? [] : named.filter((code) => code !== match) };
      };
      // A wrong guess from an address past its limit is refused before anything else; a right code passes.
      if (!match || voided) {
        await limiter.check(addressKey, LIMITS.pairingPerIp).catch(async (error: unknown) => {
          if (error instanceof ApiError && error.code === 'rate_limited') {
            const { spent, near } = await namedBy();
            await refused([...spent, ...near], 'rate_limited', now);
          }
          throw error;
        });
      }
      /** A wrong guess counts against its address, and against each live code it named and their accounts. */
      const countWrong = async () => {
        await limiter.hit(addressKey, LIMITS.pairingPerIp).catch(() => undefined);
        for (const code of named) {
          if (code === match) continue;
          await limiter.hit(codeKey(code.id), LIMITS.pairingPerCode).catch(() => undefined);
          await limiter.hit(accountKey(code.userId), LIMITS.pairingPerAccount).catch(() => undefined);
        }
      };
      if (voided) {
        await countWrong();
        await refused([match], 'rate_limited', now);
        throw invalidCode();
      }
      const token = randomToken(32);
      let device: Device;
      /** The code this attempt consumed, until a rollback gives it back (the plan's device limit). */
      let consumed: { id: string; userId: string } | undefined;
      try {
        device = await transaction(em(), async (tx) => {
          const code = await pairingRepository.consume(tx, hashCode(typed), now);
          if (!code) throw invalidCode();
          consumed = code;
          const userId = code.userId;
          // Pairings of one account queue here, so two racing for one handset find one device.
          await plans.lockAccount(tx, userId);
          const { device, cameBack } = await deviceFor(tx, userId, input, now);
          if (input.name !== undefined) device.name = input.name;
          for (const field of ['brand', 'buildId', 'manufacturer', 'model', 'osVersion'] as const) {
            if (input[field] !== undefined) device[field] = input[field];
          }
          if (input.osApiLevel !== undefined) device.osApiLevel = input.osApiLevel;
          if (input.appVersionCode !== undefined) device.appVersionCode = input.appVersionCode;
          if (input.appVersionName !== undefined) device.appVersionName = input.appVersionName;
          if (input.pushToken !== undefined && input.pushToken !== device.pushToken) {
            device.pushToken = input.pushToken;
            device.pushTokenInvalidReason = null;
            device.pushTokenInvalidatedAt = null;
          }
          device.tokenHash = sha256(token);
          device.online = true;
          device.lastHeartbeatAt = now;
          await deviceRowsRepository.writeChanges(tx);
          await pairingRepository.linkDevice(tx, code.id, device.id);
          if (cameBack) {
            await events.emit(tx, { userId, name: 'device.online', data: deviceView(device), deviceId: device.id });
          }
          return device;
        });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_code') {
          await countWrong();
          const { spent, near } = await namedBy();
          for (const code of spent) await refused([code], code.consumedAt ? 'used' : 'expired', now);
          await refused(near, 'wrong', now);
        } else if (error instanceof ApiError && error.code === 'plan_limit_devices' && consumed) {
          await refused([consumed], 'device_limit', now);
        }
        throw error;
      }
      deps.forgetToken(device.id);
      liveness.heartbeat(device, true);
      return { device, token };
    },
  };
}

export type PairingService = ReturnType<typeof createPairingService>;
