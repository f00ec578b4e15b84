import { newId } from '../lib/ids';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Emitted } from '../events/events.service';
import { notFound, validationFailed } from '../http/errors';
import type { Page } from '../http/pagination';
import type { Clock } from '../lib/clock';
import { normalizeNumber } from '../messages/recipients';
import { keywordOf } from './keywords';
import type { OptOut } from './opt-out.entity';
import { optOutsRepository } from './opt-outs.repository';

export interface OptOutsDeps {
  em: () => EntityManager;
  clock: Clock;
  defaultCountry?: string;
}

/**
 * The account's suppression list. Numbers get on it by texting an opt-out keyword to one of the
 * account's phones (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT) or through the API, and off it by
 * texting START or UNSTOP or through the API. Sends skip them (messages.service asks `suppressedAmong`).
 */
export function createOptOutsService(deps: OptOutsDeps) {
  const { em, clock } = deps;

  // Every stored inbound text becomes a message.received event, whichever path the phone used (our
  // phone API, the SMSGate app's webhooks): a keyword changes the list in the same transaction.
  async function applyKeywords(tx: EntityManager, emitted: Emitted[]): Promise<void> {
    for (const { input } of emitted) {
      if (input.name !== 'message.received') continue;
      const { body, sender, id } = input.data as { body?: string; sender?: string | null; id?: string };
      const keyword = typeof body === 'string' ? keywordOf(body) : null;
      if (!keyword || !sender) continue;
      // Alphanumeric senders and short codes cannot be sent to: nothing to suppress.
      const number = normalizeNumber(sender, deps.defaultCountry);
      if (!number) continue;
      if (keyword === 'out') {
        await optOutsRepository.insert(tx, {
          id: newId(),
          userId: input.userId,
          phoneNumber: number,
          source: 'inbound',
          messageId: id ?? null,
          now: clock.now(),
        });
      } else {
        await optOutsRepository.remove(tx, input.userId, number);
      }
    }
  }

  /** POST /v1/opt-outs: idempotent; `created` is false when the number was on the list already. */
  async function add(userId: string, phoneNumber: string): Promise<{ optOut: OptOut; created: boolean }> {
    const number = normalizeNumber(phoneNumber, deps.defaultCountry);
    if (!number) {
      throw validationFailed([{ field: 'body.phone_number', message: 'phone_number is not a valid phone number' }]);
    }
    const added = await optOutsRepository.insert(em(), {
      id: newId(),
      userId,
      phoneNumber: number,
      source: 'api',
      messageId: null,
      now: clock.now(),
    });
    if (added) return { optOut: added, created: true };
    const existing = await optOutsRepository.find(em(), userId, number);
    // Taken off the list again between the two statements: put it back.
    return existing ? { optOut: existing, created: false } : add(userId, phoneNumber);
  }

  return {
    applyKeywords,
    /** Which of these E.164 numbers the account suppresses. */
    suppressedAmong: (userId: string, numbers: string[]): Promise<Set<string>> =>
      optOutsRepository.suppressedAmong(em(), userId, numbers),

    /** A condition that holds when the account suppresses none of these numbers (SQL with its values). */
    noneSuppressed: optOutsRepository.noneSuppressed,

    /** GET /v1/opt-outs: newest first; with `phone_number`, that number's entry or none. */
    async list(
      userId: string,
      query: { cursor?: string; limit: number; phone_number?: string },
    ): Promise<Page<OptOut>> {
      if (query.phone_number === undefined) return optOutsRepository.list(em(), userId, query);
      const number = normalizeNumber(query.phone_number, deps.defaultCountry);
      if (!number) {
        throw validationFailed([{ field: 'query.phone_number', message: 'phone_number is not a valid phone number' }]);
      }
      return optOutsRepository.list(em(), userId, query, number);
    },

    add,

    /** DELETE /v1/opt-outs/{phone_number}: 404 when the number is not on the list (or is not a number). */
    async remove(userId: string, phoneNumber: string): Promise<void> {
      const number = normalizeNumber(phoneNumber, deps.defaultCountry);
      if (!number || !(await optOutsRepository.remove(em(), userId, number))) throw notFound('opt-out');
    },
  };
}

export type OptOutsService = ReturnType<typeof createOptOutsService>;
