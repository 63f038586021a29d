// What `billing status` says of the embedded store: where it is, the account acted as, the clock
// and the work waiting for it. Read only: opening the store does the catch-up as any command does.
import { dueSummary } from '../core/due.js';
import { redact } from '../store/store.js';
import { readClock } from './clock.js';
import type { Runtime } from './runtime.js';

export interface EmbeddedStatus {
  engine: 'sqlite' | 'postgres';
  /** The file, or the database URL without its password. */
  location: string;
  account: string;
  timeZone: string;
  clock: { now: string; test: boolean; real: string };
  due: { waiting: number; next: string | null };
}

export async function embeddedStatus(runtime: Runtime): Promise<EmbeddedStatus> {
  const account = await runtime.account();
  const clock = await readClock(runtime);
  const due = await runtime.store.read(() => dueSummary(clock.now));
  return {
    engine: runtime.store.engine,
    location: redact(runtime.store.location),
    account: account.name,
    timeZone: account.time_zone,
    clock: { now: clock.local(clock.now), test: clock.test, real: clock.local(clock.real) },
    due: { waiting: due.waiting, next: due.next === undefined ? null : clock.local(due.next) },
  };
}
