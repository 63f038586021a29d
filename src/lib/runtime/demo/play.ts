// `billing demo`, a named operation of the runtime: plays the stories (stories.ts) on an empty
// store, from half a year ago up to the store's now.
//
// Why a clock of its own: the store's clock never goes back, so history cannot be made by setting
// it to the past. The demo keeps the store's clock as it found it (real time, or a test time) and
// runs its own: a time that starts half a year before the store's now, on which every request is
// made (created_at, mandate dates and events all read it). Before each beat it does the work due
// by then with the core's runDue, exactly as `billing clock advance` does (each piece at its own
// due time, in date order); at the end it does the work due up to the store's now again, so nothing
// that has fallen due is left undone, and what lies ahead (next collections, retries, a resume, a
// cancellation) waits in the due work as it would for any store.
//
// Everything goes through the service's own doors: requests as the CLI sends them (the embedded
// transport, on a router that reads the demo's clock), plans through the core as `plans create`
// does, the bank's answers as `transactions simulate` sets them. A step the service refuses is a
// bug of the sample and stops the demo.
import type { Clock } from '../../core/clock.js';
import { runDue } from '../../core/due.js';
import { createPlan } from '../../core/plan-writes.js';
import { addDays, addMonths, cycleDay, dayAt } from '../../core/schedule.js';
import { zonedToUtc } from '../../core/time.js';
import { simulateOutcome } from '../../core/transaction-writes.js';
import { wait } from '../../store/unit.js';
import { embeddedTransport } from '../../transport/embedded.js';
import type { TransportRequest } from '../../transport/types.js';
import { Refusal } from '../refusal.js';
import { runtimeOver, type Runtime } from '../runtime.js';
import { customerAttributes } from './people.js';
import { PLANS, STORIES, type Beat, type Calendar, type Operator, type PlanKey } from './stories.js';

/** Large samples move stories a few days apart: customer n is in spread floor(n / 20) % SPREADS. */
const SPREADS = 5;

export interface Played {
  plans: number;
  customers: number;
  subscriptions: number;
  invoices: number;
  /** The local day the history starts on. */
  since: string;
  /** The ids of customer `i`'s resources, for the commands suggested afterwards. */
  ids(i: number): { customer?: number; subscription?: number; invoice?: number };
}

type Document = { data: { id: string } };

export async function play(runtime: Runtime, size: number): Promise<Played> {
  const account = await runtime.account();
  const zone = account.time_zone;
  const end = runtime.clock.now().toISOString();
  const today = dayAt(end, zone);
  const calendar: Calendar = {
    now: end,
    today,
    day: addDays,
    back: (months, days) => addDays(addMonths(today, -months), -days),
    cycle: (anchor, frequency, n) => cycleDay(anchor, frequency, n)!,
    at: (day, time) =>
      zonedToUtc(
        Number(day.slice(0, 4)),
        Number(day.slice(5, 7)),
        Number(day.slice(8, 10)),
        Number(time.slice(0, 2)),
        Number(time.slice(3, 5)),
        0,
        zone,
      ).toISOString(),
  };

  // The beats of every (story, spread) that has a customer, in time order.
  const stories = STORIES.length;
  const beats: { beat: Beat; story: number; spread: number }[] = [];
  for (let story = 0; story < stories; story++) {
    for (let spread = 0; spread < SPREADS && story + stories * spread < size; spread++) {
      for (const beat of STORIES[story](calendar, spread)) beats.push({ beat, story, spread });
    }
  }
  beats.sort((a, b) => (a.beat.at < b.beat.at ? -1 : a.beat.at > b.beat.at ? 1 : 0));
  // Plans a week before the first customer: nothing is collected before a plan starts.
  const since = addDays(dayAt(beats[0].beat.at, zone), -7);

  let time = calendar.at(since, '09:00');
  const clock: Clock = { now: () => new Date(time) };
  const ctx = { store: runtime.store, clock, account };
  const transport = embeddedTransport(runtimeOver(runtime.store, { clock, account: account.name }));
  const send = async (
    method: TransportRequest['method'],
    path: string,
    type?: string,
    attributes?: Record<string, unknown>,
    query?: TransportRequest['query'],
  ) => {
    const response = await transport.request({
      method,
      path,
      query,
      body: type ? { data: { type, attributes } } : undefined,
    });
    if (response.status >= 400) throw new Refusal(response.status, response.body);
    return response.body as Document;
  };

  const plans = {} as Record<PlanKey, number>;
  for (const [key, attributes] of Object.entries(PLANS) as [PlanKey, Record<string, unknown>][]) {
    const made = await createPlan(ctx, attributes);
    if (!made.ok) throw new Error(`the demo's plan ${key} was refused: ${JSON.stringify(made.failure)}`);
    plans[key] = made.value.id;
  }

  const customers: number[] = [];
  const subscriptions: number[] = [];
  const invoices: number[] = [];
  let subscriptionCount = 0;
  let invoiceCount = 0;
  const finalise = (id: number) => send('PATCH', `/invoices/${id}/finalise`);
  const operator: Operator = {
    async signUp(i) {
      customers[i] = Number((await send('POST', '/customers', 'customer', customerAttributes(i))).data.id);
    },
    async subscribe(i, plan, attributes) {
      const made = await send('POST', '/subscriptions', 'subscription', {
        customer_id: customers[i],
        subscription_plan_id: plans[plan],
        ...attributes,
      });
      subscriptions[i] = Number(made.data.id);
      subscriptionCount++;
    },
    async change(i, attributes) {
      const id = subscriptions[i];
      const response = await transport.request({
        method: 'PATCH',
        path: `/subscriptions/${id}`,
        body: { data: { type: 'subscription', id: String(id), attributes } },
      });
      if (response.status >= 400) throw new Refusal(response.status, response.body);
    },
    async invoice(i, attributes, lines, finalised) {
      const id = Number(
        (await send('POST', '/invoices', 'invoice', { subscription_id: subscriptions[i], ...attributes })).data.id,
      );
      for (const line of lines) await send('POST', '/invoice-lines', 'invoice-line', { invoice_id: id, ...line });
      if (finalised) await finalise(id);
      invoices[i] = id;
      invoiceCount++;
    },
    async credit(i) {
      const id = Number((await send('POST', `/invoices/${invoices[i]}/credit`)).data.id);
      await finalise(id);
      invoiceCount++;
    },
    async collect(i, attributes) {
      await send('POST', '/transactions', 'transaction', { subscription_id: subscriptions[i], ...attributes });
    },
    async simulate(i, status, outcome, reasonCode) {
      const found = (await send('GET', `/subscriptions/${subscriptions[i]}/transactions`, undefined, undefined, {
        'filter[status]': status,
        'page[size]': 1,
      })) as unknown as { data: { id: string }[] };
      if (found.data.length === 0)
        throw new Error(`the demo found no ${status} transaction of subscription ${subscriptions[i]} at ${time}`);
      const result = await simulateOutcome(ctx, found.data[0].id, outcome, reasonCode);
      if (!result.ok)
        throw new Error(
          `the demo's ${outcome} of transaction ${found.data[0].id} was refused: ${JSON.stringify(result.failure)}`,
        );
    },
  };

  // On SQLite each beat (the work due before it, then its requests for every customer in it) is one
  // transaction: each request and use case still runs its own (a savepoint inside it), but the
  // commit that costs most is paid once per beat, not once per row.
  const batch =
    runtime.store.engine === 'sqlite'
      ? (work: () => Promise<void>) =>
          runtime.store.bulkWrite(function* () {
            yield* wait(work());
          })
      : (work: () => Promise<void>) => work();
  for (const { beat, story, spread } of beats) {
    await batch(async () => {
      if (beat.at > time) {
        await runDue(runtime.store, beat.at, { allowPrivateWebhooks: runtime.allowPrivateWebhooks });
        time = beat.at;
      }
      for (let i = story + stories * spread; i < size; i += stories * SPREADS) await beat.act(operator, i);
    });
  }
  // Up to the store's now: real time has moved on while the demo ran.
  time = end;
  await runDue(runtime.store, runtime.clock.now().toISOString(), {
    allowPrivateWebhooks: runtime.allowPrivateWebhooks,
  });

  return {
    plans: Object.keys(plans).length,
    customers: size,
    subscriptions: subscriptionCount,
    invoices: invoiceCount,
    since,
    ids: (i) => ({ customer: customers[i], subscription: subscriptions[i], invoice: invoices[i] }),
  };
}
