// Manual transactions (POST and DELETE /transactions) and an operator's simulated outcomes. Each
// runs READ COMMITTED (transactLocked): the ledger locks the subscription, then the transactions it
// changes, as due work does to the same rows.
import { validateAttributes, type AttributeProblem } from '../schemas/common.js';
import { REASON_CODES } from '../schemas/sepa.js';
import { transactionCreateSchema, TRANSACTION_READ_ONLY } from '../schemas/subscription.js';
import { OUTCOMES, type Outcome } from '../schemas/vocabulary.js';
import { get, type MaybePromise } from '../store/unit.js';
import { allowsPrivateWebhooks, nowIso, transactLocked, type CoreContext } from './context.js';
import { loadFullCredits } from './invoice-rules.js';
import { flush, Ledger, loadSubscriptions, loadTransactions, type Txn } from './ledger.js';
import { addManualTransaction, cancelByHand, setOutcome } from './transaction-rules.js';
import { fail, invalidAttributes, notFound, ok, type Result } from './result.js';
import { dayAt, midnight } from './schedule.js';
import { findTransaction, UUID } from './transactions.js';
import { readInstants } from './time.js';
import { OPEN_STATUSES } from './transitions.js';

// The account's rules come with its subscriptions, as stored: a request's account may be cached
// from before an `accounts update` (billing serve).
const ledgerFor = (ctx: CoreContext): Ledger => new Ledger(allowsPrivateWebhooks(ctx));

export function createTransaction(ctx: CoreContext, attributes: Record<string, unknown>): MaybePromise<Result<Txn>> {
  const { value, problems } = validateAttributes(transactionCreateSchema, attributes, {
    readOnly: TRANSACTION_READ_ONLY,
  });
  const tz = ctx.account.time_zone;
  const due = readInstants(value, ['due_date'], tz, problems).due_date;
  if (problems.length) return invalidAttributes(problems);
  return transactLocked(ctx.store, function* () {
    const now = nowIso(ctx);
    const l = ledgerFor(ctx);
    yield* loadSubscriptions(l, [value.subscription_id], ctx.account.id);
    const sub = l.subs.get(value.subscription_id);
    if (!sub)
      return invalidAttributes<Txn>([
        { attribute: 'subscription_id', detail: `no subscription with id ${value.subscription_id}` },
      ]);
    // Collected only under an active subscription: nothing while unverified, paused or cancelled.
    if (sub.status !== 'active')
      return fail<Txn>({
        kind: 'invalid_state',
        attribute: 'subscription_id',
        detail: `the subscription ${sub.id} is ${sub.status}: transactions are made only for active subscriptions`,
      });
    const today = midnight(dayAt(now, tz), tz);
    const start = midnight(dayAt(sub.start_date, tz), tz);
    const dueDate = due ?? (start > today ? start : today);
    if (dueDate < today) return invalidAttributes<Txn>([{ attribute: 'due_date', detail: 'must be today or later' }]);
    if (dueDate < start)
      return invalidAttributes<Txn>([
        {
          attribute: 'due_date',
          detail: `must be on or after the subscription's start date (${dayAt(sub.start_date, tz)}): nothing is collected before it`,
        },
      ]);
    const plan = l.plans.get(sub.subscription_plan_id)!;
    const tx = addManualTransaction(l, sub, now, value.amount, dueDate, value.description ?? plan.name);
    yield* flush(l);
    return ok(tx);
  });
}

/** DELETE /transactions/{id}: canceled, while it is not yet collected. */
export function cancelManually(ctx: CoreContext, id: string): MaybePromise<Result<Txn>> {
  if (!UUID.test(id.toLowerCase())) return notFound(`no transaction with id ${id}`);
  return transactLocked(ctx.store, function* () {
    const l = ledgerFor(ctx);
    yield* loadTransactions(l, [id.toLowerCase()], ctx.account.id);
    const tx = l.txns.get(id.toLowerCase());
    if (!tx) return notFound<Txn>(`no transaction with id ${id}`);
    if (!(OPEN_STATUSES as readonly string[]).includes(tx.status)) {
      return fail<Txn>({
        kind: 'invalid_state',
        detail: `the transaction is ${tx.status}: only a transaction not yet collected (queued, scheduled or rescheduled) can be canceled`,
      });
    }
    if (tx.collection_id !== null) {
      return fail<Txn>({
        kind: 'invalid_state',
        detail: `the transaction is in collection batch ${tx.collection_id}, on its way to the bank: it can no longer be canceled (a batch not yet exported can be cancelled: billing collections cancel ${tx.collection_id})`,
      });
    }
    cancelByHand(l, tx, nowIso(ctx));
    yield* flush(l);
    return ok(tx);
  });
}

/**
 * An operator's outcome for a transaction of the embedded store (which collects by simulation):
 * charged back or failed, with a SEPA reason code. Before collection it applies to the next
 * attempt; after it, at once.
 */
export function simulateOutcome(
  ctx: CoreContext,
  id: string,
  outcome: Outcome,
  reasonCode?: string,
): MaybePromise<Result<Txn>> {
  const problems: AttributeProblem[] = [];
  if (!(OUTCOMES as readonly string[]).includes(outcome))
    problems.push({ attribute: 'outcome', detail: `must be one of: ${OUTCOMES.join(', ')}` });
  const code = reasonCode ?? (outcome === 'failed' ? 'AM04' : 'MD06');
  if (!REASON_CODES.has(code))
    problems.push({
      attribute: 'reason_code',
      detail: `must be a SEPA reason code such as AM04 or MD06, not "${code}"`,
    });
  if (problems.length) return invalidAttributes(problems);
  return transactLocked(ctx.store, function* () {
    // Under SEPA the bank's reports give the outcomes: a simulated one would settle what the bank may still collect.
    const account = yield* get((q) =>
      q.selectFrom('accounts').select(['name', 'collection']).where('id', '=', ctx.account.id),
    );
    if (account?.collection === 'sepa') {
      return fail<Txn>({
        kind: 'invalid_state',
        detail: `account ${account.name} collects by SEPA: outcomes come from the bank's reports (billing collections import FILE), not from a simulation`,
      });
    }
    const l = ledgerFor(ctx);
    const key = id.toLowerCase();
    if (!UUID.test(key)) return notFound<Txn>(`no transaction with id ${id}`);
    yield* loadTransactions(l, [key], ctx.account.id);
    yield* loadFullCredits(l);
    const tx = l.txns.get(key);
    if (!tx) return notFound<Txn>(`no transaction with id ${id}`);
    const refusal = setOutcome(l, tx, outcome, code, nowIso(ctx));
    if (refusal) return fail<Txn>({ kind: 'invalid_state', detail: refusal });
    yield* flush(l);
    return ok((yield* findTransaction(ctx, key))!);
  });
}
