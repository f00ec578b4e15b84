import type { Schemas } from '../api/client';

/** How long the dashboard's pairing codes live (the API's default is 10 minutes; 30 at most). */
export const CODE_MINUTES = 30;

type Reason = Schemas['PairingRefusal']['reason'];

/** Why a pairing attempt was refused and what to do next, in a person's words. */
export const REFUSAL_WORDS: Record<Reason, { what: string; next: string }> = {
  wrong: {
    what: 'A phone typed a code whose first three characters are right, but the rest is wrong.',
    next: 'Check the code letter by letter (it has no 0, O, 1, I or L) and type it again.',
  },
  used: {
    what: 'A phone tried a code that has already paired a phone.',
    next: 'Each code pairs one phone: create a new code.',
  },
  expired: {
    what: 'A phone tried a code after it expired.',
    next: `Create a new code and type it within its ${CODE_MINUTES} minutes.`,
  },
  rate_limited: {
    what: 'A phone was stopped: too many wrong codes were tried in a short time.',
    next: 'Wait 10 minutes, then create a new code.',
  },
  device_limit: {
    what: 'A phone tried a right code, but your plan’s phone limit is reached.',
    next: 'Unpair a phone you no longer use (or change plan on Account), then pair again: the code works until it expires.',
  },
};

/** Refusals shown on the card: those of the code on screen, and any in the last hour. */
export const RECENT_MS = 60 * 60_000;
