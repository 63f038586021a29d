// Every scenario through every door: the statuses and the facts of the documents the API promises,
// and, with more than one door, the same documents through each.
import { describe, expect, it } from 'vitest';
import { doors } from './doors.js';
import { customerAttributes, INVALID_CUSTOMER, JAN, scenarios, TIMESTAMP, type Recorded } from './scenarios.js';

type Json = any; // documents are read loosely here
type Steps = Record<string, Recorded & { body: Json }>;

/** Absolute links written against a placeholder, so documents of doors on different addresses compare. */
const BASE = 'BASE';
const rebase = (recorded: Recorded[], baseUrl: string): Recorded[] => JSON.parse(JSON.stringify(recorded).split(baseUrl).join(BASE));

const byStep = (recorded: Recorded[]): Steps => Object.fromEntries(recorded.map((r) => [r.step, r]));
const statuses = (recorded: Recorded[]) => recorded.map((r) => `${r.step}: ${r.status}`);
const JSONAPI = 'application/vnd.api+json';
const ids = (document: Json): string[] => document.data.map((r: Json) => r.id);

/** Links as the API writes them: absolute, brackets percent-encoded (RFC 3986), page[...] last. */
const pageLinks = (path: string, size: number, current: number, last: number, extra = '') => {
  const url = (n: number) => `${BASE}${path}?${extra}page%5Bnumber%5D=${n}&page%5Bsize%5D=${size}`;
  return { self: url(current), first: url(1), last: url(last), prev: current > 1 ? url(Math.min(current - 1, last)) : null, next: current < last ? url(current + 1) : null };
};

const invalidAttribute = (attribute: string, detail: string) => ({
  status: '400',
  title: 'Invalid Attribute',
  detail: `${attribute} ${detail}`,
  source: { pointer: `/data/attributes/${attribute}` },
});
const invalidParameter = (parameter: string, detail: string) => ({
  errors: [{ status: '400', title: 'Invalid Parameter', detail, source: { parameter } }],
  meta: { original: null },
});
const bySource = (a: Json, b: Json) => JSON.stringify(a.source).localeCompare(JSON.stringify(b.source));

const CUSTOMER_ATTRIBUTES = [
  'gender', 'first_name', 'middle_name', 'last_name', 'company_name', 'vat_number', 'bank_holder', 'iban',
  'payment_method', 'bank_verification_method', 'card_holder', 'card_number', 'postalcode', 'house_number',
  'house_number_add', 'street', 'city', 'country_iso2', 'language', 'email', 'telephone', 'archived', 'created_at', 'updated_at',
];

/** What each scenario must show, through any door. */
const checks: Record<string, (recorded: Recorded[]) => void> = {
  'customer lifecycle'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create: 201',
      'get: 200',
      'patch: 200',
      'get after patch: 200',
      'clear middle_name: 200',
      'archive: 200',
      'unarchive with a string boolean: 200',
      'list: 200',
    ]);
    const s = byStep(recorded);
    const created = s.create.body;
    expect(s.create.headers.location).toBe(`${BASE}/customers/1`);
    expect(created.links).toEqual({ self: `${BASE}/customers/1` });
    expect(created.data.type).toBe('customer');
    expect(created.data.id).toBe('1');
    expect(created.data.links).toEqual({ self: `${BASE}/customers/1` });
    expect(Object.keys(created.data.attributes)).toEqual(CUSTOMER_ATTRIBUTES);
    expect(created.data.attributes).toEqual({
      gender: null,
      first_name: 'Jan',
      middle_name: null,
      last_name: 'Jansen',
      company_name: null,
      vat_number: null,
      bank_holder: 'J. Jansen',
      iban: 'NL91ABNA0417164300', // uppercase, without spaces
      payment_method: 'directdebit',
      bank_verification_method: null,
      card_holder: null,
      card_number: null,
      postalcode: null,
      house_number: null,
      house_number_add: null,
      street: null,
      city: null,
      country_iso2: 'NL',
      language: 'nl',
      email: JAN.email,
      telephone: JAN.telephone,
      archived: false,
      created_at: TIMESTAMP,
      updated_at: TIMESTAMP,
    });
    expect(created.data.relationships).toEqual({ subscriptions: { links: { related: `${BASE}/customers/1/subscriptions` }, data: [] } });
    expect(s.get.body).toEqual(created);

    const patched = s.patch.body;
    const { city, middle_name, house_number, ...untouched } = patched.data.attributes;
    expect({ city, middle_name, house_number }).toEqual({ city: 'Utrecht', middle_name: 'van', house_number: '12' });
    const { city: _c, middle_name: _m, house_number: _h, ...before } = created.data.attributes;
    expect(untouched).toEqual(before); // attributes left out keep their value
    expect(s['get after patch'].body).toEqual(patched);

    expect(s['clear middle_name'].body.data.attributes.middle_name).toBeNull();
    expect(s['clear middle_name'].body.data.attributes.city).toBe('Utrecht');
    expect(s.archive.body.data.attributes.archived).toBe(true);
    expect(s['unarchive with a string boolean'].body.data.attributes.archived).toBe(false);

    const list = s.list.body;
    expect(list.meta).toEqual({ total: 1 });
    expect(list.data).toEqual([s['unarchive with a string boolean'].body.data]);
    expect(list).not.toHaveProperty('included');
    for (const r of recorded) expect(r.headers['content-type']).toBe(JSONAPI);
  },

  'validation errors'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create with many problems: 400',
      'create without data: 400',
      'create with the wrong type: 409',
      'list after refusals: 200',
      'create: 201',
      'patch with another id: 409',
      'patch with problems: 400',
      'patch a read-only attribute: 400',
      'get after refusals: 200',
    ]);
    const s = byStep(recorded);
    const many = s['create with many problems'].body;
    expect([...many.errors].sort(bySource)).toEqual(
      [
        invalidAttribute('first_name', 'is required'),
        invalidAttribute('last_name', 'must not be empty'),
        invalidAttribute('email', 'must be a valid email address'),
        invalidAttribute('iban', 'must be a valid IBAN (country length and check digits)'),
        invalidAttribute('gender', 'must be one of: m, f'),
        invalidAttribute('language', 'must be one of: nl, en, nl-be, de, fr'),
        invalidAttribute('country_iso2', 'must be an ISO 3166-1 alpha-2 country code, for example NL'),
        invalidAttribute('city', 'must be at most 255 characters'),
        invalidAttribute('payment_method', 'is read-only'),
        invalidAttribute('shoe_size', 'is not a known attribute'),
      ].sort(bySource),
    );
    expect(many.meta).toEqual({ original: { data: { type: 'customer', attributes: INVALID_CUSTOMER } } });

    expect(s['create without data'].body).toEqual({
      errors: [{ status: '400', title: 'Invalid Document', detail: 'the body must be an object with a data object', source: { pointer: '/data' } }],
      meta: { original: { customer: customerAttributes(1) } },
    });
    expect(s['create with the wrong type'].body).toEqual({
      errors: [{ status: '409', title: 'Conflict', detail: 'data.type must be "customer", the type of this endpoint', source: { pointer: '/data/type' } }],
    });
    expect(s['list after refusals'].body.meta).toEqual({ total: 0 }); // nothing was written
    expect(s['list after refusals'].body.data).toEqual([]);

    expect(s['patch with another id'].body).toEqual({
      errors: [{ status: '409', title: 'Conflict', detail: 'data.id must be "1", the id in the path', source: { pointer: '/data/id' } }],
    });
    expect(s['patch with problems'].body.errors).toEqual([
      invalidAttribute('email', 'must be a valid email address'),
      invalidAttribute('bank_holder', 'is required when iban is given'),
    ]);
    expect(s['patch with problems'].body.meta.original.data.attributes).toEqual({ email: 'bad', iban: 'NL91ABNA0417164300', city: 'Utrecht' });
    expect(s['patch a read-only attribute'].body.errors).toEqual([
      invalidAttribute('payment_method', 'is read-only: it may be sent only with its current value'),
      invalidAttribute('created_at', 'is read-only: it may be sent only with its current value'),
    ]);
    // A refused PATCH changes nothing, not even the attributes that were valid (city).
    expect(s['get after refusals'].body).toEqual(s.create.body);
  },

  'pagination and links'(recorded) {
    const s = byStep(recorded);
    for (let n = 1; n <= 12; n++) expect(s[`create ${n}`].status).toBe(201);
    const pages = ['default page', 'page 1 of 3', 'page 2 of 3', 'page 3 of 3', 'past the end', 'with fields', 'follow next 1', 'follow next 2', 'one big page'];
    expect(recorded.slice(12).map((r) => r.step)).toEqual(pages);
    for (const step of pages) expect(s[step].status).toBe(200);

    expect(s['default page'].body.meta).toEqual({ total: 12 });
    expect(ids(s['default page'].body)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(s['default page'].body.links).toEqual(pageLinks('/customers', 10, 1, 2));

    expect(ids(s['page 1 of 3'].body)).toEqual(['1', '2', '3', '4', '5']);
    expect(s['page 1 of 3'].body.links).toEqual(pageLinks('/customers', 5, 1, 3));
    expect(ids(s['page 2 of 3'].body)).toEqual(['6', '7', '8', '9', '10']);
    expect(s['page 2 of 3'].body.links).toEqual(pageLinks('/customers', 5, 2, 3));
    expect(ids(s['page 3 of 3'].body)).toEqual(['11', '12']);
    expect(s['page 3 of 3'].body.links).toEqual(pageLinks('/customers', 5, 3, 3));
    expect(s['page 3 of 3'].body.links.next).toBeNull();

    const past = s['past the end'].body;
    expect(past.data).toEqual([]);
    expect(past.meta).toEqual({ total: 12 });
    expect(past.links.next).toBeNull();
    expect(past.links.last).toBe(`${BASE}/customers?page%5Bnumber%5D=3&page%5Bsize%5D=5`);

    // Links keep the other parameters.
    const fields = s['with fields'].body;
    expect(fields.links).toEqual(pageLinks('/customers', 5, 2, 3, 'fields%5Bcustomer%5D=email&'));
    expect(fields.data.map((r: Json) => r.attributes)).toEqual([6, 7, 8, 9, 10].map((n) => ({ email: `customer${n}@example.com` })));

    // Following links.next (absolute URLs) walks every page once.
    expect(s['follow next 1'].path).toBe(s['page 1 of 3'].body.links.next);
    expect(s['follow next 1'].body).toEqual(s['page 2 of 3'].body);
    expect(s['follow next 2'].body).toEqual(s['page 3 of 3'].body);
    expect([s['page 1 of 3'], s['follow next 1'], s['follow next 2']].flatMap((r) => ids(r.body))).toEqual(ids(s['one big page'].body));
    expect(ids(s['one big page'].body)).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
    expect(s['one big page'].body.data[11]).toEqual(s['create 12'].body.data);
  },

  'include and fields'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create 1: 201',
      'create 2: 201',
      'get with include: 200',
      'list with include: 200',
      'list without include: 200',
      'get with fields: 200',
      'list with fields: 200',
      'plans with include: 200',
      'plan with fields: 200',
      'include outside the table: 400',
      'include on a plan: 400',
      'unknown field: 400',
      'unknown type in fields: 400',
    ]);
    const s = byStep(recorded);
    expect(s['get with include'].body.included).toEqual([]);
    expect(s['get with include'].body.data).toEqual(s['create 1'].body.data);
    expect(s['list with include'].body.included).toEqual([]);
    expect(s['list with include'].body.links.self).toBe(`${BASE}/customers?include=subscriptions&page%5Bnumber%5D=1&page%5Bsize%5D=10`);
    expect(s['list without include'].body).not.toHaveProperty('included');

    const narrowed = s['get with fields'].body.data;
    expect(narrowed.attributes).toEqual({ first_name: 'First1', email: 'customer1@example.com' });
    // A sparse fieldset covers relationships too: without subscriptions among the fields, none.
    expect(narrowed).not.toHaveProperty('relationships');
    expect(s['list with fields'].body.data.map((r: Json) => r.attributes)).toEqual([{ last_name: 'Last1' }, { last_name: 'Last2' }]);

    expect(s['plans with include'].body.included).toEqual([]);
    expect(ids(s['plans with include'].body)).toEqual(['1']);
    expect(s['plan with fields'].body.data.attributes).toEqual({ name: 'Gold', amount: '12.50' });

    expect(s['include outside the table'].body).toEqual(invalidParameter('include', 'cannot include "plans"; allowed here: subscriptions'));
    expect(s['include on a plan'].body).toEqual(invalidParameter('include', 'cannot include "subscriptions"; nothing can be included here'));
    expect(s['unknown field'].body).toEqual(invalidParameter('fields[customer]', 'unknown field of customer: shoe_size'));
    expect(s['unknown type in fields'].body).toEqual(invalidParameter('fields[nosuch]', '"nosuch" is not a resource type'));
  },

  'not found and method not allowed'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create: 201',
      'unknown id: 404',
      'patch unknown id: 404',
      'non-numeric id: 404',
      'unknown path: 404',
      'subscriptions of unknown customer: 404',
      'subscriptions of customer: 200',
      'delete customer: 405',
      'post to a customer: 405',
      'put customers: 405',
      'get after: 200',
    ]);
    const s = byStep(recorded);
    const notFound = (detail: string) => ({ errors: [{ status: '404', title: 'Not Found', detail }] });
    expect(s['unknown id'].body).toEqual(notFound('no customer with id 999'));
    expect(s['patch unknown id'].body).toEqual(notFound('no customer with id 999'));
    expect(s['non-numeric id'].body).toEqual(notFound('no such path: /customers/abc'));
    expect(s['unknown path'].body).toEqual(notFound('no such path: /nowhere'));
    expect(s['subscriptions of unknown customer'].body).toEqual(notFound('no customer with id 999'));
    expect(s['subscriptions of customer'].body).toMatchObject({ meta: { total: 0 }, data: [] });

    const notAllowed = (method: string, path: string, allow: string) => ({
      errors: [{ status: '405', title: 'Method Not Allowed', detail: `${method} is not allowed on ${path}; allowed: ${allow}` }],
    });
    expect(s['delete customer'].headers.allow).toBe('GET, PATCH');
    expect(s['delete customer'].body).toEqual(notAllowed('DELETE', '/customers/1', 'GET, PATCH'));
    expect(s['post to a customer'].headers.allow).toBe('GET, PATCH');
    expect(s['put customers'].headers.allow).toBe('GET, POST');
    expect(s['put customers'].body).toEqual(notAllowed('PUT', '/customers', 'GET, POST'));
    // Nothing was deleted or created by the refused methods.
    expect(ids(s['get after'].body)).toEqual(['1']);
    for (const r of recorded) expect(r.headers['content-type']).toBe(JSONAPI);
  },

  'plans are read-only'(recorded) {
    expect(statuses(recorded)).toEqual([
      'list: 200',
      'get: 200',
      'post: 405',
      'patch: 405',
      'delete: 405',
      'unknown plan: 404',
      'subscriptions of plan: 200',
      'subscriptions of unknown plan: 404',
      'list after: 200',
    ]);
    const s = byStep(recorded);
    expect(s.list.body.meta).toEqual({ total: 2 });
    expect(ids(s.list.body)).toEqual(['1', '2']);
    expect(s.list.body.data[0].attributes).toMatchObject({ name: 'Gold', amount: '12.50', frequency: 'monthly', status: 'active', start_date: '2026-12-01T00:00:00+01:00' });
    expect(s.get.body).toEqual({
      links: { self: `${BASE}/subscription-plans/2` },
      data: {
        type: 'subscription-plan',
        id: '2',
        links: { self: `${BASE}/subscription-plans/2` },
        attributes: {
          name: 'Silver',
          description: 'Silver support, one year',
          start_date: '2027-01-15T00:00:00+01:00',
          status: 'inactive',
          mandate_authentication_method: 'first_payment',
          send_invoice: false,
          storno_retries: 0,
          terms: 'Cancel any time.',
          archived: false,
          amount: '99.00',
          frequency: 'yearly',
          created_at: TIMESTAMP,
          updated_at: TIMESTAMP,
        },
        relationships: { subscriptions: { links: { related: `${BASE}/subscription-plans/2/subscriptions` }, data: [] } },
      },
    });
    expect(s.list.body.data[1]).toEqual(s.get.body.data);
    for (const step of ['post', 'patch', 'delete']) {
      expect(s[step].headers.allow).toBe('GET');
      expect(s[step].body.errors[0]).toMatchObject({ status: '405', title: 'Method Not Allowed' });
    }
    expect(s['unknown plan'].body).toEqual({ errors: [{ status: '404', title: 'Not Found', detail: 'no subscription plan with id 3' }] });
    expect(s['subscriptions of plan'].body).toMatchObject({ meta: { total: 0 }, data: [], links: { self: `${BASE}/subscription-plans/1/subscriptions?page%5Bnumber%5D=1&page%5Bsize%5D=10` } });
    expect(s['list after'].body).toEqual(s.list.body);
  },

  'real clients'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create: 201',
      'get: 200',
      'send back every attribute as read: 200',
      'get again: 200',
      'send back every attribute, one changed: 200',
      'get before saving the whole resource object: 200',
      'send back the whole resource object, one attribute changed: 200',
      'a read-only attribute with another value: 400',
      'relationships inside attributes: 400',
      'get after: 200',
      'create with an id of its own: 403',
      'list after: 200',
    ]);
    const s = byStep(recorded);
    // Sent back unchanged, read-only attributes included: accepted, nothing changes (the clock stands still).
    expect(s['send back every attribute as read'].body).toEqual(s.get.body);
    expect(s['send back every attribute, one changed'].body.data.attributes).toEqual({ ...s.get.body.data.attributes, city: 'Utrecht' });
    expect(s['send back the whole resource object, one attribute changed'].body.data.attributes).toEqual({ ...s.get.body.data.attributes, city: 'Delft' });
    expect(s['a read-only attribute with another value'].body.errors).toEqual([invalidAttribute('payment_method', 'is read-only: it may be sent only with its current value')]);
    // The member JSON:API keeps out of attributes, pointed at alone (not at what it holds), and the valid city not applied.
    expect(s['relationships inside attributes'].body).toEqual({
      errors: [invalidAttribute('relationships', 'is not allowed inside attributes: JSON:API keeps relationships, links, id and type out of them')],
      meta: { original: { data: { type: 'customer', id: '1', attributes: { city: 'Leiden', relationships: { subscriptions: { data: [{ type: 'subscription', id: '1' }] } } } } } },
    });
    expect(s['get after'].body.data.attributes.city).toBe('Delft');
    expect(s['create with an id of its own'].body).toEqual({
      errors: [{ status: '403', title: 'Forbidden', detail: 'client-generated ids are not supported: leave data.id out, the service assigns it', source: { pointer: '/data/id' } }],
    });
    expect(s['list after'].body.meta).toEqual({ total: 1 });
  },

  'strict input'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create: 201',
      'a lone surrogate: 400',
      'a control character: 400',
      'tab and newline are text: 201',
      'nested 100 levels deep: 400',
      'an id above 2^53 - 1: 404',
      'patch an id above 2^53 - 1: 404',
      'an unknown parameter: 400',
      '__proto__ as a parameter: 400',
      'a parameter given twice: 400',
      'page[foo]: 400',
      'brackets percent-encoded: 200',
      'list after: 200',
    ]);
    const s = byStep(recorded);
    expect(s['a lone surrogate'].body.errors).toEqual([invalidAttribute('first_name', 'must be valid Unicode text (it holds a lone surrogate)')]);
    // Echoed as sent: never replaced, not even in meta.original.
    expect(s['a lone surrogate'].body.meta.original.data.attributes.first_name).toBe('Jan\ud800');
    const control = 'must not contain control characters (tab and newline are the only ones allowed)';
    expect([...s['a control character'].body.errors].sort(bySource)).toEqual([invalidAttribute('city', control), invalidAttribute('street', control)].sort(bySource));
    expect(s['tab and newline are text'].body.data.attributes.street).toBe('Keizersgracht\t313\nachterhuis');
    const deep = s['nested 100 levels deep'].body;
    expect(deep.errors).toEqual([{ status: '400', title: 'Invalid Document', detail: 'the body is nested deeper than 64 levels', source: { pointer: '/data' } }]);
    expect(typeof deep.meta.original).toBe('string'); // the text as sent: it was never parsed
    expect(s['an id above 2^53 - 1'].body).toEqual({ errors: [{ status: '404', title: 'Not Found', detail: 'no such path: /customers/9007199254740993' }] });
    expect(s['patch an id above 2^53 - 1'].body).toEqual(s['an id above 2^53 - 1'].body);
    expect(s['an unknown parameter'].body).toEqual(invalidParameter('foo', '"foo" is not a parameter of this API; it knows page[number], page[size], include, fields[TYPE], filter[NAME] and sort'));
    expect(s['__proto__ as a parameter'].body.errors[0].source).toEqual({ parameter: '__proto__' });
    expect(s['a parameter given twice'].body).toEqual(invalidParameter('page[size]', 'page[size] is given more than once'));
    expect(s['page[foo]'].body).toEqual(invalidParameter('page[foo]', '"page[foo]" is not a page parameter: page[number] and page[size] are'));
    const encoded = s['brackets percent-encoded'].body;
    expect(encoded.data.map((r: Json) => r.attributes)).toEqual([{ email: 'customer1@example.com' }]);
    expect(encoded.links).toEqual(pageLinks('/customers', 1, 1, 2, 'fields%5Bcustomer%5D=email&'));
    expect(s['list after'].body.meta).toEqual({ total: 2 }); // the refused ones wrote nothing
  },

  'invalid parameters'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create: 201',
      'page[number]=0: 400',
      'page[number]=-1: 400',
      'page[number]=abc: 400',
      'page[number]=1.5: 400',
      'page[size]=0: 400',
      'page[size]=101: 400',
      'page[size]=x: 400',
      'page[size]=1: 200',
      'page[size]=100: 200',
      'plans page[size]=0: 400',
      'customer subscriptions page[number]=0: 400',
    ]);
    const s = byStep(recorded);
    const badNumber = invalidParameter('page[number]', 'page[number] must be a whole number of at least 1');
    const badSize = invalidParameter('page[size]', 'page[size] must be a whole number from 1 to 100');
    for (const value of ['0', '-1', 'abc', '1.5']) expect(s[`page[number]=${value}`].body).toEqual(badNumber);
    for (const value of ['0', '101', 'x']) expect(s[`page[size]=${value}`].body).toEqual(badSize);
    expect(s['plans page[size]=0'].body).toEqual(badSize);
    expect(s['customer subscriptions page[number]=0'].body).toEqual(badNumber);
    expect(ids(s['page[size]=1'].body)).toEqual(['1']);
    expect(s['page[size]=100'].body.links.self).toBe(`${BASE}/customers?page%5Bnumber%5D=1&page%5Bsize%5D=100`);
  },
};

it('every scenario has its checks, and there is at least one door', () => {
  expect(Object.keys(checks).sort()).toEqual(Object.keys(scenarios).sort());
  expect(doors.length).toBeGreaterThan(0);
});

// What only the HTTP door can show: requests exactly as real clients send them, headers and bytes
// included. The in-process door has no headers (the embedded transport hands the router a body
// and nothing else), so these run against the doors that can send raw requests: loopback HTTP.
describe('raw HTTP requests, as real clients send them', () => {
  const raw = doors.filter((door) => door.name !== 'in-process');
  const document = JSON.stringify({ data: { type: 'customer', attributes: customerAttributes(1) } });

  it('there is a door for them', () => {
    expect(raw.length).toBeGreaterThan(0);
  });

  for (const door of raw) {
    describe(`through the ${door.name} door`, () => {
      it.each([
        ['without a Content-Type', {}],
        ['with an empty Content-Type', { 'content-type': '' }],
        ['with application/json', { 'content-type': 'application/json; charset=utf-8' }],
      ])('a body %s is read as JSON: 201', async (_how, headers: Record<string, string>) => {
        const open = await door.open();
        try {
          const answer = await open.raw!({ method: 'POST', path: '/customers', headers, body: document });
          expect(answer.status, JSON.stringify(answer.body)).toBe(201);
          expect(answer.body.data.attributes).toMatchObject(customerAttributes(1));
        } finally {
          await open.close();
        }
      });

      it('brackets percent-encoded on the wire read as raw ones; links come back encoded', async () => {
        const open = await door.open();
        try {
          for (let n = 1; n <= 2; n++) expect((await open.raw!({ method: 'POST', path: '/customers', headers: { 'content-type': JSONAPI }, body: JSON.stringify({ data: { type: 'customer', attributes: customerAttributes(n) } }) })).status).toBe(201);
          const encoded = await open.raw!({ method: 'GET', path: '/customers?page%5Bsize%5D=1&fields%5Bcustomer%5D=email', headers: {} });
          const plain = await open.raw!({ method: 'GET', path: '/customers?page[size]=1&fields[customer]=email', headers: {} });
          expect(encoded.status).toBe(200);
          expect(encoded.body).toEqual(plain.body);
          expect(encoded.body.links.next).toBe(`${open.baseUrl}/customers?fields%5Bcustomer%5D=email&page%5Bnumber%5D=2&page%5Bsize%5D=1`);
          const twice = await open.raw!({ method: 'GET', path: '/customers?page[size]=1&page%5Bsize%5D=1', headers: {} });
          expect(twice.status).toBe(400);
          expect(twice.body.errors[0].source).toEqual({ parameter: 'page[size]' });
        } finally {
          await open.close();
        }
      });

      it('an escaped lone surrogate is refused on the attribute; JSON 100,000 levels deep is refused before it is parsed', async () => {
        const open = await door.open();
        try {
          const surrogate = await open.raw!({ method: 'POST', path: '/customers', headers: { 'content-type': JSONAPI }, body: document.replace('"First1"', '"First\\udc01"') });
          expect(surrogate.status).toBe(400);
          expect(surrogate.body.errors).toEqual([invalidAttribute('first_name', 'must be valid Unicode text (it holds a lone surrogate)')]);
          const deep = await open.raw!({ method: 'POST', path: '/customers', headers: { 'content-type': JSONAPI }, body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` });
          expect(deep.status).toBe(400);
          expect(deep.body.errors[0]).toMatchObject({ title: 'Invalid Document', detail: 'the body is nested deeper than 64 levels' });
          const list = await open.raw!({ method: 'GET', path: '/customers', headers: {} });
          expect(list.body.meta).toEqual({ total: 0 });
        } finally {
          await open.close();
        }
      });
    });
  }
});

for (const [name, scenario] of Object.entries(scenarios)) {
  describe(name, () => {
    const seen = new Map<string, Recorded[]>();

    for (const door of doors) {
      it(`through the ${door.name} door`, async () => {
        const open = await door.open();
        let recorded: Recorded[];
        try {
          recorded = await scenario(open.transport, { plan: (attributes) => open.seedPlan(attributes) });
        } finally {
          await open.close();
        }
        const rebased = rebase(recorded, open.baseUrl);
        seen.set(door.name, rebased);
        checks[name](rebased);
      });
    }

    if (doors.length > 1) {
      it('gives the same answers through every door', () => {
        const [first, ...others] = doors.map((door) => [door.name, seen.get(door.name)] as const);
        expect(first[1], `${first[0]} did not run`).toBeDefined();
        for (const [doorName, recorded] of others) {
          expect(recorded, `${doorName} did not run`).toBeDefined();
          expect(recorded, `${doorName} differs from ${first[0]}`).toEqual(first[1]);
        }
      });
    }
  });
}
