// Pre-notifications of SEPA collections, written with the ledger that scheduled them: the
// customers are read once for all of them, so scheduling stays a handful of statements.
import { all, type Unit } from '../store/unit.js';
import type { Ledger } from './ledger.js';
import { preNotification } from './notifications.js';
import { dayAt } from './schedule.js';
import { retryDueDate } from './transaction-rules.js';

export function* writeNotices(l: Ledger): Unit<void> {
  // One canceled in the same ledger (scheduled, then its subscription paused) is not announced.
  const notices = l.notices.filter((tx) => tx.status !== 'canceled');
  if (notices.length === 0) return;
  const customerIds = [...new Set(notices.map((tx) => l.subs.get(tx.subscription_id)!.customer_id))];
  const customers = new Map(
    (yield* all((q) =>
      q
        .selectFrom('customers')
        .select(['id', 'first_name', 'middle_name', 'last_name', 'language', 'email', 'telephone'])
        .where('id', 'in', customerIds),
    )).map((c) => [c.id, { ...c, id: c.id }]),
  );
  for (const tx of notices) {
    const sub = l.subs.get(tx.subscription_id)!;
    const customer = customers.get(sub.customer_id);
    if (!customer) continue;
    const rules = l.rules(tx.account_id);
    const channel = l.plans.get(sub.subscription_plan_id)!.mandate_authentication_method;
    const notice = {
      customer,
      mandateCode: sub.mandate_code,
      channel,
      creditorName: rules.creditor_name,
      creditorId: rules.creditor_id,
    };
    l.notifications.push(
      // A re-presentation is announced for its new due date, when it is rescheduled.
      tx.status === 'rescheduled'
        ? preNotification(tx, dayAt(retryDueDate(l, tx), rules.time_zone), notice, tx.updated_at)
        : preNotification(tx, dayAt(tx.due_date, rules.time_zone), notice, tx.scheduled_on ?? tx.updated_at),
    );
  }
  l.notices.length = 0;
}
