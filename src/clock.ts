/** Source of the current time; injected so tests can move it (e.g. past midnight UTC). */
export interface Clock {
  now(): Date;
}

/** The real wall clock. */
export const systemClock: Clock = { now: () => new Date() };
