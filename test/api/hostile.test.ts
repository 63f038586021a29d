// Property: whatever is thrown at the router (generated query strings, generated bodies: deep
// nesting, huge strings, odd Unicode with lone surrogates and control characters, built-in names
// such as __proto__ as keys and as parameter names, repeated parameters), on any route and method,
// the answer is a JSON:API document with a 2xx (when the request is valid) or a 4xx, never a 500 or
// a throw; and a refused request, like every GET, leaves every table exactly as it was.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { all } from '../../src/lib/store/unit.js';
import { testCore, type TestCore } from '../helpers/store.js';
import {
  VALID_IBAN,
  createCustomer,
  insertSubscription,
  makePlan,
  minimalCustomer,
  send,
  type Answer,
} from './support.js';

const JSONAPI = 'application/vnd.api+json';
const EXPECTED = new Set([200, 201, 400, 403, 404, 405, 409]);

/** Every row of every table a request could touch, in id order. */
async function snapshot(core: TestCore) {
  return core.store.read(function* () {
    return {
      customers: yield* all((q) => q.selectFrom('customers').selectAll().orderBy('id')),
      plans: yield* all((q) => q.selectFrom('subscription_plans').selectAll().orderBy('id')),
      subscriptions: yield* all((q) => q.selectFrom('subscriptions').selectAll().orderBy('id')),
      accounts: yield* all((q) => q.selectFrom('accounts').selectAll().orderBy('id')),
    };
  });
}

async function arrange(): Promise<TestCore> {
  const core = await testCore();
  await createCustomer(core, { ...minimalCustomer(1), iban: VALID_IBAN, bank_holder: 'F. Last', city: 'Amsterdam' });
  await createCustomer(core, minimalCustomer(2));
  const plan = await makePlan(core);
  await insertSubscription(core, 1, plan);
  return core;
}

// ---- text ----

const BUILT_INS = [
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'prototype',
  '__defineGetter__',
];
const ODD = [
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\udc00\ud800',
  '\u0000',
  '\u0001',
  '\u0008',
  '\t',
  '\n',
  '\r',
  '\u000b',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009f',
  '\u200b',
  '\u2028',
  '\u202e',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '😀',
  'é',
  'e\u0301',
  '名',
  ' ',
  '',
  '[',
  ']',
  '{',
  '}',
  '%',
  '%5B',
  '%5d',
  '%zz',
  '%ED%A0%80',
  '%FF',
  '%00',
  '&',
  '=',
  '+',
  '?',
  '#',
  '"',
  "'",
  '\\',
  '\\u0000',
  '\\ud800',
  ',',
  '-',
  '/',
  '~',
];
/** Text made of odd pieces: lone surrogates, controls, bidi, escapes and brackets, and any UTF-16 code unit. */
const oddText = (maxLength = 8) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...ODD),
        fc.constantFrom(...BUILT_INS),
        fc.string({ unit: 'binary', maxLength: 4 }),
        fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      ),
      { maxLength },
    )
    .map((parts) => parts.join(''));
/** A huge string: long runs of one character, outside the BMP too. */
const hugeText = fc
  .tuple(fc.constantFrom('x', ' ', 'é', '😀', '\ud800', '[', '"', '\u0001'), fc.integer({ min: 250, max: 20_000 }))
  .map(([c, n]) => c.repeat(n));
const anyText = fc.oneof({ weight: 4, arbitrary: oddText() }, { weight: 1, arbitrary: hugeText });

// ---- query strings ----

const PARAMETERS = [
  'page[number]',
  'page[size]',
  'include',
  'sort',
  'fields[customer]',
  'fields[subscription]',
  'fields[subscription-plan]',
  'filter[email]',
  'filter[search]',
  'filter[archived]',
  'filter[status]',
  'filter',
  'fields',
  'page',
  'page[foo]',
  'fields[__proto__]',
  'filter[constructor]',
  'fields[constructor]',
  'filter[__proto__]',
  'Include',
  'PAGE[SIZE]',
  '',
];
const VALUES = [
  '1',
  '2',
  '0',
  '-1',
  '10',
  '100',
  '101',
  '1.5',
  '1e3',
  ' 2 ',
  '+2',
  '9007199254740991',
  '9007199254740993',
  '99999999999999999999',
  'subscriptions',
  'customer',
  'id',
  '-id',
  'created_at',
  '-created_at',
  'last_name',
  '-email',
  'true',
  'false',
  'active',
  'inactive',
  'first_name,email',
  'first_name,subscriptions',
  'subscriptions',
  'status,customer',
  'name,amount',
  'person1@example.com',
  'First',
  '',
];
/** Percent-encodes what can be encoded (a lone surrogate cannot), optionally only the brackets. */
const spell = (text: string, how: 'raw' | 'brackets' | 'all'): string => {
  if (how === 'raw') return text;
  if (how === 'brackets') return text.replace(/\[/g, '%5B').replace(/\]/g, '%5D');
  try {
    return encodeURIComponent(text);
  } catch {
    return text;
  }
};
const parameter = fc.tuple(
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...PARAMETERS) },
    { weight: 2, arbitrary: fc.constantFrom(...BUILT_INS) },
    { weight: 2, arbitrary: oddText(4) },
  ),
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...VALUES) },
    { weight: 2, arbitrary: fc.constantFrom(...BUILT_INS) },
    { weight: 2, arbitrary: anyText },
  ),
  fc.constantFrom('raw', 'brackets', 'all' as const),
  fc.boolean(),
);
/** A query string: parameters (some repeated), each spelled raw or percent-encoded; or raw odd text. */
const queryString = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 6,
    arbitrary: fc
      .array(parameter, { maxLength: 6 })
      .chain((params) => fc.tuple(fc.constant(params), fc.subarray(params, { maxLength: Math.min(2, params.length) })))
      .map(([params, repeated]) =>
        [...params, ...repeated]
          .map(([name, value, how, withEquals]) =>
            withEquals || value !== ''
              ? `${spell(name, how === 'all' ? 'brackets' : how)}=${spell(value, how)}`
              : spell(name, how),
          )
          .join('&'),
      ),
  },
  { weight: 1, arbitrary: oddText(12) },
);

// ---- bodies ----

/** Text of a JSON value nested `depth` levels deep, arrays and objects mixed. */
const deepJson = fc
  .tuple(
    fc.integer({ min: 55, max: 70 }),
    fc.integer({ min: 100, max: 100_000 }),
    fc.boolean(),
    fc.constantFrom('[', '{"a":'),
  )
  .map(([near, far, nearOrFar, open]) => {
    const depth = nearOrFar ? near : far;
    const close = open === '[' ? ']' : '}';
    return `${open.repeat(depth)}1${close.repeat(depth)}`;
  });

/** An attribute value: valid ones, odd text, huge text, numbers, nesting. */
const attributeValue = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      'Jan',
      'jan@example.com',
      'NL',
      'nl',
      'm',
      VALID_IBAN,
      'true',
      'false',
      true,
      false,
      null,
      '',
      '  ',
      0,
      1,
    ),
  },
  { weight: 3, arbitrary: anyText },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 53 + 1), fc.constant(-0)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
const ATTRIBUTE_NAMES = [
  'first_name',
  'last_name',
  'email',
  'gender',
  'middle_name',
  'company_name',
  'vat_number',
  'bank_holder',
  'iban',
  'postalcode',
  'house_number',
  'house_number_add',
  'street',
  'city',
  'country_iso2',
  'language',
  'telephone',
  'archived',
  'payment_method',
  'bank_verification_method',
  'card_holder',
  'card_number',
  'created_at',
  'updated_at',
  'relationships',
  'links',
  'id',
  'type',
  'subscriptions',
];
const attributeName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ATTRIBUTE_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...BUILT_INS) },
  { weight: 1, arbitrary: oddText(4) },
);

/** JSON text of an object with these members, in order, as own keys (`__proto__` included), repeated keys kept. */
const objectText = (members: [string, string][]) =>
  `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

/** A resource document as JSON text; ids as a POST (mostly none) or a PATCH of `pathId` (mostly that one) brings them. */
const resourceDocument = (pathId?: string) =>
  fc
    .record({
      // Mostly every required attribute, so that valid documents are among the generated ones.
      base: fc.oneof(
        fc.constant({ first_name: '"Gen"', last_name: '"Erated"', email: '"gen@example.com"' }),
        fc.record(
          {
            first_name: fc.constant('"Gen"'),
            last_name: fc.constant('"Erated"'),
            email: fc.constant('"gen@example.com"'),
          },
          { requiredKeys: [] },
        ),
      ),
      attributes: fc.oneof(
        fc.constant<[string, unknown][]>([]),
        fc.array(fc.tuple(attributeName, attributeValue), { minLength: 1, maxLength: 4 }),
      ),
      deepAttribute: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: deepJson }),
      type: fc.oneof(
        { weight: 8, arbitrary: fc.constant<unknown>('customer') },
        {
          weight: 2,
          arbitrary: fc.constantFrom<unknown>(
            'customers',
            'subscription-plan',
            '',
            null,
            1,
            undefined,
            'customer\ud800',
            '__proto__',
          ),
        },
      ),
      id: fc.oneof(
        {
          weight: pathId === undefined ? 5 : 8,
          arbitrary: fc.constantFrom<unknown>(...(pathId === undefined ? [undefined] : [pathId, Number(pathId)])),
        },
        {
          weight: 2,
          arbitrary: fc.constantFrom<unknown>(
            undefined,
            '1',
            '2',
            null,
            '01',
            '',
            1.5,
            2 ** 53 + 2,
            '9007199254740993',
            '1\udc00',
            {},
            ['1'],
          ),
        },
      ),
      extra: fc.oneof(
        fc.constant<[string, unknown][]>([]),
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom('meta', 'links', 'relationships', 'jsonapi', 'included', 'data'),
              fc.constantFrom(...BUILT_INS),
              oddText(3),
            ),
            fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<unknown>,
          ),
          { minLength: 1, maxLength: 2 },
        ),
      ),
      attributesShape: fc.oneof(
        { weight: 8, arbitrary: fc.constant('object') },
        { weight: 1, arbitrary: fc.constantFrom('absent', 'array', 'string', 'null') },
      ),
    })
    .map(({ base, attributes, deepAttribute, type, id, extra, attributesShape }) => {
      const members: [string, string][] = [
        ...Object.entries(base),
        ...attributes.map(([k, v]): [string, string] => [k, JSON.stringify(v) ?? 'null']),
      ];
      if (deepAttribute !== null) members.push(['city', deepAttribute]);
      const data: [string, string][] = [];
      if (type !== undefined) data.push(['type', JSON.stringify(type)]);
      if (id !== undefined) data.push(['id', JSON.stringify(id)]);
      if (attributesShape === 'object') data.push(['attributes', objectText(members)]);
      else if (attributesShape === 'array') data.push(['attributes', '[]']);
      else if (attributesShape === 'string') data.push(['attributes', '"x"']);
      else if (attributesShape === 'null') data.push(['attributes', 'null']);
      return objectText([
        ['data', objectText(data)],
        ...extra.map(([k, v]): [string, string] => [k, JSON.stringify(v)]),
      ]);
    });

/** Anything as a body: none, a document, deep nesting, odd or huge text, any JSON. */
const anyBody = (pathId?: string) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 8, arbitrary: resourceDocument(pathId) },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: anyText },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  );

const READS = [
  '/customers',
  '/customers/1',
  '/customers/2',
  '/customers/1/subscriptions',
  '/subscription-plans',
  '/subscription-plans/1',
  '/subscription-plans/1/subscriptions',
  '/customers/1/',
];
const ODD_PATHS = [
  '/customers/3',
  '/customers/999',
  '/customers/9007199254740991',
  '/customers/9007199254740993',
  '/customers/0',
  '/customers/01',
  '/customers/abc',
  '/customers/__proto__',
  '/subscription-plans/2',
  '/nowhere',
  '/constructor',
  '/',
  '',
];
const path = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...READS) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_PATHS) },
  { weight: 1, arbitrary: oddText(5).map((t) => `/customers/${t}`) },
);
/** A query: mostly none or a hostile one; either way any route must answer it. */
const query = fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: queryString });

const request = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      method: fc.constantFrom('GET', 'get'),
      path,
      query,
      body: fc.constant<string | undefined>(undefined),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      method: fc.constant('POST'),
      path: fc.constantFrom('/customers', '/customers/'),
      query: fc.oneof(fc.constant(undefined), fc.constant(undefined), queryString),
      body: anyBody(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom('1', '2', '999', '9007199254740993').chain((id) =>
      fc.record({
        method: fc.constantFrom('PATCH', 'patch'),
        path: fc.constant(`/customers/${id}`),
        query: fc.oneof(fc.constant(undefined), fc.constant(undefined), queryString),
        body: anyBody(id),
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'constructor'),
      path,
      query,
      body: anyBody('1'),
    }),
  },
);

const wellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Every string of a value (2xx answers hold only text that is valid Unicode: nothing was replaced or let through). */
function* strings(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const item of value) yield* strings(item);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* [k, ...strings(v)];
}

function checkAnswer(answer: Answer, shown: string): void {
  expect(EXPECTED.has(answer.status), shown).toBe(true);
  expect(answer.headers['content-type']).toBe(JSONAPI);
  const text = JSON.stringify(answer.body); // what the HTTP door writes: must not throw
  expect(typeof text).toBe('string');
  if (answer.status < 400) {
    expect(answer.body.data, shown).toBeDefined();
    for (const s of strings(answer.body)) expect(wellFormed(s), shown).toBe(true);
    return;
  }
  const errors = answer.body.errors as {
    status: string;
    title: string;
    detail: string;
    source?: { pointer?: string; parameter?: string };
  }[];
  expect(Array.isArray(errors) && errors.length > 0, shown).toBe(true);
  for (const error of errors) {
    expect(error.status).toBe(String(answer.status));
    expect(typeof error.title).toBe('string');
    expect(typeof error.detail).toBe('string');
    if (error.title === 'Invalid Parameter') expect(typeof error.source?.parameter).toBe('string');
    if (error.title === 'Invalid Attribute') expect(error.source?.pointer).toMatch(/^\/data\/attributes\//);
    if (error.title === 'Conflict') expect(['/data/type', '/data/id']).toContain(error.source?.pointer);
  }
  if (answer.status === 400) expect(Object.keys(answer.body.meta ?? {})).toEqual(['original']);
  else expect(answer.body.meta).toBeUndefined();
}

describe('hostile requests at the router', () => {
  it('are answered 2xx or 4xx, never 500; refused ones, and every GET, change nothing', async () => {
    const core = await arrange();
    let before = await snapshot(core);
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ method, path, query, body }) => {
        const shown = JSON.stringify({
          method,
          path,
          query,
          body: body && body.length > 300 ? `${body.slice(0, 300)}… (${body.length})` : body,
        });
        const answer = (await core.router.handle({ method, path, query, body }, await core.account())) as Answer;
        seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
        checkAnswer(answer, shown);
        const after = await snapshot(core);
        if (answer.status >= 400 || method.toUpperCase() === 'GET') expect(after, shown).toEqual(before);
        else before = after; // a valid write: the next requests start from what it wrote
      }),
      { numRuns: 400 },
    );
    // The generators reach every kind of answer, not just the first refusal.
    for (const status of [200, 201, 400, 403, 404, 405, 409])
      expect(seen.get(status) ?? 0, `answers ${status}: ${JSON.stringify([...seen])}`).toBeGreaterThan(0);
  });

  it('valid writes among generated ones store exactly what the answer shows', async () => {
    const core = await arrange();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          city: fc.oneof(oddText(10), fc.constantFrom('Amsterdam', ' Den Haag ', 'Köln', '😀'.repeat(255))),
          street: fc.oneof(oddText(10), fc.constant(null)),
          query: fc.constantFrom(undefined, 'fields[customer]=city,street', 'fields%5Bcustomer%5D=city,street'),
        }),
        async ({ city, street, query }) => {
          const raw = JSON.stringify({ data: { type: 'customer', id: '2', attributes: { city, street } } });
          const answer = (await core.router.handle(
            { method: 'PATCH', path: '/customers/2', query, body: raw },
            await core.account(),
          )) as Answer;
          checkAnswer(answer, raw);
          const stored = (await send(core, 'GET', '/customers/2')).body.data.attributes;
          if (answer.status === 200) {
            // Accepted text is exactly the text sent, trimmed: valid Unicode, no control but tab and newline.
            expect(stored.city).toBe(city.trim() === '' ? null : city.trim());
            expect(answer.body.data.attributes.city).toBe(stored.city);
            for (const value of [stored.city, stored.street])
              if (value !== null) expect(value).not.toMatch(/[^\P{Cc}\t\n]/u);
          } else {
            expect(answer.status, JSON.stringify(answer.body)).toBe(400);
            expect(answer.body.errors.every((e: { title: string }) => e.title === 'Invalid Attribute')).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
