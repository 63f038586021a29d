// The store's clock, as the `clock` commands move it: named operations of the runtime, with times
// shown in the account's zone. Moving it forward does what falls due on the way (core/store-clock.ts).
import { addDuration } from '../core/schedule.js';
import { resetClock as reset, setClock as set, showClock, type AdvanceReport } from '../core/store-clock.js';
import { formatInstant, parseDateInput } from '../core/time.js';
import { orRefuse } from './refusal.js';
import type { Runtime } from './runtime.js';

export type { AdvanceReport };

/** Whether the text is an ISO 8601 duration that moves a clock on (P1M, PT6H); no store needed. */
export const isDuration = (text: string): boolean => addDuration(new Date(0).toISOString(), text, 'UTC') !== null;

/** Whether the text is a date or a datetime with an offset; no store needed. */
export const isDateInput = (text: string): boolean => parseDateInput(text, 'UTC') !== null;

export interface ClockReading {
  /** The store's time, UTC. */
  now: string;
  /** Whether it is a test time. */
  test: boolean;
  /** Real time as the runtime sees it (a test's own clock included), UTC. */
  real: string;
  timeZone: string;
  /** A UTC instant in the account's zone (`2026-12-01T00:00:00+01:00`). */
  local: (utcIso: string) => string;
}

export async function readClock(runtime: Runtime): Promise<ClockReading> {
  const { now, test } = await showClock(runtime);
  const timeZone = (await runtime.account()).time_zone;
  return {
    now,
    test,
    real: runtime.clock.base.now().toISOString(),
    timeZone,
    local: (utcIso) => formatInstant(utcIso, timeZone),
  };
}

/** The instant a duration after the store's time, by the calendar of the account's zone. */
export async function advancedBy(runtime: Runtime, duration: string): Promise<string> {
  const { now, timeZone } = await readClock(runtime);
  return addDuration(now, duration, timeZone)!;
}

/** The instant a date (00:00 in the account's zone) or datetime names. */
export async function instantOf(runtime: Runtime, text: string): Promise<string> {
  return parseDateInput(text, (await runtime.account()).time_zone)!;
}

/** A test time, forward only, doing what falls due on the way; refused (invalid_state) when it would go back. */
export async function setClock(runtime: Runtime, to: string): Promise<AdvanceReport> {
  return orRefuse(set(runtime, to, (await runtime.account()).time_zone));
}

/** Back to real time, once real time has caught up with the test time. */
export async function resetClock(runtime: Runtime): Promise<AdvanceReport> {
  return orRefuse(reset(runtime, (await runtime.account()).time_zone));
}
