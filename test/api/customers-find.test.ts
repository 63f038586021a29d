// Finding customers and plans: filter[...] and sort on GET /customers and /subscription-plans,
// through the router, on both engines. The pages are checked against a model of the rows.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/lib/core/accounts.js';
import type { Runtime } from '../../src/lib/runtime/runtime.js';
import { testCore } from '../helpers/store.js';
import {
  BASE,
  TestClock,
  createCustomer,
  customerBody,
  expectError,
  link,
  makePlan,
  send,
  type Answer,
} from './support.js';

const HOUR = 3_600_000;
const ids = (answer: Answer): string[] => answer.body.data.map((c: { id: string }) => c.id);

interface Person {
  first_name: string;
  middle_name?: string;
  last_name: string;
  company_name?: string;
  email: string;
  city?: string;
  archived?: boolean;
  /** Hours after the start of the test's clock: not in id order, with ties. */
  at: number;
}

const PEOPLE: Person[] = [
  { first_name: 'Jan', last_name: 'Jansen', email: 'Jan.Jansen@EXAMPLE.com', at: 0 },
  { first_name: 'Anna', middle_name: 'van', last_name: 'de Vries', email: 'anna@example.org', at: 0 },
  {
    first_name: 'Piet',
    last_name: 'Bakker',
    company_name: 'Bakkerij Jan BV',
    email: 'piet@bakkerij.nl',
    at: 3,
    archived: true,
  },
  { first_name: 'Sanne', last_name: 'bakker', email: 'o_neil@example.com', at: -2 },
  { first_name: 'Olga', last_name: 'Neil', email: 'olneil@example.com', at: -2 },
  { first_name: 'Kees', last_name: 'Zwart', company_name: '100% Echt', email: 'kees@zwart.example', at: 5 },
  {
    first_name: 'Karel',
    last_name: 'Aalders',
    company_name: 'Back\\slash Holding',
    email: '100%real@example.org',
    at: 5,
    archived: true,
  },
  { first_name: 'Mila', last_name: 'Ödegaard', company_name: 'The "Best" Shop', email: 'mila@example.ORG', at: 1 },
  { first_name: 'JANNEKE', last_name: 'Smit', email: 'janneke@example.com', at: 1, city: 'Zandvoort' },
  { first_name: 'Noor', middle_name: 'de', last_name: 'Jong', email: 'noor@elders.example', at: 4, city: 'Jansdorp' },
  { first_name: 'Bram', last_name: 'Visser', email: 'bram@example.com', at: 2, archived: true },
  { first_name: 'Fenna', last_name: 'de Boer', email: 'fenna_db@example.com', at: 2 },
  { first_name: 'Ties', last_name: 'Mulder', company_name: 'an', email: 'ties@example.com', at: -1 },
  { first_name: 'Lotte', last_name: 'Bos', email: 'LOTTE@EXAMPLE.COM', at: 6 },
  { first_name: 'Daan', last_name: 'Smit', email: 'daan@example.net', at: 1, archived: true },
];

interface Stored extends Person {
  id: number;
  created: number;
}

/** The people, created through the API at their own times (and some archived); returns them with their ids. */
async function seed(core: Runtime, clock: TestClock, people: Person[] = PEOPLE): Promise<Stored[]> {
  const start = clock.ms;
  const stored: Stored[] = [];
  for (const { at, archived, ...attributes } of people) {
    clock.ms = start + at * HOUR;
    const id = await createCustomer(core, attributes);
    if (archived)
      expect(
        (await send(core, 'PATCH', `/customers/${id}`, { body: customerBody({ archived: true }, id) })).status,
      ).toBe(200);
    stored.push({ ...attributes, at, archived, id: Number(id), created: clock.ms });
  }
  return stored;
}

const lower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** Search's folding, as docs/commands.md states it: case and accents off, apostrophes out, separators one space. */
const fold = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/'/g, '')
    .replace(/[\s|,;:!?"()]+/g, ' ')
    .trim();
/** The text a person is found by: name, company and email (these people have no IBAN or phone). */
const textOf = (p: Person) =>
  [
    fold([p.first_name, p.middle_name, p.last_name].filter(Boolean).join(' ')),
    fold(p.company_name ?? ''),
    fold(p.email),
    '',
    '',
  ].join(' | ');
/** Best first: the whole name; the name's start; whole words of the name; a word's start in it; each term whole; each at a word's start; the rest. */
function rank(p: Person, words: string[]): number {
  const text = textOf(p);
  const name = ` ${text.split(' | ')[0]} `;
  const typed = words.join(' ');
  if (text.startsWith(`${typed} | `)) return 0;
  if (text.startsWith(typed)) return 1;
  if (name.includes(` ${typed} `)) return 2;
  if (name.includes(` ${typed}`)) return 3;
  if (words.every((word) => ` ${text} `.includes(` ${word} `))) return 4;
  return words.every((word) => ` ${text}`.includes(` ${word}`)) ? 5 : 6;
}

/** What the API must answer, computed from the model: the matching ids in order. */
function expected(people: Stored[], filters: Record<string, string>, sort?: string): number[] {
  const email = filters['filter[email]'];
  const search = filters['filter[search]'];
  const words = search === undefined ? [] : [...new Set(fold(search).split(' ').filter(Boolean))];
  const archived = filters['filter[archived]'];
  const found = people.filter(
    (p) =>
      (email === undefined || lower(p.email) === lower(email.trim())) &&
      words.every((word) => textOf(p).includes(word)) &&
      (archived === undefined || Boolean(p.archived) === (archived === 'true')),
  );
  if (words.length && sort === undefined) {
    found.sort((a, b) => rank(a, words) - rank(b, words) || compare(textOf(a), textOf(b)) || a.id - b.id);
    return found.map((p) => p.id);
  }
  const descending = sort?.startsWith('-') ?? false;
  const field = sort?.replace(/^-/, '') ?? 'id';
  const key = (p: Stored): string | number =>
    field === 'created_at'
      ? p.created
      : field === 'last_name'
        ? lower(p.last_name)
        : field === 'email'
          ? lower(p.email)
          : p.id;
  found.sort((a, b) => (compare(key(a), key(b)) || compare(a.id, b.id)) * (descending ? -1 : 1));
  return found.map((p) => p.id);
}

/** Every page of a listing, following links.next; checks meta.total on each. */
async function allPages(core: Runtime, query: string): Promise<{ ids: number[]; pages: Answer[] }> {
  const pages: Answer[] = [await send(core, 'GET', '/customers', { query })];
  for (;;) {
    const last = pages[pages.length - 1];
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    if (!last.body.links.next) break;
    const next = new URL(last.body.links.next);
    pages.push(await send(core, 'GET', next.pathname, { query: next.search.slice(1) }));
    if (pages.length > 50) throw new Error('links.next does not end');
  }
  return { ids: pages.flatMap((p) => ids(p).map(Number)), pages };
}

describe('GET /customers with filter[...] and sort, against a model', () => {
  const FILTERS: Record<string, string>[] = [
    {},
    { 'filter[archived]': 'true' },
    { 'filter[archived]': 'false' },
    { 'filter[search]': 'an' }, // shorter than a trigram: the scan
    { 'filter[search]': 'JAN' },
    { 'filter[search]': ' jan ' },
    { 'filter[search]': 'example.ORG' },
    { 'filter[search]': 'o_n' }, // _ is no wildcard: not olneil
    { 'filter[search]': '_' },
    { 'filter[search]': '%' },
    { 'filter[search]': '0% ' },
    { 'filter[search]': '\\' },
    { 'filter[search]': 'k\\s' },
    { 'filter[search]': '"be' }, // a quote inside an FTS5 phrase
    { 'filter[search]': 'e"' },
    { 'filter[search]': 'OR' }, // FTS5 syntax is taken as text
    { 'filter[search]': 'an*' },
    { 'filter[search]': 'jan OR piet' }, // every word: jan, or and piet
    { 'filter[search]': 'bakker piet' }, // any order
    { 'filter[search]': 'van de vries' },
    { 'filter[search]': 'NEAR(jan' },
    { 'filter[search]': 'zand' }, // only in a city: not searched
    { 'filter[search]': 'n j' }, // two words, each anywhere
    { 'filter[search]': 'Ödeg' },
    { 'filter[search]': 'odeg' }, // accents aside, on both engines
    { 'filter[email]': 'jan.jansen@example.COM' },
    { 'filter[email]': ' lotte@example.com ' },
    { 'filter[email]': 'jan.jansen@example' }, // exact, not a prefix
    { 'filter[email]': 'bram@example.com', 'filter[archived]': 'true' },
    { 'filter[email]': 'bram@example.com', 'filter[archived]': 'false' },
    { 'filter[search]': 'example', 'filter[archived]': 'true' },
    { 'filter[search]': 'ak', 'filter[archived]': 'false' },
  ];
  const SORTS = [undefined, 'id', '-id', 'created_at', '-created_at', 'last_name', '-last_name', 'email', '-email'];

  it('each filter and sort, and each pair, gives exactly the matching customers in order, page after page', async () => {
    const clock = new TestClock();
    const core = await testCore({ clock });
    const people = await seed(core, clock);
    let nonEmpty = 0;
    for (const filters of FILTERS) {
      for (const sort of SORTS) {
        const params = { ...filters, ...(sort ? { sort } : {}) };
        const query = [...Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(v)}`), 'page[size]=4'].join(
          '&',
        );
        const want = expected(people, filters, sort);
        const { ids: got, pages } = await allPages(core, query);
        expect(got, query).toEqual(want);
        for (const page of pages) {
          expect(page.body.meta.total, query).toBe(want.length);
          // The links keep the filters and the sort.
          for (const name of ['self', 'first', 'last', 'next', 'prev'] as const) {
            if (page.body.links[name] !== null)
              expect(link(page.body.links[name])!.params, `${query} ${name}`).toMatchObject(params);
          }
        }
        if (want.length > 0) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(150); // the model is not trivially empty
  });

  it('a page past the end of a filtered set is empty, with the filtered total', async () => {
    const clock = new TestClock();
    const core = await testCore({ clock });
    const people = await seed(core, clock);
    const archived = people.filter((p) => p.archived).length;
    for (const sort of ['', '&sort=-created_at', '&sort=email']) {
      const answer = await send(core, 'GET', '/customers', {
        query: `filter[archived]=true&page[number]=3&page[size]=2${sort}`,
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual([]);
      expect(answer.body.meta.total).toBe(archived);
      expect(link(answer.body.links.last)?.params['page[number]']).toBe(String(Math.ceil(archived / 2)));
    }
  });
});

describe('GET /customers?filter[email]=...', () => {
  it("finds the customer whatever the email's case, and only in the account asking", async () => {
    const a = await testCore();
    const mine = await createCustomer(a, { first_name: 'Jan', last_name: 'Jansen', email: 'Jan@Example.com' });
    await createCustomer(a, { first_name: 'Jan', last_name: 'Other', email: 'jan@example.org' });
    const result = await createAccount(a.store, a.clock, 'bravo');
    expect(result.ok).toBe(true);
    const b = await testCore({ dbPath: a.dbPath, account: 'bravo' });
    const theirs = await createCustomer(b, { first_name: 'Jan', last_name: 'Elsewhere', email: 'jan@example.com' });

    const answer = await send(a, 'GET', '/customers', { query: 'filter[email]=JAN%40example.COM' });
    expect(answer.status).toBe(200);
    expect(ids(answer)).toEqual([mine]);
    expect(answer.body.meta.total).toBe(1);
    expect(answer.body.data[0].attributes.email).toBe('Jan@Example.com');
    expect(ids(await send(b, 'GET', '/customers', { query: 'filter[email]=jan@example.com' }))).toEqual([theirs]);
    expect(ids(await send(b, 'GET', '/customers', { query: 'filter[search]=jansen' }))).toEqual([]);
  });

  it('with include and fields, embeds and trims as the plain list does; the links keep every parameter', async () => {
    const core = await testCore();
    const id = await createCustomer(core, { first_name: 'Jan', last_name: 'Jansen', email: 'jan+billing@example.com' });
    const query =
      'filter[email]=JAN%2Bbilling%40example.com&include=subscriptions&fields[customer]=email&sort=-created_at';
    const answer = await send(core, 'GET', '/customers', { query });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([
      expect.objectContaining({ id, attributes: { email: 'jan+billing@example.com' } }),
    ]);
    expect(answer.body.included).toEqual([]);
    expect(link(answer.body.links.self)).toEqual({
      at: `${BASE}/customers`,
      params: {
        'filter[email]': 'JAN+billing@example.com',
        include: 'subscriptions',
        'fields[customer]': 'email',
        sort: '-created_at',
        'page[number]': '1',
        'page[size]': '10',
      },
    });
  });
});

describe('GET /customers?filter[search]=...', () => {
  it('follows changes: a new name is found, the old one no longer', async () => {
    const core = await testCore();
    const id = await createCustomer(core, { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' });
    expect(ids(await send(core, 'GET', '/customers', { query: 'filter[search]=jansen' }))).toEqual([id]);
    expect(
      (
        await send(core, 'PATCH', `/customers/${id}`, {
          body: customerBody({ last_name: 'Pietersen', company_name: 'Kaas BV' }, id),
        })
      ).status,
    ).toBe(200);
    expect(ids(await send(core, 'GET', '/customers', { query: 'filter[search]=jansen' }))).toEqual([]);
    expect(ids(await send(core, 'GET', '/customers', { query: 'filter[search]=PIETER' }))).toEqual([id]);
    expect(ids(await send(core, 'GET', '/customers', { query: 'filter[search]=kaas' }))).toEqual([id]);
    // A change elsewhere keeps it found.
    expect((await send(core, 'PATCH', `/customers/${id}`, { body: customerBody({ city: 'Delft' }, id) })).status).toBe(
      200,
    );
    expect(ids(await send(core, 'GET', '/customers', { query: 'filter[search]=pieter' }))).toEqual([id]);
    expect(
      (await send(core, 'PATCH', `/customers/${id}`, { body: customerBody({ company_name: null }, id) })).status,
    ).toBe(200);
    expect(ids(await send(core, 'GET', '/customers', { query: 'filter[search]=kaas' }))).toEqual([]);
  });
});

describe('GET /customers, sorted', () => {
  it('orders ties by id in the direction of the sort, so pages neither repeat nor skip', async () => {
    const core = await testCore(); // a clock that stands still: every created_at is the same
    const made: string[] = [];
    for (let n = 1; n <= 7; n++)
      made.push(await createCustomer(core, { first_name: `F${n}`, last_name: 'Same', email: `same${n}@example.com` }));
    for (const [sort, order] of [
      ['created_at', made],
      ['-created_at', [...made].reverse()],
      ['last_name', made],
      ['-last_name', [...made].reverse()],
    ] as const) {
      const { ids: got } = await allPages(core, `sort=${sort}&page[size]=3`);
      expect(got.map(String), sort).toEqual(order);
    }
  });

  it('without sort, and with sort=id, is in ascending id as before', async () => {
    const clock = new TestClock();
    const core = await testCore({ clock });
    const people = await seed(core, clock);
    const ascending = people.map((p) => String(p.id));
    expect(ids(await send(core, 'GET', '/customers', { query: 'page[size]=100' }))).toEqual(ascending);
    expect(ids(await send(core, 'GET', '/customers', { query: 'page[size]=100&sort=id' }))).toEqual(ascending);
    expect(ids(await send(core, 'GET', '/customers', { query: 'page[size]=100&sort=-id' }))).toEqual(
      [...ascending].reverse(),
    );
  });
});

describe('refused filter and sort parameters', () => {
  it.each([
    ['filter[foo]=1', 'filter[foo]'],
    ['filter[constructor]=x', 'filter[constructor]'],
    ['filter[__proto__]=x', 'filter[__proto__]'],
    ['filter[toString]=x', 'filter[toString]'],
    ['filter[hasOwnProperty]=x', 'filter[hasOwnProperty]'],
    ['filter[]=x', 'filter[]'],
    ['filter=x', 'filter'],
    ['filter[email][x]=y', 'filter[email][x]'],
    ['filter[first_name]=Jan', 'filter[first_name]'],
    ['filter[archived]=maybe', 'filter[archived]'],
    ['filter[archived]=TRUE', 'filter[archived]'],
    ['filter[archived]=1', 'filter[archived]'],
    ['filter[archived]=', 'filter[archived]'],
    ['filter[email]=', 'filter[email]'],
    ['filter[search]=%20%20', 'filter[search]'],
    ['filter[search]=%00%00%00', 'filter[search]'],
    ['filter[email]=a%00b@example.com', 'filter[email]'],
    ['filter[email]=a@example.com&filter[email]=b@example.com', 'filter[email]'],
    ['sort=foo', 'sort'],
    ['sort=constructor', 'sort'],
    ['sort=-constructor', 'sort'],
    ['sort=__proto__', 'sort'],
    ['sort=toString', 'sort'],
    ['sort=', 'sort'],
    ['sort=-', 'sort'],
    ['sort=--id', 'sort'],
    ['sort=+id', 'sort'],
    ['sort=first_name', 'sort'],
    ['sort=created_at,id', 'sort'],
    ['sort=%20email', 'sort'],
    ['sort=id&sort=email', 'sort'],
    ['fields[constructor]=x', 'fields[constructor]'],
    ['fields[__proto__]=x', 'fields[__proto__]'],
    ['fields[toString]=x', 'fields[toString]'],
  ])('GET /customers?%s answers 400 Invalid Parameter naming %s', async (query, parameter) => {
    const core = await testCore();
    await createCustomer(core);
    const answer = await send(core, 'GET', '/customers', { query });
    expectError(answer, 400, 'Invalid Parameter', { parameter });
    expect(answer.body.meta).toEqual({ original: null });
  });

  it('names the filters and sort fields there are', async () => {
    const core = await testCore();
    const filter = await send(core, 'GET', '/customers', { query: 'filter[constructor]=x' });
    expect(filter.body.errors[0].detail).toBe(
      '"constructor" is not a filter; filters here: filter[email], filter[search], filter[archived]',
    );
    const sort = await send(core, 'GET', '/customers', { query: 'sort=-constructor' });
    expect(sort.body.errors[0].detail).toBe(
      'cannot sort by "-constructor": sort by id, created_at, last_name or email, with a leading - for descending order',
    );
    const value = await send(core, 'GET', '/customers', { query: 'filter[archived]=maybe' });
    expect(value.body.errors[0].detail).toBe('filter[archived] must be true or false, not "maybe"');
  });

  it.each([
    ['/customers/1', 'sort=id', 'sort'],
    ['/customers/1', 'filter[email]=a@example.com', 'filter[email]'],
    ['/customers/1/subscriptions', 'filter[status]=active', 'filter[status]'],
    ['/customers/1/subscriptions', 'sort=-id', 'sort'],
    ['/subscription-plans/1', 'sort=id', 'sort'],
  ])('GET %s?%s, where nothing is filtered or sorted, answers 400 naming %s', async (path, query, parameter) => {
    const core = await testCore();
    await createCustomer(core);
    await makePlan(core);
    expectError(await send(core, 'GET', path, { query }), 400, 'Invalid Parameter', { parameter });
  });
});

describe('GET /subscription-plans with filter[status] and sort', () => {
  const plans = async () => {
    const clock = new TestClock();
    const core = await testCore({ clock });
    const made: { id: number; status: string; at: number }[] = [];
    for (const [status, at] of [
      ['active', 2],
      ['inactive', 0],
      ['active', -1],
      ['active', 2],
      ['inactive', 5],
    ] as const) {
      clock.ms = Date.parse('2026-11-21T10:00:00Z') + at * HOUR;
      made.push({ id: await makePlan(core, { name: `Plan ${made.length + 1}`, amount: '5.00', status }), status, at });
    }
    return { core, made };
  };
  const planIds = (answer: Answer) => ids(answer).map(Number);

  it('filter[status] keeps the plans of that status, with their total', async () => {
    const { core, made } = await plans();
    for (const status of ['active', 'inactive']) {
      const answer = await send(core, 'GET', '/subscription-plans', { query: `filter[status]=${status}` });
      expect(answer.status).toBe(200);
      expect(planIds(answer)).toEqual(made.filter((p) => p.status === status).map((p) => p.id));
      expect(answer.body.meta.total).toBe(made.filter((p) => p.status === status).length);
      expect(answer.body.data.every((p: { attributes: { status: string } }) => p.attributes.status === status)).toBe(
        true,
      );
    }
  });

  it('sort=created_at and -created_at order by creation, ties by id; with a filter and pages too', async () => {
    const { core, made } = await plans();
    const byCreation = [...made].sort((a, b) => a.at - b.at || a.id - b.id).map((p) => p.id);
    expect(planIds(await send(core, 'GET', '/subscription-plans', { query: 'sort=created_at' }))).toEqual(byCreation);
    expect(planIds(await send(core, 'GET', '/subscription-plans', { query: 'sort=-created_at' }))).toEqual(
      [...byCreation].reverse(),
    );
    expect(planIds(await send(core, 'GET', '/subscription-plans', { query: 'sort=-id' }))).toEqual(
      made.map((p) => p.id).reverse(),
    );
    const activeNewestFirst = [...byCreation]
      .reverse()
      .filter((id) => made.find((p) => p.id === id)!.status === 'active');
    const second = await send(core, 'GET', '/subscription-plans', {
      query: 'filter[status]=active&sort=-created_at&page[size]=2&page[number]=2',
    });
    expect(planIds(second)).toEqual(activeNewestFirst.slice(2, 4));
    expect(link(second.body.links.prev)?.params).toMatchObject({ 'filter[status]': 'active', sort: '-created_at' });
  });

  it.each([
    ['filter[status]=paused', 'filter[status]'],
    ['filter[status]=Active', 'filter[status]'],
    ['filter[archived]=yes', 'filter[archived]'],
    ['filter[constructor]=x', 'filter[constructor]'],
    ['sort=name', 'sort'],
    ['sort=last_name', 'sort'],
    ['sort=constructor', 'sort'],
  ])('?%s answers 400 Invalid Parameter naming %s', async (query, parameter) => {
    const { core } = await plans();
    expectError(await send(core, 'GET', '/subscription-plans', { query }), 400, 'Invalid Parameter', { parameter });
  });
});
