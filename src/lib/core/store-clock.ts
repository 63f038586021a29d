// The store's clock: real time, or a test time an operator sets or moves forward (never back).
// Moving it does all the work that falls due on the way, in date order. Every process on the store
// reads the test time from the store, so a `billing clock advance` in one terminal is the time of
// every command after it, and of `billing serve` from its next tick.
import type { Store } from '../store/store.js';
import { get, prepared, run } from '../store/unit.js';
import type { Clock } from './clock.js';
import { runDue, type DueOptions, type DueReport } from './due.js';
import { fail, ok, type Result } from './result.js';
import { formatInstant } from './time.js';

/** The clock of a store: the test time when one is set, otherwise the base clock (real time, or a test's own). */
export class StoreClock implements Clock {
  test: string | null = null;
  constructor(readonly base: Clock) {}
  now(): Date {
    return this.test === null ? this.base.now() : new Date(this.test);
  }
}

/** What the store says of time and work: its test time, and when the earliest work is due. */
const state = prepared<{ test_time: string | null; next_due: string | null }, []>('clock.state', (q) =>
  q.selectNoFrom((eb) => [
    eb.selectFrom('store_clock').select('test_time').where('id', '=', 1).as('test_time'),
    eb.selectFrom('due_work').select('due_at').orderBy('due_at').limit(1).as('next_due'),
  ]),
);

/**
 * Reads the store's test time into the clock and does the work already due: what every embedded
 * command does first. When nothing is due it is one indexed read. A store this process cannot write
 * is left as it is (its reads show what was last done).
 */
export async function catchUp(store: Store, clock: StoreClock, options: DueOptions): Promise<DueReport | undefined> {
  const row = await store.read(() => state.get(), 'clock.state');
  clock.test = row?.test_time ?? null;
  const now = clock.now().toISOString();
  if (row?.next_due == null || row.next_due > now || store.writeRefusal !== undefined) return undefined;
  return runDue(store, now, { ...options, earliest: row.next_due });
}

export interface ClockCore {
  store: Store;
  clock: Clock;
  /** The public base URL, for links in what due work sends (an invoice's email). */
  baseUrl?: string;
  /** The process's policy on webhooks to private addresses (the CLI: allowed), kept on what due work writes. */
  allowPrivateWebhooks: boolean;
}

export interface AdvanceReport {
  from: string;
  to: string;
  /** Whether the store now runs on a test time. */
  test: boolean;
  changes: Record<string, number>;
}

const baseOf = (core: ClockCore): Clock => (core.clock instanceof StoreClock ? core.clock.base : core.clock);

export async function showClock(core: ClockCore): Promise<{ now: string; test: boolean }> {
  const row = await core.store.read(() => state.get(), 'clock.state');
  const test = row?.test_time ?? null;
  return { now: test ?? baseOf(core).now().toISOString(), test: test !== null };
}

/**
 * Sets the test time to `to` and does everything due by then. Refused when it is before the time
 * the store is at: work done at a later time cannot be undone.
 */
export async function setClock(core: ClockCore, toTime: string, timeZone = 'UTC'): Promise<Result<AdvanceReport>> {
  const to = new Date(toTime).toISOString();
  const real = baseOf(core).now().toISOString();
  const moved = await core.store.write(
    function* () {
      const test =
        (yield* get((q) => q.selectFrom('store_clock').select('test_time').where('id', '=', 1)))?.test_time ?? null;
      const from = test ?? real;
      if (to < from)
        return fail<string>({
          kind: 'invalid_state',
          detail: `the clock is at ${formatInstant(from, timeZone)} and never goes back; give a time on or after it (to try things again, work on a copy of the store)`,
        });
      // On test time from here; the clock then moves with the work due on the way (runDue), to `to`.
      if (test === null) yield* run((q) => q.insertInto('store_clock').values({ id: 1, test_time: from }));
      return ok(from);
    },
    (result) => result.ok,
  );
  if (!moved.ok) return moved;
  const report = await runDue(core.store, to, {
    baseUrl: core.baseUrl,
    allowPrivateWebhooks: core.allowPrivateWebhooks,
    movesClock: true,
  });
  await core.store.write(() =>
    run((q) => q.updateTable('store_clock').set({ test_time: to }).where('id', '=', 1).where('test_time', '<', to)),
  );
  if (core.clock instanceof StoreClock) core.clock.test = to;
  return ok({ from: moved.value, to, test: true, changes: report.changes });
}

/** Back to real time: allowed once real time has caught up with the test time (the clock never goes back). */
export async function resetClock(core: ClockCore, timeZone = 'UTC'): Promise<Result<AdvanceReport>> {
  const real = baseOf(core).now().toISOString();
  const removed = await core.store.write(
    function* () {
      const test =
        (yield* get((q) => q.selectFrom('store_clock').select('test_time').where('id', '=', 1)))?.test_time ?? null;
      if (test !== null && test > real) {
        return fail<string | null>({
          kind: 'invalid_state',
          detail: `the test time ${formatInstant(test, timeZone)} is ahead of real time (${formatInstant(real, timeZone)}); going back to real time would move the clock back, which it never does (reset when real time has passed it, or work on a copy of the store)`,
        });
      }
      yield* run((q) => q.deleteFrom('store_clock'));
      return ok(test);
    },
    (result) => result.ok,
  );
  if (!removed.ok) return removed;
  if (core.clock instanceof StoreClock) core.clock.test = null;
  const report = await runDue(core.store, real, {
    baseUrl: core.baseUrl,
    allowPrivateWebhooks: core.allowPrivateWebhooks,
  });
  return ok({ from: removed.value ?? real, to: real, test: false, changes: report.changes });
}
