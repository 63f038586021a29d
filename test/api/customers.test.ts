// POST/PATCH/GET /customers through the router: exactly what the HTTP API answers.
import { describe, expect, it } from 'vitest';
import { run } from '../../src/lib/store/unit.js';
import { testCore } from '../helpers/store.js';
import {
  BASE,
  OTHER_VALID_IBAN,
  TestClock,
  VALID_IBAN,
  createCustomer,
  customerBody,
  customerRows,
  expectError,
  expectInvalidAttributes,
  insertSubscription,
  link,
  makePlan,
  minimalCustomer,
  send,
  totalCustomers,
} from './support.js';

const HOUR = 3_600_000;

describe('POST /customers', () => {
  it('when the attributes are valid, answers 201 with the full resource and its defaults', async () => {
    const core = await testCore({ baseUrl: 'https://billing.example/api/' });
    const answer = await send(core, 'POST', '/customers', {
      body: customerBody({
        first_name: '  Jan  ',
        last_name: 'Jansen ',
        email: ' jan@example.com',
        iban: 'nl91 abna 0417 1643 00',
        bank_holder: 'J. Jansen',
        country_iso2: 'nl',
        city: '  Amsterdam',
      }),
    });

    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toBe('application/vnd.api+json');
    const self = 'https://billing.example/api/customers/1';
    expect(answer.headers.location).toBe(self);
    expect(answer.body).toEqual({
      links: { self },
      data: {
        type: 'customer',
        id: '1',
        links: { self },
        attributes: {
          gender: null,
          first_name: 'Jan',
          middle_name: null,
          last_name: 'Jansen',
          company_name: null,
          vat_number: null,
          bank_holder: 'J. Jansen',
          iban: 'NL91ABNA0417164300',
          payment_method: 'directdebit',
          bank_verification_method: null,
          card_holder: null,
          card_number: null,
          postalcode: null,
          house_number: null,
          house_number_add: null,
          street: null,
          city: 'Amsterdam',
          country_iso2: 'NL',
          language: 'nl',
          email: 'jan@example.com',
          telephone: null,
          archived: false,
          // TEST_NOW is 10:00 UTC; the default account shows Europe/Amsterdam (+01:00 in November).
          created_at: '2026-11-21T11:00:00+01:00',
          updated_at: '2026-11-21T11:00:00+01:00',
        },
        relationships: {
          subscriptions: { links: { related: 'https://billing.example/api/customers/1/subscriptions' }, data: [] },
        },
      },
    });
  });

  it('when read back with GET, shows what the create answered', async () => {
    const core = await testCore();
    const created = await send(core, 'POST', '/customers', {
      body: customerBody({ ...minimalCustomer(), gender: 'f', language: 'de', telephone: '+49301234567' }),
    });
    const read = await send(core, 'GET', `/customers/${created.body.data.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(read.body.data.attributes).toMatchObject({ gender: 'f', language: 'de', telephone: '+49301234567' });
  });

  it('when sent through the embedded transport with an object body, answers the same 201', async () => {
    const core = await testCore();
    const answer = await core.transport.request({
      method: 'POST',
      path: '/customers',
      body: customerBody(minimalCustomer(7)),
    });
    expect(answer.status).toBe(201);
    expect((answer.body as { data: { attributes: { email: string } } }).data.attributes.email).toBe(
      'person7@example.com',
    );
    expect(answer.headers.location).toBe(`${BASE}/customers/1`);
  });

  it('when every kind of attribute problem is present, reports each one at once and writes nothing', async () => {
    const core = await testCore();
    await createCustomer(core);
    const before = await customerRows(core);
    const body = customerBody({
      email: 'not-an-email',
      iban: 'NL92ABNA0417164300', // bad check digits
      gender: 'x',
      language: 'es',
      country_iso2: 'XX',
      city: 'a'.repeat(256),
      favourite_colour: 'blue',
      payment_method: 'creditcard',
    });
    const answer = await send(core, 'POST', '/customers', { body });

    expectInvalidAttributes(
      answer,
      [
        'first_name',
        'last_name',
        'email',
        'iban',
        'gender',
        'language',
        'country_iso2',
        'city',
        'favourite_colour',
        'payment_method',
      ],
      body,
    );
    expect(await customerRows(core)).toEqual(before);
    expect(await totalCustomers(core)).toBe(1);
  });

  it.each([
    ['first_name', { last_name: 'L', email: 'a@example.com' }],
    ['last_name', { first_name: 'F', email: 'a@example.com' }],
    ['email', { first_name: 'F', last_name: 'L' }],
  ])('when %s is missing, says it is required', async (missing, attributes) => {
    const core = await testCore();
    const body = customerBody(attributes);
    const answer = await send(core, 'POST', '/customers', { body });
    expectInvalidAttributes(answer, [missing], body);
    expect(answer.body.errors[0].detail).toMatch(/required/);
  });

  it.each([
    ['when the email has no domain', { email: 'jan@' }, 'email'],
    ['when the email has no dot in the domain', { email: 'jan@localhost' }, 'email'],
    ['when the email has two @', { email: 'jan@@example.com' }, 'email'],
    ['when the IBAN has a bad check digit', { iban: 'NL92ABNA0417164300' }, 'iban'],
    ['when the IBAN has the wrong length for its country', { iban: 'NL91ABNA041716430' }, 'iban'],
    ['when the gender is not m or f', { gender: 'M' }, 'gender'],
    ['when the language is not one of the five', { language: 'en-GB' }, 'language'],
    ['when the country is not an ISO 3166-1 code', { country_iso2: 'UK' }, 'country_iso2'],
    ['when a string is longer than 255 characters after trimming', { street: `${'s'.repeat(256)}` }, 'street'],
    ['when first_name is only spaces', { first_name: '   ' }, 'first_name'],
    ['when first_name is a number', { first_name: 42 }, 'first_name'],
    ['when city is an object', { city: { name: 'Amsterdam' } }, 'city'],
    ['when an attribute is unknown', { nickname: 'Jantje' }, 'nickname'],
    ['when archived (read-only on create) is sent', { archived: true }, 'archived'],
    ['when card_number (read-only) is sent', { card_number: '1234' }, 'card_number'],
    ['when created_at (read-only) is sent', { created_at: '2026-01-01T00:00:00Z' }, 'created_at'],
    ['when the unknown attribute is __proto__', JSON.parse('{"__proto__": {"x": 1}}'), '__proto__'],
    ['when an unknown attribute name holds a slash', { 'a/b~c': 1 }, 'a~1b~0c'],
  ])('%s, answers 400 Invalid Attribute on that attribute', async (_situation, attributes, attribute) => {
    const core = await testCore();
    const body = customerBody({ ...minimalCustomer(), ...attributes });
    const answer = await send(core, 'POST', '/customers', { body });
    expectInvalidAttributes(answer, [attribute], body);
    expect(await totalCustomers(core)).toBe(0);
  });

  it('when a string is exactly 255 characters, accepts it', async () => {
    const core = await testCore();
    const id = await createCustomer(core, { ...minimalCustomer(), street: 'x'.repeat(255) });
    const answer = await send(core, 'GET', `/customers/${id}`);
    expect(answer.body.data.attributes.street).toBe('x'.repeat(255));
  });

  it('when the required attributes come only through a __proto__ object, refuses them instead of creating a customer', async () => {
    const core = await testCore();
    const raw =
      '{"data":{"type":"customer","attributes":{"__proto__":{"first_name":"A","last_name":"B","email":"a@example.com"}}}}';
    const answer = await send(core, 'POST', '/customers', { body: raw });
    expectInvalidAttributes(answer, ['__proto__', 'first_name', 'last_name', 'email'], JSON.parse(raw));
    expect(await totalCustomers(core)).toBe(0);
  });

  it('when an optional string is empty or null, stores null', async () => {
    const core = await testCore();
    const id = await createCustomer(core, {
      ...minimalCustomer(),
      middle_name: '',
      company_name: '   ',
      vat_number: null,
      iban: '',
    });
    const { body } = await send(core, 'GET', `/customers/${id}`);
    expect(body.data.attributes).toMatchObject({ middle_name: null, company_name: null, vat_number: null, iban: null });
  });

  describe('when the document is not a customer document', () => {
    it.each([
      ['the body is not JSON', '{"data": {', '/data', '{"data": {'],
      ['the body is empty', undefined, '/data', null],
      ['the body has no data', '{"attributes": {}}', '/data', { attributes: {} }],
      ['data is an array', '{"data": []}', '/data', { data: [] }],
      ['the body is a JSON string', '"customer"', '/data', 'customer'],
      [
        'data.type is missing',
        JSON.stringify({ data: { attributes: minimalCustomer() } }),
        '/data/type',
        { data: { attributes: minimalCustomer() } },
      ],
      [
        'data.attributes is an array',
        JSON.stringify({ data: { type: 'customer', attributes: [] } }),
        '/data/attributes',
        { data: { type: 'customer', attributes: [] } },
      ],
    ])('when %s, answers 400 Invalid Document and writes nothing', async (_situation, raw, pointer, original) => {
      const core = await testCore();
      const answer = await send(core, 'POST', '/customers', { body: raw });
      expectError(answer, 400, 'Invalid Document', { pointer });
      expect(answer.body.meta).toEqual({ original });
      expect(await totalCustomers(core)).toBe(0);
    });

    it('when data.type is another type, answers 409 Conflict on /data/type and writes nothing', async () => {
      const core = await testCore();
      const answer = await send(core, 'POST', '/customers', {
        body: { data: { type: 'subscription', attributes: minimalCustomer() } },
      });
      expectError(answer, 409, 'Conflict', { pointer: '/data/type' });
      expect(await totalCustomers(core)).toBe(0);
    });
  });
});

describe('PATCH /customers/{id}', () => {
  const setup = async () => {
    const clock = new TestClock();
    const core = await testCore({ clock });
    const id = await createCustomer(core, {
      ...minimalCustomer(),
      middle_name: 'van',
      city: 'Amsterdam',
      iban: VALID_IBAN,
      bank_holder: 'F. Last',
    });
    const before = (await send(core, 'GET', `/customers/${id}`)).body;
    return { clock, core, id, before };
  };

  it('when some attributes are left out, they keep their value and updated_at moves to now', async () => {
    const { clock, core, id, before } = await setup();
    clock.advance(HOUR);
    const answer = await send(core, 'PATCH', `/customers/${id}`, { body: customerBody({ city: ' Utrecht ' }, id) });

    expect(answer.status).toBe(200);
    expect(answer.headers.location).toBeUndefined();
    expect(answer.body.data.attributes).toEqual({
      ...before.data.attributes,
      city: 'Utrecht',
      updated_at: '2026-11-21T12:00:00+01:00',
    });
    expect(answer.body.data.attributes.created_at).toBe('2026-11-21T11:00:00+01:00');
    expect((await send(core, 'GET', `/customers/${id}`)).body).toEqual(answer.body);
  });

  it('when data.id is a number equal to the path id, accepts it', async () => {
    const { core, id } = await setup();
    const answer = await send(core, 'PATCH', `/customers/${id}`, {
      body: customerBody({ telephone: '0201234567' }, Number(id)),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.attributes.telephone).toBe('0201234567');
  });

  it('when the attributes are empty, changes only updated_at', async () => {
    const { clock, core, id, before } = await setup();
    clock.advance(2 * HOUR);
    const answer = await send(core, 'PATCH', `/customers/${id}`, { body: customerBody({}, id) });
    expect(answer.status).toBe(200);
    expect(answer.body.data.attributes).toEqual({ ...before.data.attributes, updated_at: '2026-11-21T13:00:00+01:00' });
  });

  it('when iban is given without bank_holder, answers 400 on bank_holder and changes nothing (rule 2)', async () => {
    const { core, id } = await setup();
    const rows = await customerRows(core);
    const body = customerBody({ iban: OTHER_VALID_IBAN }, id);
    const answer = await send(core, 'PATCH', `/customers/${id}`, { body });
    expectInvalidAttributes(answer, ['bank_holder'], body);
    expect(await customerRows(core)).toEqual(rows);
  });

  it('when iban is given with bank_holder, stores the IBAN uppercase without spaces', async () => {
    const { core, id } = await setup();
    const answer = await send(core, 'PATCH', `/customers/${id}`, {
      body: customerBody({ iban: 'de89 3704 0044 0532 0130 00', bank_holder: 'Other Holder' }, id),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.attributes).toMatchObject({
      iban: OTHER_VALID_IBAN,
      bank_holder: 'Other Holder',
      card_holder: null,
      card_number: null,
    });
  });

  describe('when the customer pays by credit card (rule 1)', () => {
    const byCard = async () => {
      const arranged = await setup();
      const { core, id } = arranged;
      await core.store.write(() =>
        run((q) => q.updateTable('customers').set({ payment_method: 'creditcard' }).where('id', '=', Number(id))),
      );
      return { ...arranged, rows: await customerRows(core) };
    };

    it('refuses a new IBAN with an error on iban and changes nothing', async () => {
      const { core, id, rows } = await byCard();
      const body = customerBody({ iban: OTHER_VALID_IBAN, bank_holder: 'Other Holder' }, id);
      const answer = await send(core, 'PATCH', `/customers/${id}`, { body });
      expectInvalidAttributes(answer, ['iban'], body);
      expect(answer.body.errors[0].detail).toMatch(/direct debit/);
      expect(await customerRows(core)).toEqual(rows);
    });

    it('reports the missing bank_holder as well as the iban', async () => {
      const { core, id } = await byCard();
      const body = customerBody({ iban: OTHER_VALID_IBAN }, id);
      expectInvalidAttributes(await send(core, 'PATCH', `/customers/${id}`, { body }), ['bank_holder', 'iban'], body);
    });

    it('still accepts changes that do not touch the IBAN', async () => {
      const { core, id } = await byCard();
      const answer = await send(core, 'PATCH', `/customers/${id}`, { body: customerBody({ city: 'Delft' }, id) });
      expect(answer.status).toBe(200);
      expect(answer.body.data.attributes).toMatchObject({
        city: 'Delft',
        payment_method: 'creditcard',
        iban: VALID_IBAN,
      });
    });
  });

  it('when archived is set true and then "false", the customer is archived and unarchived', async () => {
    const { core, id } = await setup();
    const archived = await send(core, 'PATCH', `/customers/${id}`, { body: customerBody({ archived: true }, id) });
    expect(archived.status).toBe(200);
    expect(archived.body.data.attributes.archived).toBe(true);
    expect((await send(core, 'GET', `/customers/${id}`)).body.data.attributes.archived).toBe(true);

    const unarchived = await send(core, 'PATCH', `/customers/${id}`, { body: customerBody({ archived: 'false' }, id) });
    expect(unarchived.status).toBe(200);
    expect(unarchived.body.data.attributes.archived).toBe(false);
  });

  it('when archived is not a boolean, answers 400 on archived', async () => {
    const { core, id } = await setup();
    const body = customerBody({ archived: 'yes' }, id);
    expectInvalidAttributes(await send(core, 'PATCH', `/customers/${id}`, { body }), ['archived'], body);
  });

  it('when an optional field is null or empty, clears it', async () => {
    const { core, id } = await setup();
    const answer = await send(core, 'PATCH', `/customers/${id}`, {
      body: customerBody({ middle_name: null, city: '   ', iban: null, bank_holder: '' }, id),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.attributes).toMatchObject({ middle_name: null, city: null, iban: null, bank_holder: null });
  });

  it('when a required field is null or empty, refuses to clear it', async () => {
    const { core, id } = await setup();
    const body = customerBody({ first_name: null, last_name: '  ', email: '' }, id);
    expectInvalidAttributes(
      await send(core, 'PATCH', `/customers/${id}`, { body }),
      ['first_name', 'last_name', 'email'],
      body,
    );
  });

  it('when one attribute is bad, the good ones are not applied either', async () => {
    const { clock, core, id, before } = await setup();
    clock.advance(HOUR);
    const body = customerBody({ city: 'Rotterdam', email: 'nope' }, id);
    expectInvalidAttributes(await send(core, 'PATCH', `/customers/${id}`, { body }), ['email'], body);
    expect((await send(core, 'GET', `/customers/${id}`)).body).toEqual(before);
  });

  it('when a read-only attribute is sent, answers 400 on it', async () => {
    const { core, id } = await setup();
    const body = customerBody({ payment_method: 'creditcard', bank_verification_method: 'ideal' }, id);
    expectInvalidAttributes(
      await send(core, 'PATCH', `/customers/${id}`, { body }),
      ['payment_method', 'bank_verification_method'],
      body,
    );
  });

  it.each([
    ['data.id is missing', { data: { type: 'customer', attributes: {} } }, '/data/id'],
    ['data.type is missing', { data: { id: '1', attributes: {} } }, '/data/type'],
    ['data is missing', { type: 'customer', id: '1' }, '/data'],
  ])('when %s, answers 400 Invalid Document', async (_situation, body, pointer) => {
    const { core, before } = await setup();
    const answer = await send(core, 'PATCH', '/customers/1', { body });
    expectError(answer, 400, 'Invalid Document', { pointer });
    expect(answer.body.meta).toEqual({ original: body });
    expect((await send(core, 'GET', '/customers/1')).body).toEqual(before);
  });

  it.each([
    ['data.id differs from the path', { data: { type: 'customer', id: '2', attributes: {} } }, '/data/id'],
    ['data.type is another type', { data: { type: 'customers', id: '1', attributes: {} } }, '/data/type'],
  ])('when %s, answers 409 Conflict (JSON:API 1.0) and changes nothing', async (_situation, body, pointer) => {
    const { core, before } = await setup();
    const answer = await send(core, 'PATCH', '/customers/1', { body });
    expectError(answer, 409, 'Conflict', { pointer });
    expect((await send(core, 'GET', '/customers/1')).body).toEqual(before);
  });

  it('when the customer does not exist, answers 404', async () => {
    const core = await testCore();
    const answer = await send(core, 'PATCH', '/customers/41', { body: customerBody({ city: 'Delft' }, '41') });
    expectError(answer, 404, 'Not Found');
    expect(await totalCustomers(core)).toBe(0);
  });
});

describe('GET /customers/{id}', () => {
  it.each(['/customers/999', '/customers/abc', '/customers/0', '/customers/01', '/customers/1.5', '/customers/-1'])(
    'when the path is %s, answers 404',
    async (path) => {
      const core = await testCore();
      await createCustomer(core);
      expectError(await send(core, 'GET', path), 404, 'Not Found');
    },
  );

  it('when the path has a trailing slash, finds the customer', async () => {
    const core = await testCore();
    const id = await createCustomer(core);
    const answer = await send(core, 'GET', `/customers/${id}/`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.id).toBe(id);
  });

  it('when fields[customer] is given, returns only those attributes', async () => {
    const core = await testCore();
    const id = await createCustomer(core);
    const answer = await send(core, 'GET', `/customers/${id}`, { query: 'fields[customer]=first_name,email' });
    expect(answer.status).toBe(200);
    expect(answer.body.data.attributes).toEqual({ first_name: 'First1', email: 'person1@example.com' });
    expect(answer.body.data).not.toHaveProperty('relationships');
  });

  it('when include=subscriptions, embeds the customer subscriptions', async () => {
    const core = await testCore();
    const id = await createCustomer(core);
    const plan = await makePlan(core);
    const sub = await insertSubscription(core, id, plan, { mandate_code: 'MNDT-A' });
    const answer = await send(core, 'GET', `/customers/${id}`, { query: 'include=subscriptions' });
    expect(answer.status).toBe(200);
    expect(answer.body.data.relationships.subscriptions.data).toEqual([{ type: 'subscription', id: String(sub) }]);
    expect(answer.body.included).toHaveLength(1);
    expect(answer.body.included[0]).toMatchObject({
      type: 'subscription',
      id: String(sub),
      attributes: { mandate_code: 'MNDT-A' },
    });
    expect(answer.body.included[0].relationships.customer.data).toEqual({ type: 'customer', id });
  });

  it("lists the customer's subscriptions in id order, numerically", async () => {
    const core = await testCore();
    const id = await createCustomer(core);
    const other = await createCustomer(core, minimalCustomer(2));
    const plan = await makePlan(core);
    const mine: number[] = [];
    for (let i = 1; i <= 10; i++) {
      const sub = await insertSubscription(core, i === 2 || i >= 9 ? id : other, plan);
      if (i === 2 || i >= 9) mine.push(sub);
    }
    const answer = await send(core, 'GET', `/customers/${id}`);
    expect(mine.some((sub) => sub >= 10)).toBe(true);
    expect(answer.body.data.relationships.subscriptions.data).toEqual(
      mine.map((sub) => ({ type: 'subscription', id: String(sub) })),
    );
  });

  it('when include names something else, answers 400 Invalid Parameter include', async () => {
    const core = await testCore();
    const id = await createCustomer(core);
    expectError(await send(core, 'GET', `/customers/${id}`, { query: 'include=invoices' }), 400, 'Invalid Parameter', {
      parameter: 'include',
    });
  });
});

describe('methods the API does not have', () => {
  it.each([
    ['DELETE', '/customers/1', 'GET, HEAD, PATCH'],
    ['PUT', '/customers/1', 'GET, HEAD, PATCH'],
    ['DELETE', '/customers', 'GET, HEAD, POST'],
    ['POST', '/subscription-plans', 'GET, HEAD'],
    ['PATCH', '/subscription-plans/1', 'GET, HEAD'],
    ['POST', '/customers/1/subscriptions', 'GET, HEAD'],
    // A batch's file: its GET marks the batch exported, so no HEAD there.
    ['HEAD', '/collections/1/file', 'GET'],
  ])('when %s %s, answers 405 with an Allow header', async (method, path, allow) => {
    const core = await testCore();
    await createCustomer(core);
    const rows = await customerRows(core);
    const answer = await send(core, method, path, { body: customerBody(minimalCustomer(2), '1') });
    expectError(answer, 405, 'Method Not Allowed');
    expect(answer.headers.allow).toBe(allow);
    expect(await customerRows(core)).toEqual(rows);
  });

  it('when the path is unknown, answers 404', async () => {
    const core = await testCore();
    expectError(await send(core, 'GET', '/customer'), 404, 'Not Found');
    expectError(await send(core, 'DELETE', '/nothing/here'), 404, 'Not Found');
  });
});

describe('GET /customers', () => {
  const withCustomers = async (count: number) => {
    const core = await testCore();
    for (let n = 1; n <= count; n++) await createCustomer(core, minimalCustomer(n));
    return core;
  };

  it('when no page is asked for, answers the first 10 by ascending id with absolute links', async () => {
    const core = await withCustomers(23);
    const answer = await send(core, 'GET', '/customers');
    expect(answer.status).toBe(200);
    expect(answer.body.meta).toEqual({ total: 23 });
    expect(answer.body.data.map((c: { id: string }) => c.id)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
    ]);
    expect(answer.body.data[0].attributes.first_name).toBe('First1');
    expect(answer.body.included).toBeUndefined();
    const page = (n: number) => ({
      at: `${BASE}/customers`,
      params: { 'page[number]': String(n), 'page[size]': '10' },
    });
    expect(link(answer.body.links.self)).toEqual(page(1));
    expect(link(answer.body.links.first)).toEqual(page(1));
    expect(link(answer.body.links.last)).toEqual(page(3));
    expect(answer.body.links.prev).toBeNull();
    expect(link(answer.body.links.next)).toEqual(page(2));
  });

  it('when a middle page is asked for, links keep include and fields and point both ways', async () => {
    const core = await withCustomers(12);
    const query = 'page[number]=2&page[size]=5&include=subscriptions&fields[customer]=first_name,email';
    const answer = await send(core, 'GET', '/customers', { query });
    expect(answer.status).toBe(200);
    expect(answer.body.meta.total).toBe(12);
    expect(answer.body.data.map((c: { id: string }) => c.id)).toEqual(['6', '7', '8', '9', '10']);
    expect(answer.body.data[0].attributes).toEqual({ first_name: 'First6', email: 'person6@example.com' });
    expect(answer.body.included).toEqual([]);
    const page = (n: number) => ({
      at: `${BASE}/customers`,
      params: {
        include: 'subscriptions',
        'fields[customer]': 'first_name,email',
        'page[number]': String(n),
        'page[size]': '5',
      },
    });
    expect(link(answer.body.links.self)).toEqual(page(2));
    expect(link(answer.body.links.first)).toEqual(page(1));
    expect(link(answer.body.links.last)).toEqual(page(3));
    expect(link(answer.body.links.prev)).toEqual(page(1));
    expect(link(answer.body.links.next)).toEqual(page(3));
    // The links are usable as they are: following next gives the next page.
    const next = await core.transport.request({ method: 'GET', path: answer.body.links.next });
    expect((next.body as { data: { id: string }[] }).data.map((c) => c.id)).toEqual(['11', '12']);
  });

  it('when the last page is asked for, next is null', async () => {
    const core = await withCustomers(12);
    const answer = await send(core, 'GET', '/customers', { query: 'page[number]=3&page[size]=5' });
    expect(answer.body.data.map((c: { id: string }) => c.id)).toEqual(['11', '12']);
    expect(answer.body.links.next).toBeNull();
    expect(link(answer.body.links.prev)?.params['page[number]']).toBe('2');
  });

  it('when the page is past the end, answers 200 with empty data', async () => {
    const core = await withCustomers(3);
    const answer = await send(core, 'GET', '/customers', { query: 'page[number]=9' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([]);
    expect(answer.body.meta.total).toBe(3);
    expect(answer.body.links.next).toBeNull();
    expect(link(answer.body.links.last)?.params['page[number]']).toBe('1');
  });

  it('when there are no customers, first and last are page 1 and prev/next are null', async () => {
    const core = await testCore();
    const answer = await send(core, 'GET', '/customers');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ meta: { total: 0 }, data: [], links: { prev: null, next: null } });
    expect(link(answer.body.links.first)?.params['page[number]']).toBe('1');
    expect(link(answer.body.links.last)?.params['page[number]']).toBe('1');
  });

  it('when page[size] is 1 or 100, accepts it', async () => {
    const core = await withCustomers(3);
    const one = await send(core, 'GET', '/customers', { query: 'page[size]=1&page[number]=3' });
    expect(one.body.data.map((c: { id: string }) => c.id)).toEqual(['3']);
    const hundred = await send(core, 'GET', '/customers', { query: 'page[size]=100' });
    expect(hundred.body.data).toHaveLength(3);
  });

  it('when the query comes through the transport as an object, pages the same', async () => {
    const core = await withCustomers(4);
    const answer = await core.transport.request({
      method: 'GET',
      path: '/customers',
      query: { 'page[size]': 3, 'page[number]': 2 },
    });
    expect(answer.status).toBe(200);
    expect((answer.body as { data: { id: string }[] }).data.map((c) => c.id)).toEqual(['4']);
  });

  it.each([
    ['page[size]=0', 'page[size]'],
    ['page[size]=101', 'page[size]'],
    ['page[size]=abc', 'page[size]'],
    ['page[size]=1.5', 'page[size]'],
    ['page[size]=', 'page[size]'],
    ['page[number]=0', 'page[number]'],
    ['page[number]=-1', 'page[number]'],
    ['page[number]=two', 'page[number]'],
    ['page[number]=99999999999999999999', 'page[number]'],
    ['include=bogus', 'include'],
    ['include=subscriptions,customer', 'include'],
    ['fields[customer]=nope', 'fields[customer]'],
    ['fields[customer]=first_name,nope', 'fields[customer]'],
    ['fields[invoice]=amount', 'fields[invoice]'],
  ])('when the query is %s, answers 400 Invalid Parameter naming %s', async (query, parameter) => {
    const core = await withCustomers(1);
    const answer = await send(core, 'GET', '/customers', { query });
    expectError(answer, 400, 'Invalid Parameter', { parameter });
    expect(answer.body.meta).toEqual({ original: null });
  });

  it('when include=subscriptions, embeds the subscriptions of the customers on the page only', async () => {
    const core = await withCustomers(3);
    const plan = await makePlan(core);
    const a = await insertSubscription(core, 1, plan);
    const b = await insertSubscription(core, 1, plan);
    const c = await insertSubscription(core, 3, plan);
    const answer = await send(core, 'GET', '/customers', { query: 'include=subscriptions&page[size]=2' });
    expect(answer.status).toBe(200);
    expect(answer.body.data[0].relationships.subscriptions.data).toEqual([
      { type: 'subscription', id: String(a) },
      { type: 'subscription', id: String(b) },
    ]);
    expect(answer.body.data[1].relationships.subscriptions.data).toEqual([]);
    expect(answer.body.included.map((s: { type: string; id: string }) => `${s.type}:${s.id}`)).toEqual([
      `subscription:${a}`,
      `subscription:${b}`,
    ]);
    expect(answer.body.included.map((s: { id: string }) => s.id)).not.toContain(String(c));

    const plain = await send(core, 'GET', '/customers', { query: 'page[size]=3' });
    expect(plain.body.included).toBeUndefined();
    expect(plain.body.data[2].relationships.subscriptions.data).toEqual([{ type: 'subscription', id: String(c) }]);
  });

  it('when fields[customer]=first_name,email, each customer has only those attributes', async () => {
    const core = await withCustomers(2);
    const answer = await send(core, 'GET', '/customers', { query: 'fields[customer]=first_name,email' });
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((c: { attributes: object }) => c.attributes)).toEqual([
      { first_name: 'First1', email: 'person1@example.com' },
      { first_name: 'First2', email: 'person2@example.com' },
    ]);
    // A sparse fieldset covers relationships too: subscriptions is not among the fields.
    expect(answer.body.data[0]).not.toHaveProperty('relationships');
    const kept = await send(core, 'GET', '/customers', { query: 'fields[customer]=first_name,subscriptions' });
    expect(kept.body.data[0].attributes).toEqual({ first_name: 'First1' });
    expect(kept.body.data[0].relationships.subscriptions.links.related).toBe(`${BASE}/customers/1/subscriptions`);
  });
});

describe('GET /customers/{id}/subscriptions', () => {
  it('when the customer has subscriptions, lists exactly those', async () => {
    const core = await testCore();
    const first = await createCustomer(core, minimalCustomer(1));
    const second = await createCustomer(core, minimalCustomer(2));
    const plan = await makePlan(core);
    const mine = [
      await insertSubscription(core, first, plan, { mandate_code: 'M-1' }),
      await insertSubscription(core, first, plan, { mandate_code: 'M-2' }),
    ];
    await insertSubscription(core, second, plan, { mandate_code: 'M-3' });

    const answer = await send(core, 'GET', `/customers/${first}/subscriptions`);
    expect(answer.status).toBe(200);
    expect(answer.body.meta.total).toBe(2);
    expect(answer.body.data.map((s: { id: string }) => s.id)).toEqual(mine.map(String));
    expect(answer.body.data.map((s: { attributes: { mandate_code: string } }) => s.attributes.mandate_code)).toEqual([
      'M-1',
      'M-2',
    ]);
    expect(answer.body.data[0]).toMatchObject({
      type: 'subscription',
      links: { self: `${BASE}/subscriptions/${mine[0]}` },
      attributes: { status: 'unverified', mandate_accepted: false, start_date: '2026-11-21T11:00:00+01:00' },
      relationships: {
        customer: { data: { type: 'customer', id: first } },
        'subscription-plan': { data: { type: 'subscription-plan', id: String(plan) } },
      },
    });
    expect(link(answer.body.links.self)).toEqual({
      at: `${BASE}/customers/${first}/subscriptions`,
      params: { 'page[number]': '1', 'page[size]': '10' },
    });
  });

  it('when the customer has none, answers an empty collection', async () => {
    const core = await testCore();
    const id = await createCustomer(core);
    const answer = await send(core, 'GET', `/customers/${id}/subscriptions`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ meta: { total: 0 }, data: [] });
  });

  it('when the customer does not exist, answers 404', async () => {
    const core = await testCore();
    expectError(await send(core, 'GET', '/customers/5/subscriptions'), 404, 'Not Found');
  });

  it('when the page size is bad, answers 400 Invalid Parameter', async () => {
    const core = await testCore();
    const id = await createCustomer(core);
    expectError(
      await send(core, 'GET', `/customers/${id}/subscriptions`, { query: 'page[size]=500' }),
      400,
      'Invalid Parameter',
      { parameter: 'page[size]' },
    );
  });
});
