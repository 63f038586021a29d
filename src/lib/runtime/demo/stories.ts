// What happens in the demo: six plans, and twenty stories of customers over the last half year.
// Customer n lives story n % 20, so a sample of any size has the same mix of statuses. A story is
// a list of beats: a moment and what the operator (or the customer's bank) does then. Everything
// else (collections, fulfilments, retries, resuming, scheduled cancellations, invoices finalised
// on their date) is due work the clock runs between the beats, as `billing clock advance` does.
//
// Days are counted so that every run has the same counts whatever today is (and tests can say
// them exactly): a story starts "k months and 10 days ago", so its last collection is 7 to 17 days
// old (fulfilled) and its next one at least 11 days ahead, however long the months in between; a
// beat after a collection comes at most 6 days after it, so always in the past.
import type { Frequency } from '../../core/schedule.js';
import type { Outcome } from '../../schemas/vocabulary.js';

export const PLANS = {
  monthly: {
    name: 'Monthly membership',
    amount: '12.50',
    frequency: 'monthly',
    description: 'Gym membership, billed monthly',
    mandate_authentication_method: 'first_payment',
  },
  quarterly: {
    name: 'Quarterly coffee box',
    amount: '39.95',
    frequency: 'quarterly',
    description: 'Three bags of beans every quarter',
    mandate_authentication_method: 'email',
  },
  yearly: {
    name: 'Yearly support plan',
    amount: '240.00',
    frequency: 'yearly',
    description: 'Priority support, one year',
    mandate_authentication_method: 'ideal',
    send_invoice: false,
    storno_retries: 3,
  },
  weekly: {
    name: 'Weekly vegetable box',
    amount: '17.50',
    frequency: 'weekly',
    description: 'Seasonal vegetables, delivered every week',
    mandate_authentication_method: 'sms',
  },
  halfYearly: {
    name: 'Half-yearly bike service',
    amount: '89.00',
    frequency: 'half_yearly',
    description: 'A full service twice a year',
    mandate_authentication_method: 'email',
  },
  once: {
    name: 'Sourdough workshop',
    amount: '45.00',
    frequency: 'once',
    description: 'One Saturday morning, starter to take home',
    mandate_authentication_method: 'online_payment',
    storno_retries: 0,
  },
} as const;
export type PlanKey = keyof typeof PLANS;

export interface Line {
  description: string;
  amount: string;
  tax_rate: string;
  quantity?: number;
  tax_included?: boolean;
}

/** What a story asks of the operator, for customer `i`; the player (play.ts) does it through the CLI's requests and the core. */
export interface Operator {
  /** POST /customers. */
  signUp(i: number): Promise<void>;
  /** POST /subscriptions on the plan, with these attributes (a mandate accepted, a start, a status). */
  subscribe(i: number, plan: PlanKey, attributes: Record<string, unknown>): Promise<void>;
  /** PATCH /subscriptions/{id}. */
  change(i: number, attributes: Record<string, unknown>): Promise<void>;
  /** POST /invoices and /invoice-lines, then PATCH /invoices/{id}/finalise unless it is to stay a draft (or finalise on its date). */
  invoice(i: number, attributes: Record<string, unknown>, lines: Line[], finalise: boolean): Promise<void>;
  /** POST /invoices/{id}/credit of the customer's invoice, then finalise the credit. */
  credit(i: number): Promise<void>;
  /** POST /transactions: a one-off collection. */
  collect(i: number, attributes: Record<string, unknown>): Promise<void>;
  /** The bank's answer for the subscription's newest transaction in `status`, as `transactions simulate` sets it. */
  simulate(i: number, status: string, outcome: Outcome, reasonCode: string): Promise<void>;
}

export interface Beat {
  /** An instant (ISO). */
  at: string;
  act(operator: Operator, i: number): Promise<void>;
}

/** The calendar a story is told in: the account's zone, today, and a customer's offset in days. */
export interface Calendar {
  /** The end of the story: the store's time when the demo began. */
  now: string;
  today: string;
  /** The day `days` days after `day` (before, when negative). */
  day(day: string, days: number): string;
  /** The day `months` months and `days` days before today. */
  back(months: number, days: number): string;
  /** A plan's cycle n from its anchor day. */
  cycle(anchor: string, frequency: Frequency, n: number): string;
  /** The instant of a wall-clock time (`09:30`) on a local day. */
  at(day: string, time: string): string;
}

/** Days a monthly story's anchor lies past whole months ago: see the top of this file. */
const PAST = 10;

/** Signed up `before` days ahead of the first collection on `anchor`, the mandate accepted then. */
const joins = (c: Calendar, plan: PlanKey, anchor: string, before = 3, time = '10:00'): Beat => {
  const day = c.day(anchor, -before);
  return {
    at: c.at(day, time),
    act: async (op, i) => {
      await op.signUp(i);
      await op.subscribe(i, plan, {
        start_date: anchor,
        status: 'active',
        mandate_accepted: true,
        mandate_accepted_date: day,
      });
    },
  };
};

/** Signed up, the mandate not (yet) accepted: a confirmation goes out by the plan's channel. */
const asks = (at: string, plan: PlanKey, attributes: Record<string, unknown> = {}): Beat => ({
  at,
  act: async (op, i) => {
    await op.signUp(i);
    await op.subscribe(i, plan, attributes);
  },
});

const does = (at: string, act: Beat['act']): Beat => ({ at, act });

/**
 * A collection (in `status` on `day`) charged back, then failed at both storno retries: failed for
 * good. The charge-back makes the retry 3 days on; each failure is set the day before that retry.
 */
const failsForGood = (c: Calendar, day: string, status: string): Beat[] => [
  does(c.at(day, '09:00'), (op, i) => op.simulate(i, status, 'charged_back', 'AM04')),
  does(c.at(c.day(day, 1), '09:00'), (op, i) => op.simulate(i, 'rescheduled', 'failed', 'AM04')),
  does(c.at(c.day(day, 4), '09:00'), (op, i) => op.simulate(i, 'rescheduled', 'failed', 'AM04')),
];

/**
 * The stories, in the order of the cast in people.ts. `spread` (0 to 4) moves a story's start a
 * few days earlier for customers past the first twenty, so a large sample does not collect
 * everything on the same days.
 */
export const STORIES: ((c: Calendar, spread: number) => Beat[])[] = [
  // 0. A member for half a year; bought personal training on an invoice, paid by direct debit.
  (c, s) => {
    const anchor = c.back(6, PAST + s);
    const third = c.cycle(anchor, 'monthly', 3);
    return [
      joins(c, 'monthly', anchor, 7),
      does(c.at(c.day(third, 2), '14:00'), (op, i) =>
        op.invoice(
          i,
          {},
          [
            { description: 'Personal training session', amount: '45.00', tax_rate: '21', quantity: 2 },
            { description: 'Protein shake', amount: '3.50', tax_rate: '9', quantity: 4, tax_included: true },
          ],
          true,
        ),
      ),
    ];
  },
  // 1. Signed up for coffee just now: the mandate email is out, nothing is collected yet.
  (c) => [asks(c.now, 'quarterly')],
  // 2. Paused (travelling) until three weeks from now: the next collection was canceled.
  (c, s) => {
    const anchor = c.back(4, PAST + s);
    return [
      joins(c, 'monthly', anchor),
      does(c.at(c.day(c.cycle(anchor, 'monthly', 4), 5), '10:00'), (op, i) =>
        op.change(i, { status: 'paused', resume_date: c.day(c.today, 21) }),
      ),
    ];
  },
  // 3. Cancelled two months in; the invoice for a locker, due later, was cancelled with it.
  (c, s) => {
    const anchor = c.back(5, PAST + s);
    const second = c.cycle(anchor, 'monthly', 2);
    return [
      joins(c, 'monthly', anchor),
      does(c.at(c.day(second, 2), '11:00'), (op, i) =>
        op.invoice(
          i,
          { invoice_date: c.day(second, 2), transaction_date: c.day(second, 16) },
          [{ description: 'Locker rental, three months', amount: '15.00', tax_rate: '21' }],
          true,
        ),
      ),
      does(c.at(c.day(second, 9), '16:00'), (op, i) => op.change(i, { status: 'cancelled' })),
    ];
  },
  // 4. A collection refunded at the customer's request, collected again at the storno retry.
  (c, s) => {
    const anchor = c.back(4, PAST + s);
    return [
      joins(c, 'monthly', anchor),
      does(c.at(c.day(c.cycle(anchor, 'monthly', 2), 1), '09:30'), (op, i) =>
        op.simulate(i, 'succeeded', 'charged_back', 'MD06'),
      ),
    ];
  },
  // 5. The first quarter's collection charged back, then failed at both retries (insufficient funds); the next quarter was collected.
  (c, s) => {
    const anchor = c.back(3, PAST + s);
    return [joins(c, 'quarterly', anchor), ...failsForGood(c, c.day(anchor, 1), 'succeeded')];
  },
  // 6. A vegetable box every week (this week's collected today or in the last days), and an extra box ordered for later this week.
  (c, s) => {
    const anchor = c.day(c.today, -56 - s);
    return [
      joins(c, 'weekly', anchor, 2, '19:00'),
      does(c.at(c.day(c.today, -2), '15:00'), (op, i) =>
        op.collect(i, { amount: '12.00', due_date: c.day(c.today, 3), description: 'Extra fruit box' }),
      ),
    ];
  },
  // 7. Last month's collection charged back yesterday: its storno retry is due in two days.
  (c, s) => {
    const anchor = c.back(3, PAST + s);
    return [
      joins(c, 'monthly', anchor),
      does(c.at(c.day(c.today, -1), '10:00'), (op, i) => op.simulate(i, 'fulfilled', 'charged_back', 'MD06')),
    ];
  },
  // 8. A company on the yearly support plan; a half day on site is on a draft invoice.
  (c, s) => {
    const anchor = c.back(2, PAST + s);
    return [
      joins(c, 'yearly', anchor, 5, '11:30'),
      does(c.at(c.day(c.today, -3), '11:00'), (op, i) =>
        op.invoice(i, {}, [{ description: 'On-site support, half day', amount: '360.00', tax_rate: '21' }], false),
      ),
    ];
  },
  // 9. Bike service; parts and labour invoiced and paid, then credited when the parts went back.
  (c, s) => {
    const anchor = c.back(4, PAST + s);
    return [
      joins(c, 'halfYearly', anchor),
      does(c.at(c.day(anchor, 5), '13:00'), (op, i) =>
        op.invoice(
          i,
          {},
          [
            { description: 'Chain and cassette', amount: '64.50', tax_rate: '21' },
            { description: 'Labour, 45 minutes', amount: '40.00', tax_rate: '21' },
          ],
          true,
        ),
      ),
      does(c.at(c.day(c.today, -6), '11:00'), (op, i) => op.credit(i)),
    ];
  },
  // 10. Gave notice: cancelled on the date set a month before.
  (c, s) => {
    const anchor = c.back(4, PAST + s);
    return [
      joins(c, 'monthly', anchor),
      does(c.at(c.day(c.cycle(anchor, 'monthly', 1), 5), '10:00'), (op, i) =>
        op.change(i, { cancel_date: c.day(c.cycle(anchor, 'monthly', 2), 12) }),
      ),
    ];
  },
  // 11. A workshop, collected once: active, with nothing more to collect.
  (c, s) => [joins(c, 'once', c.back(1, PAST + s))],
  // 12. Paused for a month in spring, resumed on the date set: one collection skipped.
  (c, s) => {
    const anchor = c.back(5, PAST + s);
    return [
      joins(c, 'monthly', anchor),
      does(c.at(c.day(c.cycle(anchor, 'monthly', 1), 12), '10:00'), (op, i) =>
        op.change(i, { status: 'paused', resume_date: c.day(c.cycle(anchor, 'monthly', 2), 15) }),
      ),
    ];
  },
  // 13. Signed up for vegetables two days ago; the mandate text message is unanswered.
  (c) => [asks(c.at(c.day(c.today, -2), '19:30'), 'weekly')],
  // 14. Signed up without a mandate; accepted it on paper a few days later and was activated.
  (c, s) => {
    const anchor = c.back(2, PAST + s);
    return [
      asks(c.at(c.day(anchor, -6), '12:00'), 'monthly', { start_date: anchor }),
      does(c.at(c.day(anchor, -1), '09:00'), (op, i) =>
        op.change(i, { mandate_accepted: true, mandate_accepted_date: c.day(anchor, -2), status: 'active' }),
      ),
    ];
  },
  // 15. Gave notice: cancels in five weeks, collected until then.
  (c, s) => {
    const anchor = c.back(3, PAST + s);
    return [
      joins(c, 'monthly', anchor),
      does(c.at(c.day(c.today, -4), '20:00'), (op, i) => op.change(i, { cancel_date: c.day(c.today, 35) })),
    ];
  },
  // 16. Never accepted the mandate; cancelled after four weeks.
  (c) => [
    asks(c.at(c.day(c.today, -40), '10:00'), 'quarterly'),
    does(c.at(c.day(c.today, -12), '10:00'), (op, i) => op.change(i, { status: 'cancelled' })),
  ],
  // 17. Coffee grinder on an invoice: charged back, failed at both retries, so the invoice is charged back.
  (c, s) => {
    const anchor = c.back(2, PAST + s);
    const day = c.day(anchor, 7);
    return [
      joins(c, 'quarterly', anchor),
      does(c.at(day, '10:00'), (op, i) =>
        op.invoice(
          i,
          {},
          [
            { description: 'Coffee grinder', amount: '89.00', tax_rate: '21' },
            { description: 'Loyalty discount', amount: '-10.00', tax_rate: '21' },
          ],
          true,
        ),
      ),
      ...failsForGood(c, c.day(day, 1), 'succeeded'),
    ];
  },
  // 18. Paused after the first service, with no date to resume.
  (c, s) => {
    const anchor = c.back(5, PAST + s);
    return [
      joins(c, 'halfYearly', anchor),
      does(c.at(c.day(anchor, 45), '14:00'), (op, i) => op.change(i, { status: 'paused' })),
    ];
  },
  // 19. A massage invoiced yesterday, dated yesterday: finalised at midnight, collected next week.
  (c, s) => {
    const anchor = c.back(1, PAST + s);
    return [
      joins(c, 'monthly', anchor),
      does(c.at(c.day(c.today, -1), '16:00'), (op, i) =>
        op.invoice(
          i,
          { invoice_date: c.day(c.today, -1), transaction_date: c.day(c.today, 7) },
          [{ description: 'Sports massage, 60 minutes', amount: '55.00', tax_rate: '21', tax_included: true }],
          false,
        ),
      ),
    ];
  },
];
