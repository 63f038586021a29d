import type { Selectable } from 'kysely';
import type { Store } from '../store/store.js';
import type { AccountRow } from '../store/schema.js';
import type { MaybePromise, Unit } from '../store/unit.js';
import type { Clock } from './clock.js';
import type { Result } from './result.js';

export type Account = Selectable<AccountRow>;

/** What every use case runs against: the store, the clock, and the account it acts for. */
export interface CoreContext {
  store: Store;
  clock: Clock;
  account: Account;
  /** The public base URL of the service (confirmation pages), without a trailing slash. */
  baseUrl?: string;
  /**
   * Whether webhook URLs may point at loopback and private networks: yes for the embedded CLI (a
   * person's own machine), no for `billing serve` unless it was started to allow them.
   */
  allowPrivateWebhooks?: boolean;
  /** Host names found (by the door, which may resolve names) to point at such addresses: refused like them. */
  privateHosts?: ReadonlySet<string>;
}

export const nowIso = (ctx: { clock: Clock }): string => ctx.clock.now().toISOString();

/** The context's policy for the deliveries its changes write: absent is the embedded CLI's (allowed). */
export const allowsPrivateWebhooks = (ctx: Pick<CoreContext, 'allowPrivateWebhooks'>): boolean =>
  ctx.allowPrivateWebhooks !== false;

/**
 * One write transaction for a use case: a failure it returns rolls back whatever it wrote, so a
 * refused request changes nothing even when a rule is only found to fail halfway.
 */
export function transact<T>(store: Store, unit: () => Unit<Result<T>>): MaybePromise<Result<T>> {
  return store.write(unit, (result) => result.ok);
}

/**
 * As transact, READ COMMITTED on PostgreSQL (Store.work): for a use case whose every check is held
 * by a row lock or a constraint until it commits, so that it needs no SERIALIZABLE (whose
 * predicate locks on index pages fail concurrent writes of neighbouring rows for nothing).
 */
export function transactLocked<T>(store: Store, unit: () => Unit<Result<T>>): MaybePromise<Result<T>> {
  return store.work(unit, (result) => result.ok);
}
