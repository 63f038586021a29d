import type { Store } from '../store/store.js';
import type { AccountRow } from '../store/schema.js';
import type { Clock } from './clock.js';
import type { Result } from './result.js';

export type Account = Omit<AccountRow, 'id'> & { id: number };

/** What every use case runs against: the store, the clock, and the account it acts for. */
export interface CoreContext {
  store: Store;
  clock: Clock;
  account: Account;
}

export const nowIso = (ctx: { clock: Clock }): string => ctx.clock.now().toISOString();

const ROLLBACK = Symbol('rollback');

/**
 * One write transaction for a use case: a failure returned from fn rolls back whatever fn wrote,
 * so a refused request changes nothing even when a rule is only found to fail halfway.
 */
export function transact<T>(store: Store, fn: () => Result<T>): Result<T> {
  let failure: Result<T> | undefined;
  try {
    return store.write(() => {
      const result = fn();
      if (!result.ok) {
        failure = result;
        throw ROLLBACK;
      }
      return result;
    });
  } catch (error) {
    if (error === ROLLBACK) return failure!;
    throw error;
  }
}
