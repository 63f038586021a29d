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
  /** The headers that carry meaning here, names in lower case: allow, location, content-type (media type only; none without a body). */
  headers: Record<string, string>;
  /** The document with volatile values replaced (see normalise); null for an empty body. */
  body: unknown;
}

export interface Seed {
  /** Makes a subscription plan (plans are read-only over the API). */
  plan(attributes: Record<string, unknown>): Promise<void>;
}

export type Scenario = (t: Transport, seed: Seed) => Promise<Recorded[]>;

/** What a scenario that moves time needs besides: the store's test clock, moved forward (the due work on the way done). */
export interface ClockSeed extends Seed {
  advanceTo(iso: string): Promise<void>;
}

export type ClockScenario = (t: Transport, seed: ClockSeed) => Promise<Recorded[]>;

/** What created_at and updated_at become when they are well-formed ISO 8601 datetimes with an offset. */
export const TIMESTAMP = '<timestamp>';
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;
const VOLATILE_KEYS = new Set(['created_at', 'updated_at']);
const KEPT_HEADERS = new Set(['allow', 'location', 'content-type']);

/** A transaction's id: a random UUID. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** The random token of a hosted invoice page, in its URL: 24 bytes, base64url. */
const HOSTED_TOKEN = /(\/invoice\/)([A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])/g;
/** The random secret of a mandate page, in its URL: 32 bytes, hex. */
const MANDATE_SECRET = /(\/mandate\/accept(?:ed)?\/\d+\/)([0-9a-f]{64})(?![0-9a-f])/g;

/**
 * Random values (transaction ids, hosted invoice tokens, mandate page secrets), named in the order a
 * scenario first sees them: `<uuid 1>`, `<token 1>`, `<secret 1>`. The same value reads the same everywhere in the scenario (an
 * invoice's transaction is the one the subscription lists), and the documents of two doors compare.
 */
export class RandomNames {
  private readonly names = new Map<string, string>();
  private readonly counts = { uuid: 0, token: 0, secret: 0 };
  private name(kind: 'uuid' | 'token' | 'secret', value: string): string {
    let name = this.names.get(value);
    if (name === undefined) this.names.set(value, (name = `<${kind} ${++this.counts[kind]}>`));
    return name;
  }
  text(value: string): string {
    return value
      .replace(UUID, (uuid) => this.name('uuid', uuid))
      .replace(HOSTED_TOKEN, (_, at: string, token: string) => `${at}${this.name('token', token)}`)
      .replace(MANDATE_SECRET, (_, at: string, secret: string) => `${at}${this.name('secret', secret)}`);
  }
}

/**
 * Replaces the clock's values, which differ between doors and runs (a malformed one stays as it
 * is), and the random ones, by their names.
 */
export function normalise(value: unknown, random = new RandomNames()): unknown {
  if (typeof value === 'string') return random.text(value);
  if (Array.isArray(value)) return value.map((v) => normalise(v, random));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [
        key,
        VOLATILE_KEYS.has(key) && typeof v === 'string' && DATETIME.test(v) ? TIMESTAMP : normalise(v, random),
      ]),
    );
  }
  return value;
}

type Json = any; // documents are read loosely here

function recorder(t: Transport) {
  const log: Recorded[] = [];
  const random = new RandomNames();
  /** Records the step; gives it back with `raw`, the document as it came (a client that sends back what it read needs that). */
  async function send(step: string, request: TransportRequest): Promise<Recorded & { body: Json; raw: Json }> {
    if (log.some((r) => r.step === step)) throw new Error(`step "${step}" is recorded twice`);
    const response = await t.request(request);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers ?? {})) {
      const lower = name.toLowerCase();
      if (KEPT_HEADERS.has(lower))
        headers[lower] = random.text(lower === 'content-type' ? value.split(';')[0].trim() : value);
    }
    const query = new URLSearchParams(
      Object.entries(request.query ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
    );
    const path = query.size
      ? `${request.path}${request.path.includes('?') ? '&' : '?'}${decodeURIComponent(query.toString())}`
      : request.path;
    const recorded = {
      step,
      method: request.method,
      path: random.text(path),
      status: response.status,
      headers,
      body: normalise(response.body ?? null, random),
    };
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
const patch = (
  type: string,
  id: string | number,
  attributes: Record<string, unknown>,
  path: string,
): TransportRequest => ({
  method: 'PATCH',
  path,
  body: { data: { type, id, attributes } },
});
const get = (path: string, query?: TransportRequest['query']): TransportRequest => ({ method: 'GET', path, query });

/** A valid new customer, numbered. */
export const customerAttributes = (n: number) => ({
  first_name: `First${n}`,
  last_name: `Last${n}`,
  email: `customer${n}@example.com`,
});

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

/** The active subscription invoices are made on: GOLD (12.50 monthly from 2026-12-01), mandate accepted. */
const activeSubscription = (customer: string) => ({
  customer_id: customer,
  subscription_plan_id: 1,
  status: 'active',
  start_date: '2026-12-01',
  confirmation_sent: true,
});

/**
 * The lines of the invoice scenarios, priced by the rules (cents, half away from zero):
 * 10.00 at 21% excluded, x2: unit tax 2.10, incl 12.10; 3.27 at 9% included, x3: unit excl round(327 x 100 / 109) = 3.00, tax 0.27;
 * a discount of -0.05 at 21% excluded: tax round(-1.05 cents) = -0.01, incl -0.06.
 */
export const LUNCHBOX = { description: 'lunchbox', amount: 10, tax_rate: 21, tax_included: false, quantity: 2 };
export const SOUP = { description: 'soup', amount: '3.27', tax_rate: '9', tax_included: true, quantity: 3 };
export const DISCOUNT = { description: 'discount', amount: '-0.05', tax_rate: 21.0, quantity: 1 };
/** The soup changed: 3.28 included at 9%: excl round(328 x 100 / 109 = 300.92) = 3.01, tax 0.27; four of them. */
export const SOUP_CHANGE = { description: 'soup, large', amount: 3.28, quantity: 4 };

export const scenarios: Record<string, Scenario> = {
  /** Create, read, change (partly, then clearing a field, then archiving) and list one customer. */
  async 'customer lifecycle'(t) {
    const { send, log } = recorder(t);
    const created = await send('create', post('customer', JAN, '/customers'));
    const id: string = created.body.data.id;
    await send('get', get(`/customers/${id}`));
    await send(
      'patch',
      patch('customer', id, { city: 'Utrecht', middle_name: 'van', house_number: '12' }, `/customers/${id}`),
    );
    await send('get after patch', get(`/customers/${id}`));
    await send('clear middle_name', patch('customer', id, { middle_name: '' }, `/customers/${id}`));
    await send('archive', patch('customer', id, { archived: true }, `/customers/${id}`));
    await send(
      'unarchive with a string boolean',
      patch('customer', Number(id), { archived: 'false' }, `/customers/${id}`),
    );
    await send('list', get('/customers'));
    return log;
  },

  /** Every problem of a request reported at once; a refused request writes nothing. */
  async 'validation errors'(t) {
    const { send, log } = recorder(t);
    await send('create with many problems', post('customer', INVALID_CUSTOMER, '/customers'));
    await send('create without data', {
      method: 'POST',
      path: '/customers',
      body: { customer: customerAttributes(1) },
    });
    await send('create with the wrong type', post('customers', customerAttributes(1), '/customers'));
    await send('list after refusals', get('/customers'));
    const created = await send('create', post('customer', customerAttributes(1), '/customers'));
    const id: string = created.body.data.id;
    await send(
      'patch with another id',
      patch('customer', String(Number(id) + 1), { city: 'Utrecht' }, `/customers/${id}`),
    );
    await send(
      'patch with problems',
      patch('customer', id, { email: 'bad', iban: 'NL91ABNA0417164300', city: 'Utrecht' }, `/customers/${id}`),
    );
    await send(
      'patch a read-only attribute',
      patch('customer', id, { payment_method: 'creditcard', created_at: '2020-01-01' }, `/customers/${id}`),
    );
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
    await send('put customers', {
      method: 'PUT',
      path: '/customers',
      body: { data: { type: 'customer', attributes: customerAttributes(3) } },
    });
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
    await send(
      'send back every attribute, one changed',
      patch('customer', id, { ...again.raw.data.attributes, city: 'Utrecht' }, path),
    );
    const before = await send('get before saving the whole resource object', get(path));
    await send('send back the whole resource object, one attribute changed', {
      method: 'PATCH',
      path,
      body: { data: { ...before.raw.data, attributes: { ...before.raw.data.attributes, city: 'Delft' } } },
    });
    await send(
      'a read-only attribute with another value',
      patch('customer', id, { ...before.raw.data.attributes, payment_method: 'creditcard' }, path),
    );
    await send(
      'relationships inside attributes',
      patch(
        'customer',
        id,
        { city: 'Leiden', relationships: { subscriptions: { data: [{ type: 'subscription', id: '1' }] } } },
        path,
      ),
    );
    await send('get after', get(path));
    await send('create with an id of its own', {
      method: 'POST',
      path: '/customers',
      body: { data: { type: 'customer', id: '42', attributes: customerAttributes(2) } },
    });
    await send('list after', get('/customers'));
    return log;
  },

  /** Text that is not valid Unicode or holds control characters, nesting, ids that would round, strict parameters. */
  async 'strict input'(t) {
    const { send, log } = recorder(t);
    await send('create', post('customer', customerAttributes(1), '/customers'));
    await send(
      'a lone surrogate',
      post('customer', { ...customerAttributes(2), first_name: 'Jan\ud800' }, '/customers'),
    );
    await send(
      'a control character',
      post('customer', { ...customerAttributes(2), city: 'Amster\u0007dam', street: 'Dam\u0000' }, '/customers'),
    );
    await send(
      'tab and newline are text',
      post('customer', { ...customerAttributes(2), street: ' Keizersgracht\t313\nachterhuis ' }, '/customers'),
    );
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    await send('nested 100 levels deep', post('customer', { ...customerAttributes(3), city: deep }, '/customers'));
    await send('an id above 2^53 - 1', get('/customers/9007199254740993'));
    await send(
      'patch an id above 2^53 - 1',
      patch('customer', '9007199254740993', { city: 'X' }, '/customers/9007199254740993'),
    );
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
    for (const value of ['0', '-1', 'abc', '1.5'])
      await send(`page[number]=${value}`, get('/customers', { 'page[number]': value }));
    for (const value of ['0', '101', 'x'])
      await send(`page[size]=${value}`, get('/customers', { 'page[size]': value }));
    await send('page[size]=1', get('/customers', { 'page[size]': 1 }));
    await send('page[size]=100', get('/customers', { 'page[size]': 100 }));
    await send('plans page[size]=0', get('/subscription-plans', { 'page[size]': 0 }));
    await send('customer subscriptions page[number]=0', get('/customers/1/subscriptions', { 'page[number]': 0 }));
    return log;
  },

  /**
   * Amounts at their bound (10,000,000,000.00, an invoice total's too): a transaction of it, as a
   * string and as a number, and one a cent less, come back exactly; one cent more is refused, and
   * so is the most a double holds in cents, which would otherwise be stored and shown rounded.
   */
  async 'amounts at their bounds'(t, seed) {
    const { send, log } = recorder(t);
    await seed.plan({ ...GOLD, amount: '10000000000.00' });
    const customer: string = (await send('create customer', post('customer', customerAttributes(1), '/customers'))).body
      .data.id;
    const subscription: string = (
      await send('create subscription', post('subscription', activeSubscription(customer), '/subscriptions'))
    ).body.data.id;
    const transaction = (amount: unknown) =>
      post('transaction', { subscription_id: subscription, amount }, '/transactions');
    await send('the largest, as a string', transaction('10000000000.00'));
    await send('the largest, as a number', transaction(10000000000));
    await send('a cent less, as a number', transaction(9999999999.99));
    await send('one cent more', transaction('10000000000.01'));
    await send('one cent more, as a number', transaction(10000000000.01));
    await send('the most cents a double holds', transaction('90071992547409.91'));
    await send('the plan', get('/subscription-plans/1'));
    // Only their amounts: a server collects what falls due while the scenario runs (status, history).
    await send(
      'the transactions',
      get(`/subscriptions/${subscription}/transactions`, { 'fields[transaction]': 'amount' }),
    );
    return log;
  },

  /**
   * The request forms of PATCH /invoices/{id}/finalise: the API reference's own (data.type and
   * attributes.send_email, no data.id), data.id given (it must be the path's) or null, and no body.
   */
  async 'finalise forms'(t, seed) {
    const { send, log } = recorder(t);
    await seed.plan(GOLD);
    const customer: string = (await send('create customer', post('customer', customerAttributes(1), '/customers'))).body
      .data.id;
    const subscription: string = (
      await send('create subscription', post('subscription', activeSubscription(customer), '/subscriptions'))
    ).body.data.id;
    const draft = async (name: string): Promise<string> => {
      const id: string = (await send(`create ${name}`, post('invoice', { subscription_id: subscription }, '/invoices')))
        .body.data.id;
      await send(`a line for ${name}`, post('invoice-line', { invoice_id: Number(id), ...LUNCHBOX }, '/invoice-lines'));
      return id;
    };
    const finalise = (id: string, data: Record<string, unknown>): TransportRequest => ({
      method: 'PATCH',
      path: `/invoices/${id}/finalise`,
      body: { data },
    });
    const first = await draft('the first');
    await send(
      'with another id',
      finalise(first, { type: 'invoice', id: String(Number(first) + 1), attributes: { send_email: false } }),
    );
    await send('with another type', finalise(first, { type: 'invoices', attributes: { send_email: false } }));
    await send(
      'with an id that is no id',
      finalise(first, { type: 'invoice', id: true, attributes: { send_email: false } }),
    );
    await send('still a draft', get(`/invoices/${first}`));
    await send(
      'as the API reference shows it',
      finalise(first, { type: 'invoice', attributes: { send_email: false } }),
    );
    const second = await draft('the second');
    await send('with its own id', finalise(second, { type: 'invoice', id: second, attributes: { send_email: false } }));
    const third = await draft('the third');
    await send(
      'with a null id, send_email from the plan',
      finalise(third, { type: 'invoice', id: null, attributes: {} }),
    );
    const fourth = await draft('the fourth');
    await send('without a body', { method: 'PATCH', path: `/invoices/${fourth}/finalise` });
    await send('the invoice emails', get('/notifications'));
    return log;
  },

  /**
   * Invoices from draft to paid: lines added and changed, totals exact; finalised (INV-1, INV-2);
   * every change refused after finalising; credited (negated) and the credit finalised (INV-3);
   * paid by hand; a draft deleted; read through its related paths; listed by status.
   */
  async invoices(t, seed) {
    const { send, log } = recorder(t);
    await seed.plan(GOLD);
    const customer: string = (await send('create customer', post('customer', customerAttributes(1), '/customers'))).body
      .data.id;
    const subscription: string = (
      await send('create subscription', post('subscription', activeSubscription(customer), '/subscriptions'))
    ).body.data.id;
    const invoice: string = (
      await send('create invoice', post('invoice', { subscription_id: subscription }, '/invoices'))
    ).body.data.id;
    const line = (attributes: Record<string, unknown>, to = invoice) =>
      post('invoice-line', { invoice_id: Number(to), ...attributes }, '/invoice-lines');
    const lunchbox: string = (await send('add lunchbox', line(LUNCHBOX))).body.data.id;
    const soup: string = (await send('add soup', line(SOUP))).body.data.id;
    await send('add discount', line(DISCOUNT));
    await send('draft with three lines', get(`/invoices/${invoice}`));
    await send('change soup', patch('invoice-line', soup, SOUP_CHANGE, `/invoice-lines/${soup}`));
    await send('draft after the change', get(`/invoices/${invoice}`));
    await send('credit a draft', { method: 'PATCH', path: `/invoices/${invoice}/credit` });
    await send('pay a draft', { method: 'PATCH', path: `/invoices/${invoice}/pay` });
    await send('finalise', { method: 'PATCH', path: `/invoices/${invoice}/finalise` });

    // A finalised invoice never changes: every change is Invalid State.
    await send('finalise again', { method: 'PATCH', path: `/invoices/${invoice}/finalise` });
    await send('patch finalised', patch('invoice', invoice, { send_email: true }, `/invoices/${invoice}`));
    await send('delete finalised', { method: 'DELETE', path: `/invoices/${invoice}` });
    await send('add a line to finalised', line(LUNCHBOX));
    await send(
      'patch a line of finalised',
      patch('invoice-line', lunchbox, { quantity: 9 }, `/invoice-lines/${lunchbox}`),
    );
    await send('delete a line of finalised', { method: 'DELETE', path: `/invoice-lines/${lunchbox}` });
    await send('finalised after refusals', get(`/invoices/${invoice}`));
    await send('line after refusals', get(`/invoice-lines/${lunchbox}`));

    const second: string = (
      await send('create second invoice', post('invoice', { subscription_id: subscription }, '/invoices'))
    ).body.data.id;
    await send('add a line to the second', line(LUNCHBOX, second));
    await send('finalise the second', { method: 'PATCH', path: `/invoices/${second}/finalise` });

    await send('pay', { method: 'PATCH', path: `/invoices/${invoice}/pay` });
    await send('pay again', { method: 'PATCH', path: `/invoices/${invoice}/pay` });

    const credit: string = (await send('credit', { method: 'PATCH', path: `/invoices/${invoice}/credit` })).body.data
      .id;
    await send('credit lines', get(`/invoices/${credit}/lines`));
    await send('credit again', { method: 'POST', path: `/invoices/${invoice}/credit` });
    await send('finalise the credit', { method: 'PATCH', path: `/invoices/${credit}/finalise` });
    await send('original after credit', get(`/invoices/${invoice}`));
    await send('pay a completed invoice', { method: 'PATCH', path: `/invoices/${credit}/pay` });
    await send('credit the credit', { method: 'PATCH', path: `/invoices/${credit}/credit` });

    // Credits follow money rules (docs/credits.md): the paid invoice's credit is owed back until refunded.
    const refundDue = () => get('/invoices', { 'filter[status]': 'completed', 'filter[refund_due]': 'true' });
    await send('refund due', refundDue());
    await send('refunded', { method: 'PATCH', path: `/invoices/${credit}/refunded` });
    await send('refunded again', { method: 'PATCH', path: `/invoices/${credit}/refunded` });
    await send('refund due after', refundDue());

    const draft: string = (
      await send('create a draft to delete', post('invoice', { subscription_id: subscription }, '/invoices'))
    ).body.data.id;
    const doomed: string = (await send('add a line to the draft', line(LUNCHBOX, draft))).body.data.id;
    const dropped: string = (await send('add another line to the draft', line(SOUP, draft))).body.data.id;
    await send('delete a line of the draft', { method: 'DELETE', path: `/invoice-lines/${dropped}` });
    await send('draft after deleting a line', get(`/invoices/${draft}`));
    await send('delete the draft', { method: 'DELETE', path: `/invoices/${draft}` });
    await send('deleted draft', get(`/invoices/${draft}`));
    await send('line of the deleted draft', get(`/invoice-lines/${doomed}`));
    await send('delete the draft again', { method: 'DELETE', path: `/invoices/${draft}` });

    await send('lines', get(`/invoices/${invoice}/lines`));
    await send('subscription', get(`/invoices/${invoice}/subscription`));
    await send('customer', get(`/invoices/${invoice}/customer`));
    await send('lines of an unknown invoice', get('/invoices/999/lines'));
    await send('a draft that stays', post('invoice', { subscription_id: subscription }, '/invoices'));
    for (const status of ['draft', 'open', 'paid', 'completed', 'cancelled'])
      await send(`list ${status}`, get('/invoices', { 'filter[status]': status }));
    await send('list with an unknown status', get('/invoices', { 'filter[status]': 'late' }));
    await send('list', get('/invoices', { sort: '-id' }));

    // A third, open and due in the future (so no timer collects it), credited a line at a time:
    // cancelled once credited in full.
    const third: string = (
      await send(
        'create a third invoice',
        post('invoice', { subscription_id: subscription, transaction_date: '2026-12-20' }, '/invoices'),
      )
    ).body.data.id;
    const thirdLine: string = (await send('add a line to the third', line(LUNCHBOX, third))).body.data.id;
    await send('finalise the third', { method: 'PATCH', path: `/invoices/${third}/finalise` });
    const lines = (items: unknown[]) => ({ type: 'invoice', attributes: { lines: items } });
    const creditThird = (step: string, items: unknown[]) =>
      send(step, { method: 'PATCH', path: `/invoices/${third}/credit`, body: { data: lines(items) } });
    await creditThird('credit too much of the third', [{ line_id: Number(thirdLine), quantity: 3 }]);
    const part: string = (await creditThird('credit one of the third', [{ line_id: thirdLine, quantity: 1 }])).body.data
      .id;
    await send('finalise the part', { method: 'PATCH', path: `/invoices/${part}/finalise` });
    await send('third after a part', get(`/invoices/${third}`));
    const rest: string = (await send('credit the rest', { method: 'PATCH', path: `/invoices/${third}/credit` })).body
      .data.id;
    await send('finalise the rest', { method: 'PATCH', path: `/invoices/${rest}/finalise` });
    await send('third after the rest', get(`/invoices/${third}`));
    await send('refund due at the end', refundDue());
    return log;
  },
};

/**
 * Scenarios that move the store's test clock (ClockSeed.advanceTo): through the doors only, at
 * their fixed test time (engines.test.ts runs `scenarios` on the real clock, which cannot be moved).
 */
export const clockScenarios: Record<string, ClockScenario> = {
  /**
   * A draft dated today is finalised by itself once the day has ended (00:00 Europe/Amsterdam; not a
   * second before); one without lines waits for a line. Its transaction is collected on the
   * transaction date, fulfilled three days later, and the invoice follows it: paid.
   */
  async 'invoices follow the clock'(t, seed) {
    const { send, log } = recorder(t);
    await seed.plan(GOLD);
    const customer: string = (await send('create customer', post('customer', customerAttributes(1), '/customers'))).body
      .data.id;
    const subscription: string = (
      await send('create subscription', post('subscription', activeSubscription(customer), '/subscriptions'))
    ).body.data.id;
    // TEST_NOW is 2026-11-21 11:00 in Amsterdam.
    const dated: string = (
      await send(
        'create invoice dated today',
        post(
          'invoice',
          { subscription_id: subscription, invoice_date: '2026-11-21', transaction_date: '2026-11-23' },
          '/invoices',
        ),
      )
    ).body.data.id;
    await send('add a line', post('invoice-line', { invoice_id: Number(dated), ...LUNCHBOX }, '/invoice-lines'));
    const empty: string = (
      await send(
        'create an empty draft dated today',
        post('invoice', { subscription_id: subscription, invoice_date: '2026-11-21' }, '/invoices'),
      )
    ).body.data.id;

    await seed.advanceTo('2026-11-21T22:59:59Z'); // 23:59:59 in Amsterdam: the day has not ended
    await send('a second before the day ends', get(`/invoices/${dated}`));
    await seed.advanceTo('2026-11-21T23:00:00Z');
    const finalised = await send('the day has ended', get(`/invoices/${dated}`));
    await send('the empty draft waits', get(`/invoices/${empty}`));
    const transaction = `/transactions/${finalised.raw.data.relationships.transaction.data.id}`;
    await send('its transaction', get(transaction));

    await send(
      'a line for the empty draft',
      post(
        'invoice-line',
        { invoice_id: Number(empty), description: 'delivery', amount: '5.00', tax_rate: 21 },
        '/invoice-lines',
      ),
    );
    await seed.advanceTo('2026-11-21T23:00:00Z'); // the due work of that moment (the HTTP door's timer may have done it already)
    const second = await send('the other draft, finalised at once', get(`/invoices/${empty}`));
    const secondTransaction = `/transactions/${second.raw.data.relationships.transaction.data.id}`;
    await send('its transaction, collected at once', get(secondTransaction));

    await seed.advanceTo('2026-11-22T22:59:59Z');
    await send('a second before the transaction date', get(transaction));
    await seed.advanceTo('2026-11-22T23:00:00Z');
    await send('collected on the transaction date', get(transaction));
    await send('open while collected', get(`/invoices/${dated}`));
    await seed.advanceTo('2026-11-24T23:00:00Z');
    await send('the other, fulfilled', get(`/invoices/${empty}`));
    await seed.advanceTo('2026-11-25T22:59:59Z');
    await send('a second before fulfilment', get(`/invoices/${dated}`));
    await seed.advanceTo('2026-11-25T23:00:00Z');
    await send('fulfilled', get(transaction));
    await send('paid', get(`/invoices/${dated}`));
    await send('list paid', get('/invoices', { 'filter[status]': 'paid' }));
    await send('list open', get('/invoices', { 'filter[status]': 'open' }));
    return log;
  },

  /**
   * GET /reports/{name} (an extension): a subscription collected monthly from December, an invoice
   * in January, then every report over the months since November, VAT by quarter, and the refusals.
   */
  async reports(t, seed) {
    const { send, log } = recorder(t);
    await seed.plan(GOLD);
    const customer: string = (await send('create customer', post('customer', customerAttributes(1), '/customers'))).body
      .data.id;
    const subscription: string = (
      await send('create subscription', post('subscription', activeSubscription(customer), '/subscriptions'))
    ).body.data.id;
    await seed.advanceTo('2027-01-15T12:00:00Z');
    const invoice: string = (
      await send('create invoice', post('invoice', { subscription_id: subscription }, '/invoices'))
    ).body.data.id;
    await send('add a line', post('invoice-line', { invoice_id: Number(invoice), ...LUNCHBOX }, '/invoice-lines'));
    await send('finalise', { method: 'PATCH', path: `/invoices/${invoice}/finalise` });
    await seed.advanceTo('2027-02-15T12:00:00Z');
    for (const name of ['mrr', 'subscriptions', 'collections', 'revenue', 'vat'])
      await send(name, get(`/reports/${name}`, { 'filter[from]': '2026-11-01' }));
    await send('overdue', get('/reports/overdue'));
    await send(
      'vat by quarter',
      get('/reports/vat', { 'filter[from]': '2026-10-01', 'filter[to]': '2027-03-31', 'filter[by]': 'quarter' }),
    );
    await send('by default', get('/reports/mrr'));
    await send('an unknown report', get('/reports/ltv'));
    await send('a day that is not one', get('/reports/mrr', { 'filter[from]': '2027-02-30' }));
    await send('from after to', get('/reports/mrr', { 'filter[from]': '2027-02-01', 'filter[to]': '2027-01-01' }));
    await send('from after today', get('/reports/mrr', { 'filter[from]': '2027-03-01' }));
    await send('a grain that is not one', get('/reports/mrr', { 'filter[by]': 'week' }));
    await send('a page', get('/reports/mrr', { 'page[size]': '10' }));
    await send('a range for overdue', get('/reports/overdue', { 'filter[to]': '2027-01-31' }));
    await send('a post', { method: 'POST', path: '/reports/mrr', body: { data: { type: 'report' } } });
    return log;
  },
  /**
   * GET /transactions (an extension): two customers' subscriptions collected on Dec 1 and a
   * one-off for the first canceled; then the account's list newest due date first, found by
   * several statuses, a due-date range and a customer, with each customer in meta; and the refusals.
   */
  async 'the account transactions'(t, seed) {
    const { send, log } = recorder(t);
    await seed.plan(GOLD);
    const first: string = (await send('create customer 1', post('customer', customerAttributes(1), '/customers'))).body
      .data.id;
    const second: string = (await send('create customer 2', post('customer', customerAttributes(2), '/customers'))).body
      .data.id;
    const subscription: string = (
      await send('subscribe 1', post('subscription', activeSubscription(first), '/subscriptions'))
    ).body.data.id;
    await send('subscribe 2', post('subscription', activeSubscription(second), '/subscriptions'));
    const oneOff: string = (
      await send(
        'a one-off',
        post('transaction', { subscription_id: subscription, amount: 5, due_date: '2026-12-20' }, '/transactions'),
      )
    ).raw.data.id;
    await send('cancel it', { method: 'DELETE', path: `/transactions/${oneOff}` });
    await seed.advanceTo('2026-12-02T12:00:00Z');
    await send('all', get('/transactions'));
    await send('succeeded or canceled', get('/transactions', { 'filter[status]': 'succeeded,canceled' }));
    await send(
      'due in December, oldest first',
      get('/transactions', { 'filter[due_from]': '2026-12-01', 'filter[due_to]': '2026-12-31', sort: 'due_date' }),
    );
    await send("the second customer's", get('/transactions', { 'filter[customer_id]': second }));
    await send('by a reason code', get('/transactions', { 'filter[reason_code]': 'AM04' }));
    await send('a page', get('/transactions', { 'page[size]': '2', 'page[number]': '2' }));
    await send('a status that is not one', get('/transactions', { 'filter[status]': 'succeeded,lost' }));
    await send('page[after]', get('/transactions', { 'page[after]': '0' }));
    return log;
  },
};
