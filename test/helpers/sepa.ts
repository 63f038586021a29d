// An embedded core whose account collects by SEPA, and the few steps the SEPA tests repeat:
// customers with IBANs on accepted mandates, batches, their files, the bank's reports sent back.
import { expect } from 'vitest';
import type { ApiResponse } from '../../src/lib/api/http.js';
import { updateAccount, type AccountSettings } from '../../src/lib/core/accounts.js';
import type { Clock } from '../../src/lib/core/clock.js';
import { createPlan } from '../../src/lib/core/plan-writes.js';
import { testCore, type TestCore } from './store.js';

export const CREDITOR = {
  creditor_id: 'NL57ZZZ999999999999',
  creditor_name: 'Sportclub Zuid',
  creditor_iban: 'NL91ABNA0417164300',
} as const;

/** IBANs that pass their check digits: two accounts at one Dutch bank, one at another, one Belgian. */
export const IBANS = {
  abn: 'NL02ABNA0123456789',
  abn2: 'NL37ABNA0417164302',
  rabo: 'NL39RABO0300065264',
  be: 'BE68539007547034',
} as const;

type Json = any;

export interface Answer extends ApiResponse {
  body: Json;
}

/** One request through the router, as HTTP would hand it over. */
export async function call(
  core: TestCore,
  method: string,
  path: string,
  body?: unknown,
  query?: string,
): Promise<Answer> {
  return (await core.router.handle(
    { method, path, query, body: body === undefined ? undefined : JSON.stringify(body) },
    await core.account(),
  )) as Answer;
}

export async function ok(
  core: TestCore,
  method: string,
  path: string,
  status: number,
  body?: unknown,
  query?: string,
): Promise<Json> {
  const answer = await call(core, method, path, body, query);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
  return answer.body;
}

/** A core whose default account collects by SEPA, with the creditor set up (unless `creditor` says otherwise). */
export async function sepaCore(
  options: { clock?: Clock; settings?: AccountSettings; dbPath?: string } = {},
): Promise<TestCore> {
  const core = await testCore({ clock: options.clock, dbPath: options.dbPath });
  const updated = await updateAccount(core.store, core.clock, 'default', {
    collection: 'sepa',
    ...CREDITOR,
    ...options.settings,
  });
  expect(updated.ok, JSON.stringify(updated)).toBe(true);
  return core;
}

export async function makePlan(core: TestCore, attributes: Record<string, unknown> = {}): Promise<string> {
  const made = await createPlan(
    { store: core.store, clock: core.clock, account: await core.account() },
    { name: 'Membership', amount: '12.50', frequency: 'monthly', storno_retries: 2, ...attributes },
  );
  expect(made.ok, JSON.stringify(made)).toBe(true);
  return String((made as { value: { id: number } }).value.id);
}

export interface Member {
  customer: string;
  subscription: string;
}

/** A customer paying by direct debit from `iban` on an accepted mandate, subscribed (active) to the plan. */
export async function subscribe(
  core: TestCore,
  plan: string,
  o: {
    first?: string;
    last?: string;
    iban?: string | null;
    holder?: string;
    language?: string;
    telephone?: string;
    signed?: string;
    start?: string;
    accepted?: boolean;
    mandate?: string;
    n?: number;
  } = {},
): Promise<Member> {
  const n = o.n ?? Math.floor(Math.random() * 1e9);
  const customer = await ok(core, 'POST', '/customers', 201, {
    data: {
      type: 'customer',
      attributes: {
        first_name: o.first ?? 'Jan',
        last_name: o.last ?? `Jansen${n}`,
        email: `member${n}@example.com`,
        language: o.language ?? 'nl',
        ...(o.telephone ? { telephone: o.telephone } : {}),
        ...(o.iban === null
          ? {}
          : { iban: o.iban ?? IBANS.abn, bank_holder: o.holder ?? `${o.first ?? 'Jan'} ${o.last ?? 'Jansen'}` }),
      },
    },
  });
  const accepted = o.accepted ?? true;
  const subscription = await ok(core, 'POST', '/subscriptions', 201, {
    data: {
      type: 'subscription',
      attributes: {
        customer_id: customer.data.id,
        subscription_plan_id: plan,
        status: 'active',
        ...(accepted
          ? { mandate_accepted: true, mandate_accepted_date: o.signed ?? '2026-11-01' }
          : { confirmation_sent: true }),
        ...(o.start ? { start_date: o.start } : {}),
        ...(o.mandate ? { mandate_code: o.mandate } : {}),
      },
    },
  });
  return { customer: customer.data.id, subscription: subscription.data.id };
}

/** An invoice of the subscription with one line (a shirt, 20.00 + 21% = 24.20), finalised: PATCH …/finalise's document. */
export async function finalisedShirt(core: TestCore, subscription: string): Promise<Json> {
  const invoice = await ok(core, 'POST', '/invoices', 201, {
    data: { type: 'invoice', attributes: { subscription_id: subscription } },
  });
  await ok(core, 'POST', '/invoice-lines', 201, {
    data: {
      type: 'invoice-line',
      attributes: { invoice_id: invoice.data.id, description: 'Shirt', amount: '20', tax_rate: '21' },
    },
  });
  return ok(core, 'PATCH', `/invoices/${invoice.data.id}/finalise`, 200);
}

/** POST /collections: 201 and the batch, or 200 with data null when nothing went in. */
export async function batch(core: TestCore, until?: string): Promise<Json> {
  const answer = await call(core, 'POST', '/collections', {
    data: { type: 'collection', attributes: until ? { until } : {} },
  });
  expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
  return answer.body;
}

/** A batch's file, as GET /collections/{id}/file streams it. */
export async function fileOf(core: TestCore, id: string | number, format?: string): Promise<string> {
  const answer = await call(core, 'GET', `/collections/${id}/file`, undefined, format ? `format=${format}` : undefined);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.headers['content-type']).toBe('application/xml; charset=utf-8');
  let text = '';
  await answer.pipe!((chunk) => void (text += chunk));
  return text;
}

/** POST /bank-reports with the XML. */
export async function report(core: TestCore, xml: string): Promise<Answer> {
  return (await core.router.handle(
    { method: 'POST', path: '/bank-reports', upload: { contentType: 'application/xml', body: Buffer.from(xml) } },
    await core.account(),
  )) as Answer;
}

/** A subscription's transactions, newest due date first. */
export const transactionsOf = async (core: TestCore, subscription: string): Promise<Json[]> =>
  (await ok(core, 'GET', `/subscriptions/${subscription}/transactions`, 200, undefined, 'page[size]=100')).data;

/** Values of the elements of a name in an XML text, in order. */
export const values = (xml: string, name: string): string[] =>
  [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]);
