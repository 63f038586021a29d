// `billing demo`: fills the embedded store with a small, realistic sample, then shows it.
// Customers go through the same requests as `customers create`; plans through the core, as
// `plans create` does. Running it again on a store that has customers only shows them.
import type { Command } from 'commander';
import { composeIBAN } from 'ibantools';
import type { Deps } from '../../lib/command/deps.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, refusesDryRun } from '../../lib/command/registry.js';
import { runList, send } from '../../lib/command/resource.js';
import { createPlan } from '../../lib/core/plan-writes.js';

const PLANS = [
  { name: 'Monthly membership', amount: '12.50', frequency: 'monthly', description: 'Gym membership, billed monthly', mandate_authentication_method: 'first_payment' },
  { name: 'Quarterly coffee box', amount: '39.95', frequency: 'quarterly', description: 'Three bags of beans every quarter', mandate_authentication_method: 'email' },
  { name: 'Yearly support plan', amount: '240.00', frequency: 'yearly', description: 'Priority support, one year', mandate_authentication_method: 'ideal', send_invoice: false },
];

// [first, middle, last, city, country, language, bank code, account number]
const PEOPLE: [string, string | null, string, string, string, string, string, string][] = [
  ['Jeroen', 'van der', 'Geer', 'Amsterdam', 'NL', 'nl', 'ABNA', '0417164300'],
  ['Sanne', null, 'Bakker', 'Utrecht', 'NL', 'nl', 'RABO', '0123456789'],
  ['Daan', 'de', 'Vries', 'Rotterdam', 'NL', 'en', 'INGB', '0001234567'],
  ['Emma', null, 'Janssens', 'Antwerpen', 'BE', 'nl-be', '', ''],
  ['Lucas', null, 'Peeters', 'Gent', 'BE', 'fr', '', ''],
  ['Sophie', null, 'Müller', 'Köln', 'DE', 'de', '', ''],
  ['Noah', null, 'Visser', 'Groningen', 'NL', 'nl', 'ABNA', '0581234561'],
  ['Julia', 'van', 'Dijk', 'Den Haag', 'NL', 'en', 'TRIO', '0212345678'],
  ['Milan', null, 'Smit', 'Eindhoven', 'NL', 'nl', 'BUNQ', '2090123456'],
  ['Tess', null, 'Meijer', 'Haarlem', 'NL', 'nl', 'SNSB', '0987654321'],
  ['Lars', null, 'Hoffmann', 'Berlin', 'DE', 'de', '', ''],
  ['Camille', null, 'Dubois', 'Bruxelles', 'BE', 'fr', '', ''],
];

type Line = { description: string; amount: string; tax_rate: string; quantity?: number; tax_included?: boolean };
/** [subscription, lines, finalised] */
const INVOICES: [number, Line[], boolean][] = [
  [1, [{ description: 'Personal training session', amount: '45.00', tax_rate: '21', quantity: 2 }, { description: 'Protein shake', amount: '3.50', tax_rate: '9', quantity: 4, tax_included: true }], true],
  [2, [{ description: 'Coffee grinder', amount: '89.00', tax_rate: '21' }, { description: 'Loyalty discount', amount: '-10.00', tax_rate: '21' }], true],
  [3, [{ description: 'On-site support, half day', amount: '360.00', tax_rate: '21' }], false],
];

/** How many customers get a subscription, and how many of those are active. */
const SUBSCRIBED = 8;
const ACTIVE = 6;

function customerAttributes([first, middle, last, city, country, language, bank, account]: (typeof PEOPLE)[number], index: number) {
  const iban = bank ? composeIBAN({ countryCode: 'NL', bban: `${bank}${account}` }) : null;
  return {
    first_name: first,
    middle_name: middle,
    last_name: last,
    email: `${first.toLowerCase()}.${last.normalize('NFD').toLowerCase().replace(/[^a-z]/g, '')}@example.com`,
    city,
    country_iso2: country,
    language,
    telephone: `+31 6 ${String(12345670 + index).padStart(8, '0')}`,
    ...(iban ? { iban, bank_holder: `${first[0]}. ${middle ? `${middle} ` : ''}${last}` } : {}),
  };
}

export async function run(deps: Deps): Promise<void> {
  const core = await deps.core('demo');
  const existing = (await send(deps, { method: 'GET', path: '/customers', query: { 'page[size]': 1 } })).body as { meta: { total: number } };
  if (existing.meta.total > 0) {
    if (!deps.globals.quiet) deps.io.err(`the store already has ${existing.meta.total} customers; showing them (store: ${core.store.location})\n`);
  } else {
    const ctx = { store: core.store, clock: core.clock, account: await core.account() };
    for (const plan of PLANS) {
      const result = await createPlan(ctx, plan);
      if (!result.ok) throw new Error(`demo plan refused: ${JSON.stringify(result.failure)}`);
    }
    for (const [index, person] of PEOPLE.entries()) {
      await send(deps, { method: 'POST', path: '/customers', body: { data: { type: 'customer', attributes: customerAttributes(person, index) } } });
    }
    // Subscriptions of the first eight: six active from the first of next month (their mandates
    // accepted today, a first collection scheduled each), two waiting for the customer to accept.
    const today = new Date(core.clock.now());
    const nextMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
    const accepted = today.toISOString().slice(0, 10);
    for (let i = 0; i < SUBSCRIBED; i++) {
      const active = i < ACTIVE;
      const attributes = {
        customer_id: i + 1,
        subscription_plan_id: (i % PLANS.length) + 1,
        start_date: nextMonth,
        ...(active ? { status: 'active', mandate_accepted: true, mandate_accepted_date: accepted } : {}),
      };
      await send(deps, { method: 'POST', path: '/subscriptions', body: { data: { type: 'subscription', attributes } } });
    }
    // Invoices of the first three: two finalised (INV-1 collected today, INV-2 with a discount), one draft.
    for (const [subscription, lines, finalise] of INVOICES) {
      const invoice = (await send(deps, { method: 'POST', path: '/invoices', body: { data: { type: 'invoice', attributes: { subscription_id: subscription } } } })).body as { data: { id: string } };
      for (const line of lines) {
        await send(deps, { method: 'POST', path: '/invoice-lines', body: { data: { type: 'invoice-line', attributes: { invoice_id: Number(invoice.data.id), ...line } } } });
      }
      if (finalise) await send(deps, { method: 'PATCH', path: `/invoices/${invoice.data.id}/finalise` });
    }
    if (!deps.globals.quiet) deps.io.err(`added ${PLANS.length} plans, ${PEOPLE.length} customers, ${SUBSCRIBED} subscriptions and ${INVOICES.length} invoices to ${core.store.location}\n`);
  }
  // With --json the output stays one document: the customers.
  if (deps.globals.output === 'table') {
    await runList(deps, '/subscription-plans', 'subscription-plan', { fields: {}, all: true });
    await runList(deps, '/subscriptions', 'subscription', { fields: {}, all: false, pageSize: 20 });
    await runList(deps, '/invoices', 'invoice', { fields: {}, all: false, pageSize: 20 });
  }
  await runList(deps, '/customers', 'customer', { fields: {}, all: false, pageSize: 20 });
  if (!deps.globals.quiet && deps.globals.output === 'table') {
    deps.io.err('next: billing customers get 1 · billing invoices finalise 3 · billing subscriptions transactions 1 · billing clock advance P1M · billing plans list --json\n');
  }
}

export function configure(cmd: Command, invoke: Invoke): void {
  refusesDryRun(cmd, 'it writes a whole sample; try it on a throwaway store instead: billing --db /tmp/try.db demo')
    .addHelpText('after', examples('billing demo', 'billing --db /tmp/try.db demo', 'billing demo --json'))
    .action((_opts: unknown, command: Command) => invoke(command, run));
}
