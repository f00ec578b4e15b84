/** The time source of services, so tests can move it (session expiry, code expiry, usage days). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
