// Every scenario through every door: the statuses and the facts of the documents the API promises,
// and, with more than one door, the same documents through each.
import { describe, expect, it } from 'vitest';
import { doors } from './doors.js';
import {
  clockScenarios,
  customerAttributes,
  INVALID_CUSTOMER,
  JAN,
  scenarios,
  TIMESTAMP,
  type ClockScenario,
  type Recorded,
} from './scenarios.js';

type Json = any; // documents are read loosely here
type Steps = Record<string, Recorded & { body: Json }>;

/** Absolute links written against a placeholder, so documents of doors on different addresses compare. */
const BASE = 'BASE';
const rebase = (recorded: Recorded[], baseUrl: string): Recorded[] =>
  JSON.parse(JSON.stringify(recorded).split(baseUrl).join(BASE));

const byStep = (recorded: Recorded[]): Steps => Object.fromEntries(recorded.map((r) => [r.step, r]));
const statuses = (recorded: Recorded[]) => recorded.map((r) => `${r.step}: ${r.status}`);
const JSONAPI = 'application/vnd.api+json';
const ids = (document: Json): string[] => document.data.map((r: Json) => r.id);
/** An invoice as a list gives it: as its GET does, and its customer (the scenarios' first) by name in meta. */
const named = (invoice: Json): Json => ({
  ...invoice,
  meta: { customer: { id: invoice.relationships.customer.data.id, name: 'First1 Last1' } },
});

/** Links as the API writes them: absolute, brackets percent-encoded (RFC 3986), page[...] last. */
const pageLinks = (path: string, size: number, current: number, last: number, extra = '') => {
  const url = (n: number) => `${BASE}${path}?${extra}page%5Bnumber%5D=${n}&page%5Bsize%5D=${size}`;
  return {
    self: url(current),
    first: url(1),
    last: url(last),
    prev: current > 1 ? url(Math.min(current - 1, last)) : null,
    next: current < last ? url(current + 1) : null,
  };
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
  'gender',
  'first_name',
  'middle_name',
  'last_name',
  'company_name',
  'vat_number',
  'bank_holder',
  'iban',
  'payment_method',
  'bank_verification_method',
  'card_holder',
  'card_number',
  'postalcode',
  'house_number',
  'house_number_add',
  'street',
  'city',
  'country_iso2',
  'language',
  'email',
  'telephone',
  'archived',
  'created_at',
  'updated_at',
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
    expect(created.data.relationships).toEqual({
      subscriptions: { links: { related: `${BASE}/customers/1/subscriptions` }, data: [] },
    });
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
      errors: [
        {
          status: '400',
          title: 'Invalid Document',
          detail: 'the body must be an object with a data object',
          source: { pointer: '/data' },
        },
      ],
      meta: { original: { customer: customerAttributes(1) } },
    });
    expect(s['create with the wrong type'].body).toEqual({
      errors: [
        {
          status: '409',
          title: 'Conflict',
          detail: 'data.type must be "customer", the type of this endpoint',
          source: { pointer: '/data/type' },
        },
      ],
    });
    expect(s['list after refusals'].body.meta).toEqual({ total: 0 }); // nothing was written
    expect(s['list after refusals'].body.data).toEqual([]);

    expect(s['patch with another id'].body).toEqual({
      errors: [
        {
          status: '409',
          title: 'Conflict',
          detail: 'data.id must be "1", the id in the path',
          source: { pointer: '/data/id' },
        },
      ],
    });
    expect(s['patch with problems'].body.errors).toEqual([
      invalidAttribute('email', 'must be a valid email address'),
      invalidAttribute('bank_holder', 'is required when iban is given'),
    ]);
    expect(s['patch with problems'].body.meta.original.data.attributes).toEqual({
      email: 'bad',
      iban: 'NL91ABNA0417164300',
      city: 'Utrecht',
    });
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
    const pages = [
      'default page',
      'page 1 of 3',
      'page 2 of 3',
      'page 3 of 3',
      'past the end',
      'with fields',
      'follow next 1',
      'follow next 2',
      'one big page',
    ];
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
    expect(fields.data.map((r: Json) => r.attributes)).toEqual(
      [6, 7, 8, 9, 10].map((n) => ({ email: `customer${n}@example.com` })),
    );

    // Following links.next (absolute URLs) walks every page once.
    expect(s['follow next 1'].path).toBe(s['page 1 of 3'].body.links.next);
    expect(s['follow next 1'].body).toEqual(s['page 2 of 3'].body);
    expect(s['follow next 2'].body).toEqual(s['page 3 of 3'].body);
    expect([s['page 1 of 3'], s['follow next 1'], s['follow next 2']].flatMap((r) => ids(r.body))).toEqual(
      ids(s['one big page'].body),
    );
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
    expect(s['list with include'].body.links.self).toBe(
      `${BASE}/customers?include=subscriptions&page%5Bnumber%5D=1&page%5Bsize%5D=10`,
    );
    expect(s['list without include'].body).not.toHaveProperty('included');

    const narrowed = s['get with fields'].body.data;
    expect(narrowed.attributes).toEqual({ first_name: 'First1', email: 'customer1@example.com' });
    // A sparse fieldset covers relationships too: without subscriptions among the fields, none.
    expect(narrowed).not.toHaveProperty('relationships');
    expect(s['list with fields'].body.data.map((r: Json) => r.attributes)).toEqual([
      { last_name: 'Last1' },
      { last_name: 'Last2' },
    ]);

    expect(s['plans with include'].body.included).toEqual([]);
    expect(ids(s['plans with include'].body)).toEqual(['1']);
    expect(s['plan with fields'].body.data.attributes).toEqual({ name: 'Gold', amount: '12.50' });

    expect(s['include outside the table'].body).toEqual(
      invalidParameter('include', 'cannot include "plans"; allowed here: subscriptions'),
    );
    expect(s['include on a plan'].body).toEqual(
      invalidParameter('include', 'cannot include "subscriptions"; nothing can be included here'),
    );
    expect(s['unknown field'].body).toEqual(
      invalidParameter('fields[customer]', 'unknown field of customer: shoe_size'),
    );
    expect(s['unknown type in fields'].body).toEqual(
      invalidParameter('fields[nosuch]', '"nosuch" is not a resource type'),
    );
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
      errors: [
        {
          status: '405',
          title: 'Method Not Allowed',
          detail: `${method} is not allowed on ${path}; allowed: ${allow}`,
        },
      ],
    });
    // HEAD goes with every GET that reads (RFC 9110).
    expect(s['delete customer'].headers.allow).toBe('GET, HEAD, PATCH');
    expect(s['delete customer'].body).toEqual(notAllowed('DELETE', '/customers/1', 'GET, HEAD, PATCH'));
    expect(s['post to a customer'].headers.allow).toBe('GET, HEAD, PATCH');
    expect(s['put customers'].headers.allow).toBe('GET, HEAD, POST');
    expect(s['put customers'].body).toEqual(notAllowed('PUT', '/customers', 'GET, HEAD, POST'));
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
    expect(s.list.body.data[0].attributes).toMatchObject({
      name: 'Gold',
      amount: '12.50',
      frequency: 'monthly',
      status: 'active',
      start_date: '2026-12-01T00:00:00+01:00',
    });
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
        relationships: {
          subscriptions: { links: { related: `${BASE}/subscription-plans/2/subscriptions` }, data: [] },
        },
      },
    });
    expect(s.list.body.data[1]).toEqual(s.get.body.data);
    for (const step of ['post', 'patch', 'delete']) {
      expect(s[step].headers.allow).toBe('GET, HEAD');
      expect(s[step].body.errors[0]).toMatchObject({ status: '405', title: 'Method Not Allowed' });
    }
    expect(s['unknown plan'].body).toEqual({
      errors: [{ status: '404', title: 'Not Found', detail: 'no subscription plan with id 3' }],
    });
    expect(s['subscriptions of plan'].body).toMatchObject({
      meta: { total: 0 },
      data: [],
      links: { self: `${BASE}/subscription-plans/1/subscriptions?page%5Bnumber%5D=1&page%5Bsize%5D=10` },
    });
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
    expect(s['send back every attribute, one changed'].body.data.attributes).toEqual({
      ...s.get.body.data.attributes,
      city: 'Utrecht',
    });
    expect(s['send back the whole resource object, one attribute changed'].body.data.attributes).toEqual({
      ...s.get.body.data.attributes,
      city: 'Delft',
    });
    expect(s['a read-only attribute with another value'].body.errors).toEqual([
      invalidAttribute('payment_method', 'is read-only: it may be sent only with its current value'),
    ]);
    // The member JSON:API keeps out of attributes, pointed at alone (not at what it holds), and the valid city not applied.
    expect(s['relationships inside attributes'].body).toEqual({
      errors: [
        invalidAttribute(
          'relationships',
          'is not allowed inside attributes: JSON:API keeps relationships, links, id and type out of them',
        ),
      ],
      meta: {
        original: {
          data: {
            type: 'customer',
            id: '1',
            attributes: {
              city: 'Leiden',
              relationships: { subscriptions: { data: [{ type: 'subscription', id: '1' }] } },
            },
          },
        },
      },
    });
    expect(s['get after'].body.data.attributes.city).toBe('Delft');
    expect(s['create with an id of its own'].body).toEqual({
      errors: [
        {
          status: '403',
          title: 'Forbidden',
          detail: 'client-generated ids are not supported: leave data.id out, the service assigns it',
          source: { pointer: '/data/id' },
        },
      ],
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
    expect(s['a lone surrogate'].body.errors).toEqual([
      invalidAttribute('first_name', 'must be valid Unicode text (it holds a lone surrogate)'),
    ]);
    // Echoed as sent: never replaced, not even in meta.original.
    expect(s['a lone surrogate'].body.meta.original.data.attributes.first_name).toBe('Jan\ud800');
    const control = 'must not contain control characters (tab and newline are the only ones allowed)';
    expect([...s['a control character'].body.errors].sort(bySource)).toEqual(
      [invalidAttribute('city', control), invalidAttribute('street', control)].sort(bySource),
    );
    expect(s['tab and newline are text'].body.data.attributes.street).toBe('Keizersgracht\t313\nachterhuis');
    const deep = s['nested 100 levels deep'].body;
    expect(deep.errors).toEqual([
      {
        status: '400',
        title: 'Invalid Document',
        detail: 'the body is nested deeper than 64 levels',
        source: { pointer: '/data' },
      },
    ]);
    expect(typeof deep.meta.original).toBe('string'); // the text as sent: it was never parsed
    expect(s['an id above 2^53 - 1'].body).toEqual({
      errors: [{ status: '404', title: 'Not Found', detail: 'no such path: /customers/9007199254740993' }],
    });
    expect(s['patch an id above 2^53 - 1'].body).toEqual(s['an id above 2^53 - 1'].body);
    expect(s['an unknown parameter'].body).toEqual(
      invalidParameter(
        'foo',
        '"foo" is not a parameter of this API; it knows page[number], page[size], page[after], include, fields[TYPE], filter[NAME] and sort',
      ),
    );
    expect(s['__proto__ as a parameter'].body.errors[0].source).toEqual({ parameter: '__proto__' });
    expect(s['a parameter given twice'].body).toEqual(
      invalidParameter('page[size]', 'page[size] is given more than once'),
    );
    expect(s['page[foo]'].body).toEqual(
      invalidParameter(
        'page[foo]',
        '"page[foo]" is not a page parameter: page[number], page[size] and page[after] are',
      ),
    );
    const encoded = s['brackets percent-encoded'].body;
    expect(encoded.data.map((r: Json) => r.attributes)).toEqual([{ email: 'customer1@example.com' }]);
    expect(encoded.links).toEqual(pageLinks('/customers', 1, 1, 2, 'fields%5Bcustomer%5D=email&'));
    expect(s['list after'].body.meta).toEqual({ total: 2 }); // the refused ones wrote nothing
  },

  'amounts at their bounds'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create customer: 201',
      'create subscription: 201',
      'the largest, as a string: 201',
      'the largest, as a number: 201',
      'a cent less, as a number: 201',
      'one cent more: 400',
      'one cent more, as a number: 400',
      'the most cents a double holds: 400',
      'the plan: 200',
      'the transactions: 200',
    ]);
    const s = byStep(recorded);
    for (const step of ['one cent more', 'one cent more, as a number', 'the most cents a double holds']) {
      expect(s[step].body.errors, step).toEqual([invalidAttribute('amount', 'must be at most 10000000000.00')]);
    }
    for (const step of ['the largest, as a string', 'the largest, as a number'])
      expect(s[step].body.data.attributes.amount, step).toBe(10000000000);
    expect(s['a cent less, as a number'].body.data.attributes.amount).toBe(9999999999.99);
    expect(s['the plan'].body.data.attributes.amount).toBe('10000000000.00');
    // The plan's first collection and the three made by hand; none of the refused ones.
    const amounts = s['the transactions'].body.data.map((r: Json) => JSON.stringify(r.attributes.amount)).sort();
    expect(amounts).toEqual(['10000000000', '10000000000', '10000000000', '9999999999.99']);
  },

  'finalise forms'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create customer: 201',
      'create subscription: 201',
      'create the first: 201',
      'a line for the first: 201',
      'with another id: 409',
      'with another type: 409',
      'with an id that is no id: 400',
      'still a draft: 200',
      'as the API reference shows it: 200',
      'create the second: 201',
      'a line for the second: 201',
      'with its own id: 200',
      'create the third: 201',
      'a line for the third: 201',
      'with a null id, send_email from the plan: 200',
      'create the fourth: 201',
      'a line for the fourth: 201',
      'without a body: 200',
      'the invoice emails: 200',
    ]);
    const s = byStep(recorded);
    expect(s['with another id'].body.errors).toEqual([
      {
        status: '409',
        title: 'Conflict',
        detail: 'data.id must be "1", the id in the path',
        source: { pointer: '/data/id' },
      },
    ]);
    expect(s['with another type'].body.errors).toEqual([
      {
        status: '409',
        title: 'Conflict',
        detail: 'data.type must be "invoice", the type of this endpoint',
        source: { pointer: '/data/type' },
      },
    ]);
    expect(s['with an id that is no id'].body.errors).toEqual([
      {
        status: '400',
        title: 'Invalid Document',
        detail: 'data.id must be "1", the id in the path',
        source: { pointer: '/data/id' },
      },
    ]);
    expect(s['still a draft'].body.data.attributes).toMatchObject({ status: 'draft', reference: 'DRAFT' });
    // The plan sends invoices (send_invoice defaults to true): send_email false is the request's own.
    const finalised = (step: string) => {
      const { status, reference, send_email } = s[step].body.data.attributes;
      return { status, reference, send_email };
    };
    expect(finalised('as the API reference shows it')).toEqual({
      status: 'open',
      reference: 'INV-1',
      send_email: false,
    });
    expect(finalised('with its own id')).toEqual({ status: 'open', reference: 'INV-2', send_email: false });
    expect(finalised('with a null id, send_email from the plan')).toEqual({
      status: 'open',
      reference: 'INV-3',
      send_email: true,
    });
    expect(finalised('without a body')).toEqual({ status: 'open', reference: 'INV-4', send_email: true });
    // Only the last two emailed the customer.
    const emails = s['the invoice emails'].body.data.filter((n: Json) => n.attributes.kind === 'invoice');
    expect(emails.map((n: Json) => /INV-\d+/.exec(n.attributes.subject)?.[0])).toEqual(['INV-3', 'INV-4']);
  },

  invoices(recorded) {
    expect(statuses(recorded)).toEqual([
      'create customer: 201',
      'create subscription: 201',
      'create invoice: 201',
      'add lunchbox: 201',
      'add soup: 201',
      'add discount: 201',
      'draft with three lines: 200',
      'change soup: 200',
      'draft after the change: 200',
      'credit a draft: 400',
      'pay a draft: 400',
      'finalise: 200',
      'finalise again: 400',
      'patch finalised: 400',
      'delete finalised: 400',
      'add a line to finalised: 400',
      'patch a line of finalised: 400',
      'delete a line of finalised: 400',
      'finalised after refusals: 200',
      'line after refusals: 200',
      'create second invoice: 201',
      'add a line to the second: 201',
      'finalise the second: 200',
      'pay: 200',
      'pay again: 400',
      'credit: 200',
      'credit lines: 200',
      'credit again: 400',
      'finalise the credit: 200',
      'original after credit: 200',
      'pay a completed invoice: 400',
      'credit the credit: 400',
      'refund due: 200',
      'refunded: 200',
      'refunded again: 400',
      'refund due after: 200',
      'create a draft to delete: 201',
      'add a line to the draft: 201',
      'add another line to the draft: 201',
      'delete a line of the draft: 204',
      'draft after deleting a line: 200',
      'delete the draft: 204',
      'deleted draft: 404',
      'line of the deleted draft: 404',
      'delete the draft again: 404',
      'lines: 200',
      'subscription: 200',
      'customer: 200',
      'lines of an unknown invoice: 404',
      'a draft that stays: 201',
      'list draft: 200',
      'list open: 200',
      'list paid: 200',
      'list completed: 200',
      'list cancelled: 200',
      'list with an unknown status: 400',
      'list: 200',
      'create a third invoice: 201',
      'add a line to the third: 201',
      'finalise the third: 200',
      'credit too much of the third: 400',
      'credit one of the third: 200',
      'finalise the part: 200',
      'third after a part: 200',
      'credit the rest: 200',
      'finalise the rest: 200',
      'third after the rest: 200',
      'refund due at the end: 200',
    ]);
    const s = byStep(recorded);
    const data = (step: string) => s[step].body.data;
    const attributes = (step: string) => data(step).attributes;
    const money = (step: string) => {
      const { amount_excl, tax_amount, amount_incl, tax_rates } = attributes(step);
      return { amount_excl, tax_amount, amount_incl, tax_rates };
    };
    const TODAY = '2026-11-21T00:00:00+01:00'; // TEST_NOW's day in Europe/Amsterdam
    const invalidState = (detail: string, pointer = '/data') => [
      { status: '400', title: 'Invalid State', detail, source: { pointer } },
    ];
    const notDraft = (doing: string) =>
      invalidState(
        `invoice 1 is open (INV-1): ${doing} only while it is a draft; a finalised invoice never changes (credit it instead)`,
      );
    const relationships = (id: string, lines: string[], transaction: string | null, original: string | null) => ({
      subscription: {
        links: { related: `${BASE}/invoices/${id}/subscription` },
        data: { type: 'subscription', id: '1' },
      },
      customer: { links: { related: `${BASE}/invoices/${id}/customer` }, data: { type: 'customer', id: '1' } },
      'invoice-lines': {
        links: { related: `${BASE}/invoices/${id}/lines` },
        data: lines.map((l) => ({ type: 'invoice-line', id: l })),
      },
      transaction: { data: transaction === null ? null : { type: 'transaction', id: transaction } },
      'original-invoice': { data: original === null ? null : { type: 'invoice', id: original } },
    });
    /** The negation of a two-decimal amount, as the API writes it. */
    const negated = (amount: string) =>
      amount === '0.00' ? amount : amount.startsWith('-') ? amount.slice(1) : `-${amount}`;

    // A draft: DRAFT, zero, no dates, no page, send_email from the plan (GOLD sends invoices).
    expect(s['create invoice'].headers.location).toBe(`${BASE}/invoices/1`);
    expect(s['create invoice'].body).toEqual({
      links: { self: `${BASE}/invoices/1` },
      data: {
        type: 'invoice',
        id: '1',
        links: { self: `${BASE}/invoices/1` },
        attributes: {
          status: 'draft',
          reference: 'DRAFT',
          amount_excl: '0.00',
          amount_incl: '0.00',
          tax_rates: [],
          tax_amount: '0.00',
          invoice_date: null,
          transaction_date: null,
          hosted_invoice_url: null,
          send_email: true,
          refunded_on: null,
          created_at: TIMESTAMP,
          updated_at: TIMESTAMP,
        },
        relationships: relationships('1', [], null, null),
      },
    });

    // Lines priced by the rules, in exact cents, half away from zero; no relationships.
    expect(s['add lunchbox'].headers.location).toBe(`${BASE}/invoice-lines/1`);
    expect(s['add lunchbox'].body).toEqual({
      links: { self: `${BASE}/invoice-lines/1` },
      data: {
        type: 'invoice-line',
        id: '1',
        links: { self: `${BASE}/invoice-lines/1` },
        attributes: {
          description: 'lunchbox',
          amount_excl: '10.00',
          amount_incl: '12.10',
          tax_rate: '21.00',
          tax_amount: '2.10',
          tax_included: false,
          quantity: 2,
          created_at: TIMESTAMP,
          updated_at: TIMESTAMP,
        },
      },
    });
    expect(attributes('add soup')).toMatchObject({
      description: 'soup',
      amount_excl: '3.00',
      amount_incl: '3.27',
      tax_rate: '9.00',
      tax_amount: '0.27',
      tax_included: true,
      quantity: 3,
    });
    expect(attributes('add discount')).toMatchObject({
      description: 'discount',
      amount_excl: '-0.05',
      amount_incl: '-0.06',
      tax_rate: '21.00',
      tax_amount: '-0.01',
      tax_included: false,
      quantity: 1,
    });
    // 2 x 10.00 + 3 x 3.00 - 0.05 = 28.95; 21%: 4.20 - 0.01; 9%: 3 x 0.27.
    expect(money('draft with three lines')).toEqual({
      amount_excl: '28.95',
      tax_amount: '5.00',
      amount_incl: '33.95',
      tax_rates: [
        { amount: '4.19', rate: '21.00' },
        { amount: '0.81', rate: '9.00' },
      ],
    });
    expect(data('draft with three lines').relationships['invoice-lines'].data).toEqual(
      ['1', '2', '3'].map((id) => ({ type: 'invoice-line', id })),
    );
    // The changed line keeps what was not sent (rate, tax included); the totals follow it.
    expect(attributes('change soup')).toMatchObject({
      description: 'soup, large',
      amount_excl: '3.01',
      amount_incl: '3.28',
      tax_rate: '9.00',
      tax_amount: '0.27',
      tax_included: true,
      quantity: 4,
    });
    const totals = {
      amount_excl: '31.99',
      tax_amount: '5.27',
      amount_incl: '37.26',
      tax_rates: [
        { amount: '4.19', rate: '21.00' },
        { amount: '1.08', rate: '9.00' },
      ],
    };
    expect(money('draft after the change')).toEqual(totals);
    expect(s['credit a draft'].body.errors).toEqual(
      invalidState('invoice 1 is a draft: change or delete it; only a finalised invoice is credited'),
    );
    expect(s['pay a draft'].body.errors).toEqual(
      invalidState('invoice 1 is draft: only an open or charged back invoice can be marked paid'),
    );

    // Finalised: INV-1, dated today, its page, a transaction (not the plan's) for the total.
    const finalised = data('finalise');
    expect(finalised).toEqual({
      ...data('draft after the change'),
      attributes: {
        ...attributes('draft after the change'),
        status: 'open',
        reference: 'INV-1',
        invoice_date: TODAY,
        transaction_date: TODAY,
        hosted_invoice_url: `${BASE}/invoice/<token 1>`,
      },
      relationships: relationships('1', ['1', '2', '3'], '<uuid 2>', null),
    });
    expect(data('create subscription').relationships.transactions.data).toEqual([
      { type: 'transaction', id: '<uuid 1>' },
    ]);

    // A finalised invoice never changes: every change is Invalid State, and nothing changed.
    expect(s['finalise again'].body.errors).toEqual(notDraft('it can be finalised'));
    expect(s['patch finalised'].body.errors).toEqual(notDraft('it can be changed'));
    expect(s['delete finalised'].body.errors).toEqual(notDraft('it can be deleted'));
    expect(s['add a line to finalised'].body.errors).toEqual(
      invalidState(
        'invoice 1 is open (INV-1): lines can be added only while it is a draft; a finalised invoice never changes (credit it instead)',
        '/data/attributes/invoice_id',
      ),
    );
    expect(s['patch a line of finalised'].body.errors).toEqual(notDraft('its lines can be changed'));
    expect(s['delete a line of finalised'].body.errors).toEqual(notDraft('its lines can be deleted'));
    expect(s['finalised after refusals'].body).toEqual(s.finalise.body);
    expect(s['line after refusals'].body).toEqual(s['add lunchbox'].body);

    // The next one finalised is INV-2: references without gaps.
    expect(attributes('finalise the second')).toMatchObject({
      status: 'open',
      reference: 'INV-2',
      amount_incl: '24.20',
      hosted_invoice_url: `${BASE}/invoice/<token 2>`,
    });
    expect(data('finalise the second').relationships.transaction.data).toEqual({ type: 'transaction', id: '<uuid 3>' });

    // The credit: a draft of the lines negated, exactly the original's totals negated, per rate too.
    const credit = data('credit');
    expect(credit.id).toBe('3');
    expect(credit.links).toEqual({ self: `${BASE}/invoices/3` });
    expect(credit.attributes).toEqual({
      status: 'draft',
      reference: 'DRAFT',
      amount_excl: negated(totals.amount_excl),
      amount_incl: negated(totals.amount_incl),
      tax_rates: totals.tax_rates.map(({ amount, rate }) => ({ amount: negated(amount), rate })),
      tax_amount: negated(totals.tax_amount),
      invoice_date: null,
      transaction_date: null,
      hosted_invoice_url: null,
      send_email: true,
      refunded_on: null,
      created_at: TIMESTAMP,
      updated_at: TIMESTAMP,
    });
    expect(money('credit')).toEqual({
      amount_excl: '-31.99',
      tax_amount: '-5.27',
      amount_incl: '-37.26',
      tax_rates: [
        { amount: '-4.19', rate: '21.00' },
        { amount: '-1.08', rate: '9.00' },
      ],
    });
    expect(credit.relationships).toEqual(relationships('3', ['5', '6', '7'], null, '1'));
    const lineOf = (l: Json) => l.attributes;
    const originalLines = s.lines.body.data.map(lineOf);
    expect(s['credit lines'].body.meta).toEqual({ total: 3 });
    expect(s['credit lines'].body.data.map(lineOf)).toEqual(
      originalLines.map((l: Json) => ({
        ...l,
        amount_excl: negated(l.amount_excl),
        amount_incl: negated(l.amount_incl),
        tax_amount: negated(l.tax_amount),
      })),
    );
    // Finalised, the credit (a negative total) is completed without a transaction, as INV-3.
    expect(data('finalise the credit')).toEqual({
      ...credit,
      attributes: {
        ...credit.attributes,
        status: 'completed',
        reference: 'INV-3',
        invoice_date: TODAY,
        hosted_invoice_url: `${BASE}/invoice/<token 3>`,
      },
    });
    // Paid by hand; paying again, or paying a completed invoice, is Invalid State.
    expect(data('pay')).toEqual({ ...finalised, attributes: { ...finalised.attributes, status: 'paid' } });
    expect(s['pay again'].body.errors).toEqual(
      invalidState('invoice 1 is paid: only an open or charged back invoice can be marked paid'),
    );
    expect(s['pay a completed invoice'].body.errors).toEqual(
      invalidState('invoice 3 is completed: only an open or charged back invoice can be marked paid'),
    );
    // Crediting a paid invoice left it as it was (paid).
    expect(s['original after credit'].body).toEqual(s.pay.body);

    // Credits follow money rules: credited in full once, a credit never credited.
    expect(s['credit again'].body.errors).toEqual(
      invalidState('invoice 1 (INV-1) is credited in full already, by credit invoice 3 (a draft)'),
    );
    expect(s['credit the credit'].body.errors).toEqual(
      invalidState('invoice 3 (INV-3) is a credit invoice of invoice 1: a credit invoice cannot be credited'),
    );
    // The credit of a paid invoice is owed back until marked refunded (today by default), once.
    const idsOf = (step: string) => s[step].body.data.map((i: Json) => i.id);
    expect(idsOf('refund due')).toEqual(['3']);
    expect(attributes('refunded')).toMatchObject({ status: 'completed', refunded_on: TODAY });
    expect(s['refunded again'].body.errors).toEqual(invalidState('invoice 3: marked refunded already, on 2026-11-21'));
    expect(idsOf('refund due after')).toEqual([]);

    // Deleting: a line of a draft, then the draft and its lines; no body.
    for (const step of ['delete a line of the draft', 'delete the draft']) {
      expect(s[step].body).toBeNull();
      expect(s[step].headers).toEqual({ 'content-type': JSONAPI });
    }
    expect(money('draft after deleting a line')).toEqual({
      amount_excl: '20.00',
      tax_amount: '4.20',
      amount_incl: '24.20',
      tax_rates: [{ amount: '4.20', rate: '21.00' }],
    });
    expect(data('draft after deleting a line').relationships['invoice-lines'].data).toEqual([
      { type: 'invoice-line', id: '8' },
    ]);
    const notFound = (detail: string) => ({ errors: [{ status: '404', title: 'Not Found', detail }] });
    expect(s['deleted draft'].body).toEqual(notFound('no invoice with id 4'));
    expect(s['line of the deleted draft'].body).toEqual(notFound('no invoice line with id 8'));
    expect(s['delete the draft again'].body).toEqual(notFound('no invoice with id 4'));

    // Its related paths: the lines as they now are, its subscription (with the invoices' transactions), its customer.
    expect(s.lines.body).toEqual({
      meta: { total: 3 },
      links: pageLinks('/invoices/1/lines', 10, 1, 1),
      data: [data('line after refusals'), data('change soup'), data('add discount')],
    });
    expect(s.subscription.body.links).toEqual({ self: `${BASE}/subscriptions/1` });
    expect(data('subscription').attributes).toEqual(attributes('create subscription'));
    // Newest due date first: the plan's (December 1), then the invoices' (today), the later made first.
    expect(data('subscription').relationships.transactions.data.map((t: Json) => t.id)).toEqual([
      '<uuid 1>',
      '<uuid 3>',
      '<uuid 2>',
    ]);
    expect(s.customer.body).toEqual({
      ...s['create customer'].body,
      data: {
        ...data('create customer'),
        relationships: {
          subscriptions: {
            links: { related: `${BASE}/customers/1/subscriptions` },
            data: [{ type: 'subscription', id: '1' }],
          },
        },
      },
    });
    expect(s['lines of an unknown invoice'].body).toEqual(notFound('no invoice with id 999'));

    // Listed by status; each as it was last answered.
    const listed = (status: string) => ids(s[`list ${status}`].body);
    expect([listed('draft'), listed('open'), listed('paid'), listed('completed'), listed('cancelled')]).toEqual([
      ['5'],
      ['2'],
      ['1'],
      ['3'],
      [],
    ]);
    expect(s['list paid'].body.links.self).toBe(
      `${BASE}/invoices?filter%5Bstatus%5D=paid&page%5Bnumber%5D=1&page%5Bsize%5D=10`,
    );
    expect(s['list with an unknown status'].body).toEqual(
      invalidParameter(
        'filter[status]',
        'filter[status] must be one of draft, open, paid, charged_back, cancelled, completed, not "late"',
      ),
    );
    expect(s.list.body.meta).toEqual({ total: 4 });
    // Each as it was last answered, and its customer by name in meta (an extension of the lists).
    expect(s.list.body.data).toEqual(
      [data('a draft that stays'), data('refunded'), data('finalise the second'), data('pay')].map(named),
    );
    // The open third (24.20, due in the future, not yet collected): more than its two lunchboxes is
    // refused with the pointer; one, then the rest; credited in full, it is cancelled with its
    // transaction and owes nothing back.
    const thirdLine = data('add a line to the third').id;
    expect(s['credit too much of the third'].body.errors).toEqual([
      {
        status: '400',
        title: 'Invalid Attribute',
        detail: `lines/0/quantity is more than the 2 of line ${thirdLine} left to credit (of 2)`,
        source: { pointer: '/data/attributes/lines/0/quantity' },
      },
    ]);
    expect(money('credit one of the third')).toMatchObject({ amount_incl: '-12.10' });
    expect(attributes('finalise the part')).toMatchObject({ status: 'completed', reference: 'INV-5' });
    expect(attributes('third after a part').status).toBe('open');
    expect(money('credit the rest')).toMatchObject({ amount_incl: '-12.10' });
    expect(attributes('finalise the rest')).toMatchObject({ status: 'completed', reference: 'INV-6' });
    expect(attributes('third after the rest').status).toBe('cancelled');
    expect(idsOf('refund due at the end')).toEqual([]);
    for (const r of recorded) expect(r.headers['content-type']).toBe(JSONAPI);
  },

  'the account transactions'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create customer 1: 201',
      'create customer 2: 201',
      'subscribe 1: 201',
      'subscribe 2: 201',
      'a one-off: 201',
      'cancel it: 204',
      'all: 200',
      'succeeded or canceled: 200',
      'due in December, oldest first: 200',
      "the second customer's: 200",
      'by a reason code: 200',
      'a page: 200',
      'a status that is not one: 400',
      'page[after]: 400',
    ]);
    const s = byStep(recorded);
    const rows = (step: string) =>
      s[step].body.data.map((t: Json) => [t.meta.customer.name, t.attributes.status, t.attributes.due_date]);
    // Newest due date first; on the same day the one made last first.
    expect(rows('all')).toEqual([
      ['First2 Last2', 'scheduled', '2027-01-01T00:00:00+01:00'],
      ['First1 Last1', 'scheduled', '2027-01-01T00:00:00+01:00'],
      ['First1 Last1', 'canceled', '2026-12-20T00:00:00+01:00'],
      ['First2 Last2', 'succeeded', '2026-12-01T00:00:00+01:00'],
      ['First1 Last1', 'succeeded', '2026-12-01T00:00:00+01:00'],
    ]);
    expect(s.all.body.meta).toEqual({ total: 5 });
    expect(s.all.body.data[0].meta).toEqual({
      customer: { id: '2', name: 'First2 Last2' },
      reason_code: null,
      reason: null,
    });
    expect(s.all.body.data[0].relationships).toBeUndefined();
    expect(rows('succeeded or canceled').map((row: string[]) => row[1])).toEqual([
      'canceled',
      'succeeded',
      'succeeded',
    ]);
    expect(rows('due in December, oldest first').map((row: string[]) => row.slice(1))).toEqual([
      ['succeeded', '2026-12-01T00:00:00+01:00'],
      ['succeeded', '2026-12-01T00:00:00+01:00'],
      ['canceled', '2026-12-20T00:00:00+01:00'],
    ]);
    expect(rows("the second customer's").map((row: string[]) => row[0])).toEqual(['First2 Last2', 'First2 Last2']);
    expect(s['by a reason code'].body.data).toEqual([]);
    expect(s['a page'].body.links).toEqual(pageLinks('/transactions', 2, 2, 3));
    expect(s['a status that is not one'].body).toEqual(
      invalidParameter(
        'filter[status]',
        'filter[status] must be one or more (comma-separated) of queued, scheduled, succeeded, fulfilled, charged_back, failed, rescheduled, canceled, not "succeeded,lost"',
      ),
    );
    expect(s['page[after]'].body).toEqual(
      invalidParameter(
        'page[after]',
        'page[after] is not available here: this collection is not in id order; page it with page[number]',
      ),
    );
  },
  reports(recorded) {
    expect(statuses(recorded)).toEqual([
      'create customer: 201',
      'create subscription: 201',
      'create invoice: 201',
      'add a line: 201',
      'finalise: 200',
      'mrr: 200',
      'subscriptions: 200',
      'collections: 200',
      'revenue: 200',
      'vat: 200',
      'overdue: 200',
      'vat by quarter: 200',
      'by default: 200',
      'an unknown report: 404',
      'a day that is not one: 400',
      'from after to: 400',
      'from after today: 400',
      'a grain that is not one: 400',
      'a page: 400',
      'a range for overdue: 400',
      'a post: 405',
    ]);
    const s = byStep(recorded);
    const meta = (step: string) => s[step].body.meta;
    const column = (step: string, name: string) => meta(step).rows.map((row: Json) => row[name]);
    expect(s.mrr.headers['content-type']).toBe(JSONAPI);
    expect(s.mrr.body.links).toEqual({ self: `${BASE}/reports/mrr?filter%5Bfrom%5D=2026-11-01` });
    expect(meta('mrr')).toMatchObject({
      report: 'mrr',
      from: '2026-11-01',
      to: '2027-02-15',
      by: 'month',
      time_zone: 'Europe/Amsterdam',
      as_of: '2027-02-15T13:00:00+01:00',
    });
    expect(column('mrr', 'period')).toEqual(['2026-11', '2026-12', '2027-01', '2027-02']);
    // Active from November 21 (its first collection on December 1): in November's MRR.
    expect(column('mrr', 'mrr')).toEqual(['12.50', '12.50', '12.50', '12.50']);
    expect(column('mrr', 'new')).toEqual(['12.50', '0.00', '0.00', '0.00']);
    expect(column('subscriptions', 'active')).toEqual([1, 1, 1, 1]);
    // December, January and February's plan collections, and January's invoice (24.20) collected on the day it was finalised.
    expect(column('collections', 'collected')).toEqual(['0.00', '12.50', '36.70', '12.50']);
    expect(column('collections', 'success_rate')).toEqual([null, '1.0000', '1.0000', '1.0000']);
    expect(meta('collections').reasons).toEqual([]);
    expect(column('revenue', 'net_incl')).toEqual(['0.00', '0.00', '24.20', '0.00']);
    expect(meta('vat').rows).toEqual([{ period: '2027-01', rate: '21.00', base: '20.00', tax: '4.20', invoices: 1 }]);
    expect(meta('vat by quarter')).toMatchObject({
      from: '2026-10-01',
      to: '2027-03-31',
      by: 'quarter',
      rows: [{ period: '2027-Q1', rate: '21.00', base: '20.00', tax: '4.20', invoices: 1 }],
    });
    expect(meta('overdue')).toMatchObject({ report: 'overdue', from: null, to: '2027-02-15', by: null, customers: [] });
    expect(column('overdue', 'amount')).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00']);
    expect(meta('by default')).toMatchObject({ from: '2026-03-01', to: '2027-02-15', by: 'month' });
    expect(s['an unknown report'].body.errors[0].detail).toBe(
      'no report named "ltv"; the reports are mrr, subscriptions, collections, revenue, vat, overdue',
    );
    expect(s['a day that is not one'].body).toEqual(
      invalidParameter('filter[from]', 'filter[from] must be a day, YYYY-MM-DD, not "2027-02-30"'),
    );
    expect(s['from after to'].body).toEqual(
      invalidParameter('filter[from]', 'filter[from] (2027-02-01) must be on or before filter[to] (2027-01-01)'),
    );
    expect(s['from after today'].body).toEqual(
      invalidParameter(
        'filter[from]',
        'filter[from] (2027-03-01) is after today (2027-02-15): nothing is recorded for it yet',
      ),
    );
    expect(s['a grain that is not one'].body).toEqual(
      invalidParameter('filter[by]', 'filter[by] must be one of month, quarter, year, not "week"'),
    );
    expect(s['a page'].body.errors[0].source).toEqual({ parameter: 'page[size]' });
    expect(s['a range for overdue'].body).toEqual(
      invalidParameter('filter[to]', 'the overdue report is as of now: it takes no filter[to]'),
    );
    expect(s['a post'].headers.allow).toBe('GET, HEAD');
  },
  'invoices follow the clock'(recorded) {
    expect(statuses(recorded)).toEqual([
      'create customer: 201',
      'create subscription: 201',
      'create invoice dated today: 201',
      'add a line: 201',
      'create an empty draft dated today: 201',
      'a second before the day ends: 200',
      'the day has ended: 200',
      'the empty draft waits: 200',
      'its transaction: 200',
      'a line for the empty draft: 201',
      'the other draft, finalised at once: 200',
      'its transaction, collected at once: 200',
      'a second before the transaction date: 200',
      'collected on the transaction date: 200',
      'open while collected: 200',
      'the other, fulfilled: 200',
      'a second before fulfilment: 200',
      'fulfilled: 200',
      'paid: 200',
      'list paid: 200',
      'list open: 200',
    ]);
    const s = byStep(recorded);
    const data = (step: string) => s[step].body.data;
    const attributes = (step: string) => data(step).attributes;
    const transactionOf = (step: string) => data(step).relationships.transaction.data;
    const item = (status: string, recorded_on: string) => ({
      attempt: 1,
      reason: null,
      reason_code: null,
      recorded_on,
      status,
      new_due_date: null,
    });
    // Midnights in Europe/Amsterdam, as the API writes them.
    const NOV21 = '2026-11-21T00:00:00+01:00';
    const NOV22 = '2026-11-22T00:00:00+01:00';
    const NOV23 = '2026-11-23T00:00:00+01:00';
    const NOV26 = '2026-11-26T00:00:00+01:00';

    // Dated today, collected on the 23rd; the empty draft's transaction date copies its invoice date.
    expect(attributes('create invoice dated today')).toMatchObject({
      status: 'draft',
      invoice_date: NOV21,
      transaction_date: NOV23,
    });
    expect(attributes('create an empty draft dated today')).toMatchObject({
      status: 'draft',
      invoice_date: NOV21,
      transaction_date: NOV21,
    });

    // 23:59:59 on its day: still a draft. 00:00 the next day: finalised by itself, as INV-1.
    const before = data('a second before the day ends');
    expect(before.attributes).toMatchObject({
      status: 'draft',
      reference: 'DRAFT',
      amount_excl: '20.00',
      tax_amount: '4.20',
      amount_incl: '24.20',
      hosted_invoice_url: null,
    });
    expect(transactionOf('a second before the day ends')).toBeNull();
    const open = data('the day has ended');
    expect(open).toEqual({
      ...before,
      attributes: {
        ...before.attributes,
        status: 'open',
        reference: 'INV-1',
        hosted_invoice_url: `${BASE}/invoice/<token 1>`,
      },
      relationships: { ...before.relationships, transaction: { data: { type: 'transaction', id: '<uuid 2>' } } },
    });
    // The empty draft waits for a line.
    expect(attributes('the empty draft waits')).toMatchObject({ status: 'draft', reference: 'DRAFT' });
    expect(transactionOf('the empty draft waits')).toBeNull();

    // Its transaction: made and scheduled at the finalising, due on the transaction date.
    expect(s['its transaction'].path).toBe('/transactions/<uuid 2>');
    expect(attributes('its transaction')).toEqual({
      status: 'scheduled',
      scheduled_on: NOV22,
      due_date: NOV23,
      amount: 24.2,
      canceled_on: null,
      webhook_url: null,
      payment_method: 'directdebit',
      description: 'INV-1 Gold',
      history: [item('scheduled', NOV22)],
    });

    // A line for a draft whose day has ended: finalised at once (INV-2), its transaction date
    // passed, so collected at once.
    expect(attributes('the other draft, finalised at once')).toMatchObject({
      status: 'open',
      reference: 'INV-2',
      amount_incl: '6.05',
      hosted_invoice_url: `${BASE}/invoice/<token 2>`,
    });
    expect(transactionOf('the other draft, finalised at once')).toEqual({ type: 'transaction', id: '<uuid 3>' });
    expect(attributes('its transaction, collected at once')).toMatchObject({
      status: 'succeeded',
      due_date: NOV22,
      amount: 6.05,
      description: 'INV-2 Gold',
      history: [item('scheduled', NOV22), item('succeeded', NOV22)],
    });

    // Collected on its date (not a second before); the invoice stays open until the money is in.
    expect(attributes('a second before the transaction date')).toEqual(attributes('its transaction'));
    expect(attributes('collected on the transaction date')).toEqual({
      ...attributes('its transaction'),
      status: 'succeeded',
      history: [item('scheduled', NOV22), item('succeeded', NOV23)],
    });
    expect(data('open while collected')).toEqual(open);

    // Fulfilled three days after collection (not a second before): the invoice follows, paid. The
    // other, collected on the 22nd, is fulfilled and paid on the 25th.
    expect(attributes('the other, fulfilled')).toMatchObject({ status: 'paid', reference: 'INV-2' });
    expect(data('a second before fulfilment')).toEqual(open);
    expect(attributes('fulfilled')).toEqual({
      ...attributes('its transaction'),
      status: 'fulfilled',
      history: [item('scheduled', NOV22), item('succeeded', NOV23), item('fulfilled', NOV26)],
    });
    expect(data('paid')).toEqual({ ...open, attributes: { ...open.attributes, status: 'paid' } });
    expect(ids(s['list paid'].body)).toEqual(['1', '2']);
    expect(s['list paid'].body.data[0]).toEqual(named(data('paid')));
    expect(s['list open'].body).toMatchObject({ meta: { total: 0 }, data: [] });
    for (const r of recorded) expect(r.headers['content-type']).toBe(JSONAPI);
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

/** Every scenario: those that move the clock too (the doors can; a ClockSeed is a Seed and more). */
const everyScenario: Record<string, ClockScenario> = { ...scenarios, ...clockScenarios };

it('every scenario has its checks, and there is at least one door', () => {
  expect(Object.keys(scenarios).filter((name) => name in clockScenarios)).toEqual([]);
  expect(Object.keys(checks).sort()).toEqual(Object.keys(everyScenario).sort());
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
          for (let n = 1; n <= 2; n++)
            expect(
              (
                await open.raw!({
                  method: 'POST',
                  path: '/customers',
                  headers: { 'content-type': JSONAPI },
                  body: JSON.stringify({ data: { type: 'customer', attributes: customerAttributes(n) } }),
                })
              ).status,
            ).toBe(201);
          const encoded = await open.raw!({
            method: 'GET',
            path: '/customers?page%5Bsize%5D=1&fields%5Bcustomer%5D=email',
            headers: {},
          });
          const plain = await open.raw!({
            method: 'GET',
            path: '/customers?page[size]=1&fields[customer]=email',
            headers: {},
          });
          expect(encoded.status).toBe(200);
          expect(encoded.body).toEqual(plain.body);
          expect(encoded.body.links.next).toBe(
            `${open.baseUrl}/customers?fields%5Bcustomer%5D=email&page%5Bnumber%5D=2&page%5Bsize%5D=1`,
          );
          const twice = await open.raw!({
            method: 'GET',
            path: '/customers?page[size]=1&page%5Bsize%5D=1',
            headers: {},
          });
          expect(twice.status).toBe(400);
          expect(twice.body.errors[0].source).toEqual({ parameter: 'page[size]' });
        } finally {
          await open.close();
        }
      });

      it('an escaped lone surrogate is refused on the attribute; JSON 100,000 levels deep is refused before it is parsed', async () => {
        const open = await door.open();
        try {
          const surrogate = await open.raw!({
            method: 'POST',
            path: '/customers',
            headers: { 'content-type': JSONAPI },
            body: document.replace('"First1"', '"First\\udc01"'),
          });
          expect(surrogate.status).toBe(400);
          expect(surrogate.body.errors).toEqual([
            invalidAttribute('first_name', 'must be valid Unicode text (it holds a lone surrogate)'),
          ]);
          const deep = await open.raw!({
            method: 'POST',
            path: '/customers',
            headers: { 'content-type': JSONAPI },
            body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
          });
          expect(deep.status).toBe(400);
          expect(deep.body.errors[0]).toMatchObject({
            title: 'Invalid Document',
            detail: 'the body is nested deeper than 64 levels',
          });
          const list = await open.raw!({ method: 'GET', path: '/customers', headers: {} });
          expect(list.body.meta).toEqual({ total: 0 });
        } finally {
          await open.close();
        }
      });
    });
  }
});

// A 204 (DELETE /invoices/{id}, /invoice-lines/{id}, /transactions/{id}) names the JSON:API media
// type through every door, as every other answer does (the HTTP adapter would add it; the handlers do).
it('a 204 answer carries the same Content-Type through every door', async () => {
  const seen: (string | undefined)[] = [];
  for (const door of doors) {
    const open = await door.open();
    try {
      const created = await open.transport.request({
        method: 'POST',
        path: '/customers',
        body: { data: { type: 'customer', attributes: customerAttributes(1) } },
      });
      expect(created.status).toBe(201);
      await open.seedPlan({ name: 'Gold', amount: '12.50' });
      const subscription = await open.transport.request({
        method: 'POST',
        path: '/subscriptions',
        body: { data: { type: 'subscription', attributes: { customer_id: '1', subscription_plan_id: 1 } } },
      });
      expect(subscription.status).toBe(201);
      const invoice = await open.transport.request({
        method: 'POST',
        path: '/invoices',
        body: { data: { type: 'invoice', attributes: { subscription_id: 1 } } },
      });
      expect(invoice.status).toBe(201);
      const deleted = await open.transport.request({ method: 'DELETE', path: '/invoices/1' });
      expect(deleted.status).toBe(204);
      seen.push(Object.entries(deleted.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1]);
    } finally {
      await open.close();
    }
  }
  expect(seen).toEqual(doors.map(() => JSONAPI));
});

for (const [name, scenario] of Object.entries(everyScenario)) {
  describe(name, () => {
    const seen = new Map<string, Recorded[]>();

    for (const door of doors) {
      it(`through the ${door.name} door`, async () => {
        const open = await door.open();
        let recorded: Recorded[];
        try {
          recorded = await scenario(open.transport, {
            plan: (attributes) => open.seedPlan(attributes),
            advanceTo: (iso) => open.advanceTo(iso),
          });
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
