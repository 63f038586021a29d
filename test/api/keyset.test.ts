// Keyset paging (page[after]=ID) through the router, on both engines: the rows after an id in
// ascending id order, the filters still applying, links that walk on from the last id, no count,
// and the combinations it refuses. The page[number] answers are the reference it must agree with.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/lib/core/accounts.js';
import type { Runtime } from '../../src/lib/runtime/runtime.js';
import { testCore } from '../helpers/store.js';
import {
  BASE,
  createCustomer,
  customerBody,
  expectError,
  insertSubscription,
  link,
  makePlan,
  send,
  type Answer,
} from './support.js';

const ids = (answer: Answer): number[] => answer.body.data.map((r: { id: string }) => Number(r.id));

function ok(answer: Answer): Answer {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer;
}

/** Follows links.next from a first query; the pages, each checked to be 200. */
async function walk(core: Runtime, path: string, query: string): Promise<Answer[]> {
  const pages = [ok(await send(core, 'GET', path, { query }))];
  for (let next = pages[0].body.links.next; next; next = pages[pages.length - 1].body.links.next) {
    const url = new URL(next);
    pages.push(ok(await send(core, 'GET', url.pathname, { query: url.search.slice(1) })));
    if (pages.length > 50) throw new Error('links.next does not end');
  }
  return pages;
}

const walked = async (core: Runtime, path: string, query: string) => (await walk(core, path, query)).flatMap(ids);

/** Customers 1..count; every third archived; every other one's email at example.org. */
async function customers(core: Runtime, count: number): Promise<number[]> {
  const made: number[] = [];
  for (let n = 1; n <= count; n++) {
    const id = await createCustomer(core, {
      first_name: `First${n}`,
      last_name: n % 2 ? 'Jansen' : 'Bakker',
      email: `person${n}@example.${n % 2 ? 'com' : 'org'}`,
    });
    if (n % 3 === 0)
      expect(
        (await send(core, 'PATCH', `/customers/${id}`, { body: customerBody({ archived: true }, id) })).status,
      ).toBe(200);
    made.push(Number(id));
  }
  return made;
}

describe('GET /customers?page[after]=ID', () => {
  it('walks every customer in ascending id order, as the numbered pages list them, with links from the last id', async () => {
    const core = await testCore();
    const all = await customers(core, 7);
    const pages = await walk(core, '/customers', 'page[after]=0&page[size]=3');
    expect(pages.map(ids)).toEqual([all.slice(0, 3), all.slice(3, 6), all.slice(6)]);
    expect(pages.flatMap(ids)).toEqual(await walked(core, '/customers', 'page[size]=3'));

    const [first, second, last] = pages;
    const at = `${BASE}/customers`;
    expect(link(first.body.links.self)).toEqual({ at, params: { 'page[after]': '0', 'page[size]': '3' } });
    expect(link(first.body.links.next)).toEqual({ at, params: { 'page[after]': String(all[2]), 'page[size]': '3' } });
    expect(link(second.body.links.self)).toEqual({ at, params: { 'page[after]': String(all[2]), 'page[size]': '3' } });
    expect(link(second.body.links.next)).toEqual({ at, params: { 'page[after]': String(all[5]), 'page[size]': '3' } });
    expect(last.body.links.next).toBeNull();
    for (const page of pages) {
      // Forward only, uncounted: no prev, no last, no meta.total; first is the walk's start.
      expect(page.body.links.prev).toBeNull();
      expect(page.body.links.last).toBeNull();
      expect(link(page.body.links.first)).toEqual({ at, params: { 'page[after]': '0', 'page[size]': '3' } });
      expect(page.body.meta).toBeUndefined();
    }
    // Spelt as pageUrl spells page[number]: brackets percent-encoded.
    expect(first.body.links.next).toBe(`${at}?page%5Bafter%5D=${all[2]}&page%5Bsize%5D=3`);
    // The resources are the very ones the numbered page shows.
    expect(second.body.data).toEqual(
      ok(await send(core, 'GET', '/customers', { query: 'page[number]=2&page[size]=3' })).body.data,
    );
  });

  it('starts after any id, present or not; the last page is null-linked even when it is exactly full', async () => {
    const core = await testCore();
    const all = await customers(core, 6);
    expect(ids(ok(await send(core, 'GET', '/customers', { query: `page[after]=${all[1]}&page[size]=2` })))).toEqual(
      all.slice(2, 4),
    );
    const full = ok(await send(core, 'GET', '/customers', { query: `page[after]=${all[3]}&page[size]=2` }));
    expect(ids(full)).toEqual(all.slice(4));
    expect(full.body.links.next).toBeNull();
    const past = ok(await send(core, 'GET', '/customers', { query: `page[after]=${all[5]}` }));
    expect(past.body.data).toEqual([]);
    expect(past.body.links.next).toBeNull();
    expect(link(past.body.links.self)!.params).toEqual({ 'page[after]': String(all[5]), 'page[size]': '10' });
    expect(ids(ok(await send(core, 'GET', '/customers', { query: 'page[after]=999999' })))).toEqual([]);
    // Spelt either way on input, as every parameter is.
    expect(ids(ok(await send(core, 'GET', '/customers', { query: `page%5Bafter%5D=${all[4]}` })))).toEqual([all[5]]);
  });

  it('keeps the filters (each kind of index), fields, include and sort=id, in the rows and in the links', async () => {
    const core = await testCore();
    await customers(core, 12);
    for (const filter of [
      'filter[archived]=true',
      'filter[archived]=false',
      'filter[search]=example.org',
      'filter[search]=jan',
      'filter[search]=t1',
      'filter[email]=PERSON4%40example.org',
      'filter[search]=jansen&filter[archived]=false',
    ]) {
      const want = await walked(core, '/customers', `${filter}&sort=id&page[size]=100`);
      expect(want.length, filter).toBeGreaterThan(0);
      const pages = await walk(
        core,
        '/customers',
        `${filter}&fields[customer]=email&include=subscriptions&sort=id&page[after]=0&page[size]=2`,
      );
      expect(pages.flatMap(ids), filter).toEqual(want);
      for (const page of pages) {
        expect(Object.keys(page.body.data[0]?.attributes ?? { email: '' })).toEqual(['email']);
        expect(page.body.included).toEqual([]);
        for (const name of ['self', 'next', 'first'] as const) {
          if (page.body.links[name])
            expect(link(page.body.links[name])!.params, `${filter} ${name}`).toMatchObject({
              'fields[customer]': 'email',
              include: 'subscriptions',
              sort: 'id',
            });
        }
      }
    }
  });

  it("never shows another account's customers, whose ids lie between", async () => {
    const a = await testCore();
    expect((await createAccount(a.store, a.clock, 'bravo')).ok).toBe(true);
    const b = await testCore({ dbPath: a.dbPath, account: 'bravo' });
    const mine: number[] = [];
    for (let n = 1; n <= 4; n++) {
      mine.push(Number(await createCustomer(a, { first_name: 'A', last_name: `A${n}`, email: `a${n}@example.com` })));
      await createCustomer(b, { first_name: 'B', last_name: `B${n}`, email: `b${n}@example.com` });
    }
    expect(await walked(a, '/customers', 'page[after]=0&page[size]=1')).toEqual(mine);
  });
});

describe('page[after] on the other collections in id order', () => {
  it('plans, subscriptions (filtered by customer), the subscriptions of a customer and of a plan, invoices, lines and notifications', async () => {
    const core = await testCore();
    const [c1, c2] = [
      await createCustomer(core),
      await createCustomer(core, { first_name: 'B', last_name: 'B', email: 'b@example.com' }),
    ];
    const plans = [
      await makePlan(core, { name: 'Gold', amount: '12.50' }),
      await makePlan(core, { name: 'Silver', amount: '5.00' }),
      await makePlan(core, { name: 'Bronze', amount: '1.00' }),
    ];
    // Three made through the API (each records a mandate confirmation), four put in directly.
    for (let n = 0; n < 7; n++) {
      if (n >= 3) await insertSubscription(core, n % 2 ? c2 : c1, plans[n % 2]);
      else {
        const attributes = { customer_id: Number(n % 2 ? c2 : c1), subscription_plan_id: plans[n % 2] };
        expect(
          (await send(core, 'POST', '/subscriptions', { body: { data: { type: 'subscription', attributes } } })).status,
        ).toBe(201);
      }
    }
    const subscription = ok(await send(core, 'GET', '/subscriptions', { query: `filter[customer_id]=${c1}` })).body
      .data[0].id as string;
    const invoices: string[] = [];
    for (let n = 0; n < 3; n++) {
      const answer = await send(core, 'POST', '/invoices', {
        body: { data: { type: 'invoice', attributes: { subscription_id: Number(subscription) } } },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      invoices.push(answer.body.data.id);
    }
    for (let n = 0; n < 3; n++) {
      const line = {
        invoice_id: Number(invoices[0]),
        description: `line ${n}`,
        amount: 1,
        tax_rate: 21,
        tax_included: false,
        quantity: 1,
      };
      expect(
        (await send(core, 'POST', '/invoice-lines', { body: { data: { type: 'invoice-line', attributes: line } } }))
          .status,
      ).toBe(201);
    }
    for (const [path, filter] of [
      ['/subscription-plans', ''],
      ['/subscription-plans', 'filter[status]=active&'],
      ['/subscriptions', ''],
      ['/subscriptions', `filter[customer_id]=${c1}&`],
      ['/subscriptions', `filter[subscription_plan_id]=${plans[0]}&`],
      [`/customers/${c2}/subscriptions`, ''],
      [`/subscription-plans/${plans[0]}/subscriptions`, ''],
      ['/invoices', `filter[subscription_id]=${subscription}&`],
      [`/invoices/${invoices[0]}/lines`, ''],
      ['/notifications', ''],
    ]) {
      const want = await walked(core, path, `${filter}page[size]=100`);
      expect(want.length, path).toBeGreaterThan(2);
      const pages = await walk(core, path, `${filter}page[after]=0&page[size]=2`);
      expect(pages.flatMap(ids), `${path}?${filter}`).toEqual(want);
      expect(pages.length, path).toBe(Math.ceil(want.length / 2));
      expect(link(pages[0].body.links.next)?.params['page[after]'], path).toBe(String(want[1]));
      expect(pages[pages.length - 1].body.links.next).toBeNull();
      // The rows after the second id, directly.
      expect(
        ids(ok(await send(core, 'GET', path, { query: `${filter}page[after]=${want[1]}&page[size]=100` }))),
        path,
      ).toEqual(want.slice(2));
    }
  });
});

describe('what page[after] refuses: 400 Invalid Parameter naming page[after]', () => {
  it('a value that is not an id, beside page[number], beside a sort other than ascending id, given twice', async () => {
    const core = await testCore();
    await createCustomer(core);
    for (const query of [
      'page[after]=-1',
      'page[after]=abc',
      'page[after]=1.5',
      'page[after]=',
      'page[after]=9007199254740992',
      'page[after]=1&page[number]=1',
      'page[number]=2&page[after]=1',
      'page[after]=0&sort=created_at',
      'page[after]=0&sort=-id',
      'sort=-email&page[after]=3',
      'page[after]=1&page%5Bafter%5D=2',
    ]) {
      expectError(await send(core, 'GET', '/customers', { query }), 400, 'Invalid Parameter', {
        parameter: 'page[after]',
      });
    }
    const mixed = await send(core, 'GET', '/customers', { query: 'page[after]=1&page[number]=1' });
    expect(mixed.body.errors[0].detail).toMatch(/page\[number\]/);
    const sorted = await send(core, 'GET', '/customers', { query: 'sort=-created_at&page[after]=1' });
    expect(sorted.body.errors[0].detail).toMatch(/sort=-created_at/);
    // page[size] beside it is what it is for; an unknown page parameter is still refused.
    expect(ok(await send(core, 'GET', '/customers', { query: 'page[after]=0&page[size]=1' })).body.data).toHaveLength(
      1,
    );
    expectError(await send(core, 'GET', '/customers', { query: 'page[before]=1' }), 400, 'Invalid Parameter', {
      parameter: 'page[before]',
    });
    expectError(
      await send(core, 'GET', '/customers', { query: 'page[after]=0&page[size]=101' }),
      400,
      'Invalid Parameter',
      { parameter: 'page[size]' },
    );
  });

  it("a subscription's transactions, newest due date first with UUID ids, have no keyset", async () => {
    const core = await testCore();
    const subscription = await insertSubscription(core, await createCustomer(core), await makePlan(core));
    const answer = await send(core, 'GET', `/subscriptions/${subscription}/transactions`, { query: 'page[after]=0' });
    expectError(answer, 400, 'Invalid Parameter', { parameter: 'page[after]' });
    expect(answer.body.errors[0].detail).toMatch(/not in id order/);
    expect(
      ok(await send(core, 'GET', `/subscriptions/${subscription}/transactions`, { query: 'page[number]=1' })).body.meta,
    ).toEqual({ total: 0 });
  });

  it('the numbered pages are as they were: counted, with every link', async () => {
    const core = await testCore();
    await customers(core, 3);
    const answer = ok(await send(core, 'GET', '/customers', { query: 'page[number]=2&page[size]=2' }));
    expect(answer.body.meta).toEqual({ total: 3 });
    expect(answer.body.links).toEqual({
      self: `${BASE}/customers?page%5Bnumber%5D=2&page%5Bsize%5D=2`,
      first: `${BASE}/customers?page%5Bnumber%5D=1&page%5Bsize%5D=2`,
      last: `${BASE}/customers?page%5Bnumber%5D=2&page%5Bsize%5D=2`,
      prev: `${BASE}/customers?page%5Bnumber%5D=1&page%5Bsize%5D=2`,
      next: null,
    });
  });
});
