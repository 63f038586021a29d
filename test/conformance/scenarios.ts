// Conformance scenarios: sequences of requests written only against the Transport interface, so
// they run unchanged through every door (in process, and over HTTP). Each returns what it saw,
// step by step; conformance.test.ts asserts on it and compares it across doors.
import type { Transport, TransportRequest } from '../../src/lib/transport/types.js';

export interface Recorded {
  /** A name for the step, unique within its scenario. */
  step: string;
  method: string;
  /** The path as requested (an absolute URL when a link was followed), with its query. */
  path: string;
  status: number;
  /** The headers that carry meaning here, names in lower case: allow, location, content-type (media type only). */
  headers: Record<string, string>;
  /** The document with volatile values replaced (see normalise); null for an empty body. */
  body: unknown;
}

export interface Seed {
  /** Makes a subscription plan (plans are read-only over the API). */
  plan(attributes: Record<string, unknown>): Promise<void>;
}

export type Scenario = (t: Transport, seed: Seed) => Promise<Recorded[]>;

/** What created_at and updated_at become when they are well-formed ISO 8601 datetimes with an offset. */
export const TIMESTAMP = '<timestamp>';
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;
const VOLATILE_KEYS = new Set(['created_at', 'updated_at']);
const KEPT_HEADERS = new Set(['allow', 'location', 'content-type']);

/** Replaces the clock's values, which differ between doors and runs; a malformed one stays as it is. */
export function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [key, VOLATILE_KEYS.has(key) && typeof v === 'string' && DATETIME.test(v) ? TIMESTAMP : normalise(v)]),
    );
  }
  return value;
}

type Json = any; // documents are read loosely here

function recorder(t: Transport) {
  const log: Recorded[] = [];
  /** Records the step; gives it back with `raw`, the document as it came (a client that sends back what it read needs that). */
  async function send(step: string, request: TransportRequest): Promise<Recorded & { body: Json; raw: Json }> {
    if (log.some((r) => r.step === step)) throw new Error(`step "${step}" is recorded twice`);
    const response = await t.request(request);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers ?? {})) {
      const lower = name.toLowerCase();
      if (KEPT_HEADERS.has(lower)) headers[lower] = lower === 'content-type' ? value.split(';')[0].trim() : value;
    }
    const query = new URLSearchParams(Object.entries(request.query ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
    const path = query.size ? `${request.path}${request.path.includes('?') ? '&' : '?'}${decodeURIComponent(query.toString())}` : request.path;
    const recorded = { step, method: request.method, path, status: response.status, headers, body: normalise(response.body ?? null) };
    log.push(recorded);
    return { ...recorded, raw: response.body };
  }
  return { send, log };
}

const post = (type: string, attributes: Record<string, unknown>, path: string): TransportRequest => ({
  method: 'POST',
  path,
  body: { data: { type, attributes } },
});
const patch = (type: string, id: string | number, attributes: Record<string, unknown>, path: string): TransportRequest => ({
  method: 'PATCH',
  path,
  body: { data: { type, id, attributes } },
});
const get = (path: string, query?: TransportRequest['query']): TransportRequest => ({ method: 'GET', path, query });

/** A valid new customer, numbered. */
export const customerAttributes = (n: number) => ({ first_name: `First${n}`, last_name: `Last${n}`, email: `customer${n}@example.com` });

export const JAN = {
  first_name: 'Jan',
  last_name: 'Jansen',
  email: 'jan@example.com',
  iban: 'nl91 abna 0417 1643 00',
  bank_holder: 'J. Jansen',
  country_iso2: 'nl',
  telephone: '+31201234567',
};

export const GOLD = { name: 'Gold', amount: '12.50', frequency: 'monthly', start_date: '2026-12-01' };
export const SILVER = {
  name: 'Silver',
  amount: 99,
  frequency: 'yearly',
  start_date: '2027-01-15',
  status: 'inactive',
  description: 'Silver support, one year',
  mandate_authentication_method: 'first_payment',
  send_invoice: false,
  storno_retries: 0,
  terms: 'Cancel any time.',
};

export const INVALID_CUSTOMER = {
  last_name: '  ',
  email: 'not-an-email',
  iban: 'NL00ABNA0000000000',
  gender: 'x',
  language: 'xx',
  country_iso2: 'ZZ',
  city: 'x'.repeat(256),
  payment_method: 'creditcard',
  shoe_size: 42,
};

export const scenarios: Record<string, Scenario> = {
  /** Create, read, change (partly, then clearing a field, then archiving) and list one customer. */
  async 'customer lifecycle'(t) {
    const { send, log } = recorder(t);
    const created = await send('create', post('customer', JAN, '/customers'));
    const id: string = created.body.data.id;
    await send('get', get(`/customers/${id}`));
    await send('patch', patch('customer', id, { city: 'Utrecht', middle_name: 'van', house_number: '12' }, `/customers/${id}`));
    await send('get after patch', get(`/customers/${id}`));
    await send('clear middle_name', patch('customer', id, { middle_name: '' }, `/customers/${id}`));
    await send('archive', patch('customer', id, { archived: true }, `/customers/${id}`));
    await send('unarchive with a string boolean', patch('customer', Number(id), { archived: 'false' }, `/customers/${id}`));
    await send('list', get('/customers'));
    return log;
  },

  /** Every problem of a request reported at once; a refused request writes nothing. */
  async 'validation errors'(t) {
    const { send, log } = recorder(t);
    await send('create with many problems', post('customer', INVALID_CUSTOMER, '/customers'));
    await send('create without data', { method: 'POST', path: '/customers', body: { customer: customerAttributes(1) } });
    await send('create with the wrong type', post('customers', customerAttributes(1), '/customers'));
    await send('list after refusals', get('/customers'));
    const created = await send('create', post('customer', customerAttributes(1), '/customers'));
    const id: string = created.body.data.id;
    await send('patch with another id', patch('customer', String(Number(id) + 1), { city: 'Utrecht' }, `/customers/${id}`));
    await send('patch with problems', patch('customer', id, { email: 'bad', iban: 'NL91ABNA0417164300', city: 'Utrecht' }, `/customers/${id}`));
    await send('patch a read-only attribute', patch('customer', id, { payment_method: 'creditcard', created_at: '2020-01-01' }, `/customers/${id}`));
    await send('get after refusals', get(`/customers/${id}`));
    return log;
  },

  /** Pages, totals and absolute links that keep the other parameters; following links.next. */
  async 'pagination and links'(t) {
    const { send, log } = recorder(t);
    for (let n = 1; n <= 12; n++) await send(`create ${n}`, post('customer', customerAttributes(n), '/customers'));
    await send('default page', get('/customers'));
    const first = await send('page 1 of 3', get('/customers', { 'page[size]': 5 }));
    await send('page 2 of 3', get('/customers', { 'page[number]': 2, 'page[size]': 5 }));
    await send('page 3 of 3', get('/customers', { 'page[number]': 3, 'page[size]': 5 }));
    await send('past the end', get('/customers', { 'page[number]': 4, 'page[size]': 5 }));
    await send('with fields', get('/customers?fields[customer]=email&page[number]=2&page[size]=5'));
    let next: string | null = first.body.links.next;
    for (let hop = 1; next && hop <= 5; hop++) next = (await send(`follow next ${hop}`, get(next))).body.links.next;
    await send('one big page', get('/customers', { 'page[size]': 100 }));
    return log;
  },

  /** include embeds related resources; fields[TYPE] narrows attributes; unknown names are refused. */
  async 'include and fields'(t, seed) {
    const { send, log } = recorder(t);
    await seed.plan(GOLD);
    await send('create 1', post('customer', customerAttributes(1), '/customers'));
    await send('create 2', post('customer', customerAttributes(2), '/customers'));
    await send('get with include', get('/customers/1', { include: 'subscriptions' }));
    await send('list with include', get('/customers', { include: 'subscriptions' }));
    await send('list without include', get('/customers'));
    await send('get with fields', get('/customers/1', { 'fields[customer]': 'first_name,email' }));
    await send('list with fields', get('/customers', { 'fields[customer]': 'last_name' }));
    await send('plans with include', get('/subscription-plans', { include: 'subscriptions' }));
    await send('plan with fields', get('/subscription-plans/1', { 'fields[subscription-plan]': 'name,amount' }));
    await send('include outside the table', get('/customers', { include: 'plans' }));
    await send('include on a plan', get('/subscription-plans/1', { include: 'subscriptions' }));
    await send('unknown field', get('/customers', { 'fields[customer]': 'first_name,shoe_size' }));
    await send('unknown type in fields', get('/customers/1', { 'fields[nosuch]': 'a' }));
    return log;
  },

  /** Unknown paths and ids are 404; a known path with another method is 405 with Allow. */
  async 'not found and method not allowed'(t) {
    const { send, log } = recorder(t);
    await send('create', post('customer', customerAttributes(1), '/customers'));
    await send('unknown id', get('/customers/999'));
    await send('patch unknown id', patch('customer', '999', { city: 'Utrecht' }, '/customers/999'));
    await send('non-numeric id', get('/customers/abc'));
    await send('unknown path', get('/nowhere'));
    await send('subscriptions of unknown customer', get('/customers/999/subscriptions'));
    await send('subscriptions of customer', get('/customers/1/subscriptions'));
    await send('delete customer', { method: 'DELETE', path: '/customers/1' });
    await send('post to a customer', post('customer', customerAttributes(2), '/customers/1'));
    await send('put customers', { method: 'PUT', path: '/customers', body: { data: { type: 'customer', attributes: customerAttributes(3) } } });
    await send('get after', get('/customers'));
    return log;
  },

  /** Plans are listed and read; every write method is 405 and changes nothing. */
  async 'plans are read-only'(t, seed) {
    const { send, log } = recorder(t);
    await seed.plan(GOLD);
    await seed.plan(SILVER);
    await send('list', get('/subscription-plans'));
    await send('get', get('/subscription-plans/2'));
    await send('post', post('subscription-plan', { name: 'Bronze', amount: '5.00' }, '/subscription-plans'));
    await send('patch', patch('subscription-plan', '1', { name: 'Platinum' }, '/subscription-plans/1'));
    await send('delete', { method: 'DELETE', path: '/subscription-plans/1' });
    await send('unknown plan', get('/subscription-plans/3'));
    await send('subscriptions of plan', get('/subscription-plans/1/subscriptions'));
    await send('subscriptions of unknown plan', get('/subscription-plans/3/subscriptions'));
    await send('list after', get('/subscription-plans'));
    return log;
  },

  /**
   * What real clients do: save by sending back what they read (read-only attributes unchanged, or
   * the whole resource object), put JSON:API members inside attributes, bring their own id.
   */
  async 'real clients'(t) {
    const { send, log } = recorder(t);
    const created = await send('create', post('customer', JAN, '/customers'));
    const id: string = created.body.data.id;
    const path = `/customers/${id}`;
    const read = await send('get', get(path));
    await send('send back every attribute as read', patch('customer', id, read.raw.data.attributes, path));
    const again = await send('get again', get(path));
    await send('send back every attribute, one changed', patch('customer', id, { ...again.raw.data.attributes, city: 'Utrecht' }, path));
    const before = await send('get before saving the whole resource object', get(path));
    await send('send back the whole resource object, one attribute changed', {
      method: 'PATCH',
      path,
      body: { data: { ...before.raw.data, attributes: { ...before.raw.data.attributes, city: 'Delft' } } },
    });
    await send('a read-only attribute with another value', patch('customer', id, { ...before.raw.data.attributes, payment_method: 'creditcard' }, path));
    await send('relationships inside attributes', patch('customer', id, { city: 'Leiden', relationships: { subscriptions: { data: [{ type: 'subscription', id: '1' }] } } }, path));
    await send('get after', get(path));
    await send('create with an id of its own', { method: 'POST', path: '/customers', body: { data: { type: 'customer', id: '42', attributes: customerAttributes(2) } } });
    await send('list after', get('/customers'));
    return log;
  },

  /** Text that is not valid Unicode or holds control characters, nesting, ids that would round, strict parameters. */
  async 'strict input'(t) {
    const { send, log } = recorder(t);
    await send('create', post('customer', customerAttributes(1), '/customers'));
    await send('a lone surrogate', post('customer', { ...customerAttributes(2), first_name: 'Jan\ud800' }, '/customers'));
    await send('a control character', post('customer', { ...customerAttributes(2), city: 'Amster\u0007dam', street: 'Dam\u0000' }, '/customers'));
    await send('tab and newline are text', post('customer', { ...customerAttributes(2), street: ' Keizersgracht\t313\nachterhuis ' }, '/customers'));
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    await send('nested 100 levels deep', post('customer', { ...customerAttributes(3), city: deep }, '/customers'));
    await send('an id above 2^53 - 1', get('/customers/9007199254740993'));
    await send('patch an id above 2^53 - 1', patch('customer', '9007199254740993', { city: 'X' }, '/customers/9007199254740993'));
    await send('an unknown parameter', get('/customers', { foo: 'bar' }));
    await send('__proto__ as a parameter', get('/customers?__proto__=1'));
    await send('a parameter given twice', get('/customers?page[size]=1&page[size]=2'));
    await send('page[foo]', get('/customers', { 'page[foo]': 1 }));
    await send('brackets percent-encoded', get('/customers?page%5Bsize%5D=1&fields%5Bcustomer%5D=email'));
    await send('list after', get('/customers'));
    return log;
  },

  /** page[number] >= 1 and page[size] 1..100, else 400 Invalid Parameter naming the parameter. */
  async 'invalid parameters'(t) {
    const { send, log } = recorder(t);
    await send('create', post('customer', customerAttributes(1), '/customers'));
    for (const value of ['0', '-1', 'abc', '1.5']) await send(`page[number]=${value}`, get('/customers', { 'page[number]': value }));
    for (const value of ['0', '101', 'x']) await send(`page[size]=${value}`, get('/customers', { 'page[size]': value }));
    await send('page[size]=1', get('/customers', { 'page[size]': 1 }));
    await send('page[size]=100', get('/customers', { 'page[size]': 100 }));
    await send('plans page[size]=0', get('/subscription-plans', { 'page[size]': 0 }));
    await send('customer subscriptions page[number]=0', get('/customers/1/subscriptions', { 'page[number]': 0 }));
    return log;
  },
};
