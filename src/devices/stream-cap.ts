import { ApiError } from '../http/errors';

export interface StreamCapLimits {
  /** Open event streams one phone may hold (a reconnecting app briefly holds two). */
  perDevice: number;
  /** Open event streams of all of one account's phones together. */
  perAccount: number;
}

/** Seconds a refused stream is told to wait before it opens again. */
const RETRY_AFTER_SECONDS = 5;

const tooManyStreams = (message: string) =>
  new ApiError(429, 'too_many_streams', message, undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS) });

/**
 * Caps the phones' open event streams (GET /v1/device/events, the SMSGate app's stream) per phone
 * and per account, in this process's memory, as the request rates are: each stream holds a socket
 * and a place in the phone channel for as long as it is open, so one token must not hold hundreds.
 */
export function createStreamCap(limits: StreamCapLimits) {
  const byDevice = new Map<string, number>();
  const byAccount = new Map<string, number>();
  const add = (counts: Map<string, number>, id: string, step: number) => {
    const next = (counts.get(id) ?? 0) + step;
    if (next > 0) counts.set(id, next);
    else counts.delete(id);
  };

  return {
    /**
     * Takes a place for one stream of `phone`, or throws 429 too_many_streams (with Retry-After).
     * Returns the function that gives the place back; calling it again does nothing.
     */
    admit(phone: { userId: string; deviceId: string }): () => void {
      if ((byDevice.get(phone.deviceId) ?? 0) >= limits.perDevice)
        throw tooManyStreams(`This phone already has ${limits.perDevice} open event streams.`);
      if ((byAccount.get(phone.userId) ?? 0) >= limits.perAccount)
        throw tooManyStreams(`This account's phones already have ${limits.perAccount} open event streams.`);
      add(byDevice, phone.deviceId, 1);
      add(byAccount, phone.userId, 1);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        add(byDevice, phone.deviceId, -1);
        add(byAccount, phone.userId, -1);
      };
    },

    /** Streams open in this process. */
    size: () => [...byDevice.values()].reduce((sum, n) => sum + n, 0),
  };
}

export type StreamCap = ReturnType<typeof createStreamCap>;
