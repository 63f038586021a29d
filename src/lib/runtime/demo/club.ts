// The demo's second account: a sports club that collects by SEPA Direct Debit for real
// (docs/sepa.md). Its members signed up a month ago on accepted mandates, each was pre-notified of
// their first collection, and today's batch is made and exported, as an operator does before
// uploading the file to the bank. One member has given no IBAN yet: left out of the batch, with the
// reason. Names outside the EPC Latin set (Zoë Ångström, Groß) show the file's transliteration.
//
// As play.ts does, it runs a clock of its own (a month back, then the store's now) and goes through
// the service's doors: the accounts operations, the core's createPlan, and requests on the router.
import type { Clock } from '../../core/clock.js';
import { runDue } from '../../core/due.js';
import { createPlan } from '../../core/plan-writes.js';
import { addDays, dayAt, midnight } from '../../core/schedule.js';
import { embeddedTransport } from '../../transport/embedded.js';
import type { Transport, TransportRequest } from '../../transport/types.js';
import { createAccount, listAccounts, updateAccount } from '../accounts.js';
import { Refusal } from '../refusal.js';
import { runtimeOver, type Runtime } from '../runtime.js';
import { customerAttributes } from './people.js';

export const CLUB = 'club';

/** A creditor that passes every check: the EPC's example identifier, a test IBAN and its bank's BIC. */
const CREDITOR = {
  collection: 'sepa',
  creditor_id: 'NL57ZZZ999999999999',
  creditor_name: 'Sportclub Zuid',
  creditor_iban: 'NL91ABNA0417164300',
  creditor_bic: 'ABNANL2A',
  prenotification_days: 5,
};

/** The club's members: the demo's people past its cast (not the default account's customers). */
const MEMBERS = 6;
const FIRST_PERSON = 40;
/** Who joined with which name (EPC transliteration), and who has given no IBAN yet. */
const NAMES: Record<number, Record<string, unknown>> = {
  0: { first_name: 'Zoë', middle_name: null, last_name: 'Ångström', bank_holder: 'Zoë Ångström' },
  1: { last_name: 'Groß', middle_name: null, bank_holder: 'Familie Groß' },
};
const WITHOUT_IBAN = 5;

export interface ClubPlayed {
  account: string;
  members: number;
  /** The batch made and exported today (null when nothing was due, which a month on never is). */
  collection: { id: number; transactions: number; controlSum: string; leftOut: number } | null;
}

interface Document {
  data: { id: string; attributes: Record<string, unknown> } | null;
  meta?: { left_out?: unknown[] };
}

async function send(transport: Transport, request: TransportRequest): Promise<Document> {
  const response = await transport.request(request);
  if (response.status >= 400) throw new Refusal(response.status, response.body);
  return response.body as Document;
}

/** Plays the club on the runtime's store, unless it has an account of that name (left alone then). */
export async function playClub(runtime: Runtime): Promise<ClubPlayed | undefined> {
  const { store } = runtime;
  if ((await listAccounts(runtime)).some((a) => a.name === CLUB)) return undefined;
  await createAccount(runtime, CLUB, {});
  const account = await updateAccount(runtime, CLUB, CREDITOR);
  const zone = account.time_zone;
  const end = runtime.clock.now().toISOString();
  const joined = addDays(dayAt(end, zone), -30);

  // Joined at nine in the morning of that day (a mandate is never signed after the moment it is given).
  let time = new Date(Date.parse(midnight(joined, zone)) + 9 * 3_600_000).toISOString();
  const clock: Clock = { now: () => new Date(time) };
  const past = embeddedTransport(runtimeOver(store, { clock, account: CLUB }));
  const plan = await createPlan(
    { store, clock, account },
    {
      name: 'Lidmaatschap',
      amount: '12.50',
      frequency: 'monthly',
      description: 'Contributie Sportclub Zuid',
      storno_retries: 1,
    },
  );
  if (!plan.ok) throw new Error(`the demo club's plan was refused: ${JSON.stringify(plan.failure)}`);
  for (let i = 0; i < MEMBERS; i++) {
    const { iban, ...person } = { ...customerAttributes(FIRST_PERSON + i), ...NAMES[i] };
    const customer = await send(past, {
      method: 'POST',
      path: '/customers',
      body: { data: { type: 'customer', attributes: i === WITHOUT_IBAN ? person : { ...person, iban } } },
    });
    await send(past, {
      method: 'POST',
      path: '/subscriptions',
      body: {
        data: {
          type: 'subscription',
          attributes: {
            customer_id: customer.data!.id,
            subscription_plan_id: plan.value.id,
            status: 'active',
            mandate_accepted: true,
            mandate_accepted_date: joined,
          },
        },
      },
    });
  }
  // A month on: due work up to now (the schedules are the pre-notifications), then today's batch.
  time = end;
  await runDue(store, end, { allowPrivateWebhooks: runtime.allowPrivateWebhooks });
  const today = embeddedTransport(runtimeOver(store, { clock: runtime.clock, account: CLUB }));
  const made = await send(today, {
    method: 'POST',
    path: '/collections',
    body: { data: { type: 'collection', attributes: {} } },
  });
  if (made.data === null) return { account: CLUB, members: MEMBERS, collection: null };
  // Exported as `collections export` does; the same batch gives the same bytes whenever asked again.
  const file = await today.request({ method: 'GET', path: `/collections/${made.data.id}/file`, file: true });
  if (file.status >= 400 || !file.pipe) throw new Refusal(file.status, file.body);
  await file.pipe(() => undefined);
  return {
    account: CLUB,
    members: MEMBERS,
    collection: {
      id: Number(made.data.id),
      transactions: Number(made.data.attributes.transactions),
      controlSum: String(made.data.attributes.control_sum),
      leftOut: made.meta?.left_out?.length ?? 0,
    },
  };
}
