// The customer's side of a mandate: what the confirmation page shows, and accepting it there.
//
// The page is reached without an API key: its URL (subscription id and confirmation token) is the
// credential, so the account is the subscription's own, never one a request names. The row is found
// by its id, which is no secret, and the token compared in constant time: an index on the token
// itself would leak through timing how much of a guess matched.
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBytes } from './random.js';
import type { Clock } from './clock.js';
import type { Account, CoreContext } from './context.js';
import { nowIso, transact } from './context.js';
import type { Customer } from './customers.js';
import { flush, Ledger, loadSubscriptions } from './ledger.js';
import { activate } from './subscription-rules.js';
import type { Plan } from './plans.js';
import { fail, notFound, ok, type Result } from './result.js';
import type { Store } from '../store/store.js';
import { get, prepared, type MaybePromise, type Unit } from '../store/unit.js';
import type { SubscriptionRow } from '../store/schema.js';

export type MandateSubscription = Omit<SubscriptionRow, 'id'> & { id: number };

/** What the page shows: the subscription, whose it is, what it collects, and for whom. */
export interface MandateView {
  subscription: MandateSubscription;
  customer: Customer;
  plan: Plan;
  account: Account;
}

/**
 * Where the page stands: `open` (the form: an unverified subscription, or one collecting without an
 * accepted mandate), `accepted`, or `cancelled` (no longer to be accepted).
 */
export type MandateState = 'open' | 'accepted' | 'cancelled';

export function mandateState(sub: Pick<MandateSubscription, 'status' | 'mandate_accepted'>): MandateState {
  if (sub.status === 'cancelled') return 'cancelled';
  // Unverified with mandate_accepted set by other means still shows the form: accepting here is
  // what activates it (setting mandate_accepted alone never does).
  if (sub.status === 'unverified' || sub.mandate_accepted !== 1) return 'open';
  return 'accepted';
}

/** What a confirmation token looks like (its URL segment): anything else is not looked up. */
export const CONFIRMATION_TOKEN = /^[0-9a-f]{64}$/;

/**
 * A new confirmation token: 32 random bytes, 64 hex digits (the migration that gave every older
 * subscription one makes the same shape). Random, not derived: nothing the API returns but
 * confirmation_page gives it away, and one subscription's can be replaced alone.
 */
export const newConfirmationToken = (): string => randomBytes(32).toString('hex');

/**
 * Whether the token from the URL is the subscription's, in time independent of where they differ:
 * both are hashed first, so neither their lengths nor a common prefix show in the timing.
 */
export function sameToken(given: string, actual: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(actual, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The subscription when the token is its own; the comparison is made even for an unknown id. */
const owning = (sub: MandateSubscription | undefined, token: string): MandateSubscription | undefined =>
  sameToken(token, sub?.confirmation_token ?? '') && sub ? sub : undefined;

// By id alone: the account is not known yet (it is the subscription's).
const subscriptionById = prepared<MandateSubscription, [number]>('mandate.subscription', (q, p) =>
  q.selectFrom('subscriptions').selectAll().where('id', '=', p(0)),
);
const customerById = prepared<Customer, [number]>('mandate.customer', (q, p) =>
  q.selectFrom('customers').selectAll().where('id', '=', p(0)),
);
const planById = prepared<Plan, [number]>('mandate.plan', (q, p) =>
  q.selectFrom('subscription_plans').selectAll().where('id', '=', p(0)),
);
const accountById = prepared<Account, [number]>('mandate.account', (q, p) =>
  q.selectFrom('accounts').selectAll().where('id', '=', p(0)),
);

/** The page's data, or undefined for an unknown subscription or a token that is not its own. */
export function* findMandate(id: number, token: string): Unit<MandateView | undefined> {
  const subscription = owning(yield* subscriptionById.get(id), token);
  if (!subscription) return undefined;
  const customer = yield* customerById.get(subscription.customer_id);
  const plan = yield* planById.get(subscription.subscription_plan_id);
  const account = yield* accountById.get(subscription.account_id);
  if (!customer || !plan || !account) return undefined;
  return { subscription, customer, plan, account };
}

export interface MandateCore {
  store: Store;
  clock: Clock;
  baseUrl?: string;
  /** The serving process's policy on webhooks to private addresses, kept on the deliveries an acceptance writes. */
  allowPrivateWebhooks: boolean;
}

export interface Accepted {
  /** False when the mandate was already accepted (and the subscription as it should be): nothing was written. */
  changed: boolean;
  subscription: MandateSubscription;
  customer: Customer;
}

/**
 * The customer accepts the mandate on the confirmation page. In one write transaction:
 * mandate_accepted, its date (now, unless one was already given), and an unverified subscription
 * activated through the transition table (scheduling its first transaction; the event and its
 * webhook deliveries are written by the ledger). Safe to repeat: a second accept changes nothing.
 * Refused (invalid_state, nothing changed) for a cancelled subscription; not_found for an unknown
 * id or a token that is not the subscription's (a new one may have replaced it meanwhile).
 */
export async function acceptMandate(core: MandateCore, id: number, token: string): Promise<Result<Accepted>> {
  const owner = await core.store.read(function* () {
    const sub = owning(yield* subscriptionById.get(id), token);
    if (!sub) return undefined;
    return yield* accountById.get(sub.account_id);
  }, 'mandate.owner');
  if (!owner) return notFound(`no mandate page here`);
  const ctx: CoreContext = {
    store: core.store,
    clock: core.clock,
    account: owner,
    baseUrl: core.baseUrl,
    allowPrivateWebhooks: core.allowPrivateWebhooks,
  };
  const result: MaybePromise<Result<Accepted>> = transact(ctx.store, function* () {
    const now = nowIso(ctx);
    const l = new Ledger(core.allowPrivateWebhooks);
    l.useAccount(owner);
    // Locked until the transaction ends: a concurrent accept waits, then finds it accepted.
    yield* loadSubscriptions(l, [id], owner.id);
    const sub = l.subs.get(id);
    if (!sub || !sameToken(token, sub.confirmation_token)) return notFound<Accepted>('no mandate page here');
    if (sub.status === 'cancelled')
      return fail<Accepted>({
        kind: 'invalid_state',
        attribute: 'status',
        detail: 'the subscription is cancelled: its mandate can no longer be accepted',
      });
    let changed = false;
    if (sub.mandate_accepted !== 1 || sub.mandate_accepted_date === null) {
      sub.mandate_accepted = 1;
      sub.mandate_accepted_date ??= now;
      sub.updated_at = now;
      l.changedSubs.add(sub);
      changed = true;
    }
    if (sub.status === 'unverified') {
      activate(l, sub, now);
      changed = true;
    }
    if (changed) yield* flush(l);
    const customer = (yield* get((q) =>
      q.selectFrom('customers').selectAll().where('id', '=', sub.customer_id),
    )) as Customer;
    const { customer_payment_method: _, ...subscription } = sub;
    return ok<Accepted>({ changed, subscription, customer });
  });
  return result;
}
