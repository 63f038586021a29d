// The time source of the core. Real time by default; tests and (later) the store's test clock
// replace it, so nothing in the core calls Date.now() directly.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const fixedClock = (iso: string): Clock => ({ now: () => new Date(iso) });
