// Property: whatever bad customer document is thrown at POST /customers or PATCH /customers/1, the
// answer is a 400 naming each problem, or a 409 for another type or id (never a 500, never a
// throw), and the store is unchanged. (hostile.test.ts throws wilder input at every route.)
import fc from 'fast-check';
import { isValidIBAN } from 'ibantools';
import { describe, expect, it } from 'vitest';
import { testCore } from '../helpers/store.js';
import { VALID_IBAN, createCustomer, customerRows, minimalCustomer, send, type Answer } from './support.js';

const TEXT = [
  'middle_name',
  'company_name',
  'vat_number',
  'bank_holder',
  'postalcode',
  'house_number',
  'house_number_add',
  'street',
  'city',
  'telephone',
] as const;
const REQUIRED = ['first_name', 'last_name', 'email'] as const;
const KNOWN = new Set<string>([...REQUIRED, ...TEXT, 'gender', 'iban', 'country_iso2', 'language', 'archived']);
const READ_ONLY = [
  'payment_method',
  'bank_verification_method',
  'card_holder',
  'card_number',
  'created_at',
  'updated_at',
] as const;

/** A string longer than 255 characters even after trimming. */
const overlong = fc
  .integer({ min: 256, max: 400 })
  .chain((n) => fc.constantFrom('x', 'é', '名', '😀').map((c) => c.repeat(n)));
/** Values that are not strings (null is handled per attribute: it clears optional ones). */
const notAString = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
);

/** A bad value for one attribute, valid on neither POST nor PATCH. */
const badValue: Record<string, fc.Arbitrary<unknown>> = {
  first_name: fc.oneof(fc.constant(null), fc.constant(''), fc.constant('   '), notAString, overlong),
  last_name: fc.oneof(fc.constant(null), fc.constant(''), notAString, overlong),
  email: fc.oneof(
    fc.constantFrom(
      null,
      '',
      'jan',
      'jan@',
      '@example.com',
      'jan@example',
      'jan@@example.com',
      'jan @example.com',
      'jan@exa mple.com',
      'jan@.com',
      'jan@example..com',
      'jan@-example.com',
      'jan@123.456',
    ),
    fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !s.includes('@')),
    notAString,
    overlong.map((s) => `${s}@example.com`),
  ),
  gender: fc.oneof(fc.constantFrom('M', 'F', 'x', '', 'male'), fc.integer(), fc.boolean()),
  language: fc.oneof(fc.constantFrom(null, '', 'es', 'NL', 'en-GB', 'nl_be', 'dutch'), fc.integer()),
  country_iso2: fc.oneof(fc.constantFrom('XX', 'UK', 'EU', 'NLD', 'N', '12', 'ZZ'), notAString),
  iban: fc.oneof(
    fc.constantFrom(
      'NL92ABNA0417164300',
      'NL91ABNA041716430',
      'XX91ABNA0417164300',
      'NL91 ABNA 0417 1643 01',
      'banana',
    ),
    fc.string({ minLength: 1, maxLength: 40 }).filter((s) => {
      const normalised = s.replace(/\s+/g, '').toUpperCase();
      return normalised !== '' && !isValidIBAN(normalised);
    }),
    notAString,
  ),
  archived: fc.oneof(
    fc.constantFrom(null, 'yes', 'no', 'TRUE', '1', '', 0, 1),
    fc.array(fc.boolean(), { maxLength: 1 }),
  ),
  ...Object.fromEntries(TEXT.map((name) => [name, fc.oneof(notAString, overlong)])),
};

/** Names no customer has, including ones that trip up naive object handling. */
const unknownName = fc
  .oneof(
    fc.constantFrom(
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'id',
      'type',
      'attributes',
      'a/b',
      '~0',
      '',
      ' first_name',
      'First_Name',
      'subscriptions',
    ),
    fc.string({ minLength: 1, maxLength: 12 }),
  )
  .filter((name) => !KNOWN.has(name) && !(READ_ONLY as readonly string[]).includes(name));

/** Any JSON value, for unknown and read-only attributes. */
const anyValue = fc.jsonValue({ maxDepth: 2 });
/** A value no read-only attribute of customer 1 has (payment_method is directdebit, the card fields null). */
const notCurrent = anyValue.filter((v) => v !== null && v !== 'directdebit');

const pointerOf = (name: string) => `/data/attributes/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

interface Case {
  /** The raw body sent. */
  raw: string;
  /** A document that names another type or id: 409 Conflict rather than 400. */
  conflict?: boolean;
  /** Pointers that must be among the errors; empty for document-level cases. */
  mustReport: string[];
  /** For attribute cases: the exact set of pointers expected (undefined when only "at least"). */
  exactly?: string[];
}

/** Attributes mixing good values, bad values, unknown and read-only names; at least one problem. */
function attributeCase(forPatch: boolean): fc.Arbitrary<Case> {
  const good = fc.record(
    {
      ...Object.fromEntries(Object.entries(minimalCustomer(9)).map(([k, v]) => [k, fc.constant(v)])),
      gender: fc.constantFrom('m', 'f', null),
      language: fc.constantFrom('nl', 'en', 'nl-be', 'de', 'fr'),
      country_iso2: fc.constantFrom('NL', 'be', ' de '),
      city: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: [] },
  );
  const badNames = fc.subarray(Object.keys(badValue), { minLength: 0, maxLength: 5 });
  return fc
    .tuple(
      good,
      badNames.chain((names) => fc.tuple(...names.map((n) => badValue[n].map((v) => [n, v] as const)))),
      fc.uniqueArray(fc.tuple(unknownName, anyValue), { maxLength: 3, selector: ([n]) => n }),
      // Each with a value the customer does not have (on PATCH, the current value is accepted and ignored).
      fc
        .subarray([...READ_ONLY], { maxLength: 2 })
        .chain((names) => fc.tuple(...names.map((n) => notCurrent.map((v) => [n, v] as const)))),
    )
    .filter(([, bad, unknown, readOnly]) => bad.length + unknown.length + readOnly.length > 0 || !forPatch)
    .map(([goodAttributes, bad, unknown, readOnly]) => {
      const attributes: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(goodAttributes)) attributes[k] = v;
      for (const [k, v] of bad) attributes[k] = v;
      // defineProperty, so `__proto__` becomes an own key, as JSON.parse makes it on the server.
      for (const [k, v] of [...unknown, ...readOnly])
        Object.defineProperty(attributes, k, { value: v, enumerable: true, writable: true, configurable: true });
      const reported = new Set<string>([
        ...bad.map(([k]) => k),
        ...unknown.map(([k]) => k),
        ...readOnly.map(([k]) => k),
      ]);
      // On create, `archived` is read-only whatever its value; required ones left out are missing.
      if (!forPatch)
        for (const name of REQUIRED) if (!(name in goodAttributes) && !reported.has(name)) reported.add(name);
      // PATCH rule 2: a (non-empty) iban needs bank_holder in the same request, even when the iban is bad.
      if (
        forPatch &&
        typeof attributes.iban === 'string' &&
        attributes.iban.trim() !== '' &&
        attributes.bank_holder === undefined
      )
        reported.add('bank_holder');
      const body = { data: { type: 'customer', ...(forPatch ? { id: '1' } : {}), attributes } };
      const pointers = [...reported].map(pointerOf).sort();
      return { raw: JSON.stringify(body), mustReport: pointers, exactly: pointers };
    })
    .filter((c) => c.mustReport.length > 0);
}

/** Documents that are wrong as documents: not JSON, no data object, wrong type or id. */
function documentCase(forPatch: boolean): fc.Arbitrary<Case> {
  const attributes = fc.constant(minimalCustomer(9));
  return fc
    .oneof(
      fc.string({ maxLength: 40 }).filter((s) => {
        try {
          JSON.parse(s);
          return false;
        } catch {
          return true;
        }
      }),
      fc
        .jsonValue({ maxDepth: 2 })
        .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v) || !('data' in v))
        .map((v) => JSON.stringify(v)),
      fc
        .oneof(fc.constant(null), fc.string(), fc.integer(), fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }))
        .map((data) => JSON.stringify({ data })),
      fc
        .oneof(fc.constant(null), fc.string({ maxLength: 5 }), fc.integer(), fc.array(fc.integer(), { maxLength: 2 }))
        .map((a) => JSON.stringify({ data: { type: 'customer', ...(forPatch ? { id: '1' } : {}), attributes: a } })),
      // No type, or one that is not a string: not a resource object.
      fc
        .tuple(fc.constantFrom(undefined, null, 1, true, ['customer']), attributes)
        .map(([type, a]) => JSON.stringify({ data: { type, ...(forPatch ? { id: '1' } : {}), attributes: a } })),
      ...(forPatch
        ? [
            fc
              .constantFrom(undefined, null, true, {}, ['1'])
              .map((id) => JSON.stringify({ data: { type: 'customer', id, attributes: {} } })),
          ]
        : []),
    )
    .map((raw): Case => ({ raw, mustReport: [] }));
}

/** Documents of another type, or (PATCH) of another id than the path's: 409 Conflict, nothing written. */
function conflictCase(forPatch: boolean): fc.Arbitrary<Case> {
  const attributes = fc.constant(minimalCustomer(9));
  return fc
    .oneof(
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom('customers', 'Customer', 'subscription', '', 'customer ', 'constructor'),
            fc.string({ maxLength: 8 }).filter((t) => t !== 'customer'),
          ),
          attributes,
        )
        .map(([type, a]) => JSON.stringify({ data: { type, ...(forPatch ? { id: '1' } : {}), attributes: a } })),
      ...(forPatch
        ? [
            fc
              .oneof(
                fc.constantFrom('2', '01', '1 ', '', 'one', '1.0', 1.5, Number.MAX_SAFE_INTEGER + 1),
                fc.integer({ min: 2 }),
              )
              .map((id) => JSON.stringify({ data: { type: 'customer', id, attributes: {} } })),
          ]
        : []),
    )
    .map((raw) => ({ raw, mustReport: [], conflict: true }));
}

function check(answer: Answer, c: Case): void {
  if (c.conflict) {
    expect(answer.status, `${c.raw} -> ${JSON.stringify(answer.body)}`).toBe(409);
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors[0]).toMatchObject({
      status: '409',
      title: 'Conflict',
      source: { pointer: expect.stringMatching(/^\/data\/(type|id)$/) },
    });
    expect(answer.body.meta).toBeUndefined();
    return;
  }
  expect(answer.status, `${c.raw} -> ${JSON.stringify(answer.body)}`).toBe(400);
  expect(answer.headers['content-type']).toBe('application/vnd.api+json');
  const errors = answer.body.errors as {
    status: string;
    title: string;
    detail: string;
    source?: { pointer?: string; parameter?: string };
  }[];
  expect(errors.length).toBeGreaterThan(0);
  for (const error of errors) {
    expect(error.status).toBe('400');
    expect(['Invalid Attribute', 'Invalid Document']).toContain(error.title);
    expect(typeof error.detail).toBe('string');
    const where = error.source?.pointer ?? error.source?.parameter;
    expect(typeof where, JSON.stringify(error)).toBe('string');
    if (error.source?.pointer !== undefined) expect(error.source.pointer).toMatch(/^\/data(\/|$)/);
  }
  // An empty body is no body (null); a body that is not JSON is echoed as sent.
  let original: unknown = c.raw.trim() === '' ? null : c.raw;
  try {
    original = JSON.parse(c.raw);
  } catch {
    // kept as above
  }
  expect(answer.body.meta).toEqual({ original });
  const reported = errors.map((e) => e.source?.pointer).sort();
  if (c.exactly) expect(reported).toEqual(c.exactly);
  else expect(errors.every((e) => e.title === 'Invalid Document')).toBe(true);
}

describe('bad customer documents', () => {
  const arrange = async () => {
    const core = await testCore();
    await createCustomer(core, { ...minimalCustomer(1), iban: VALID_IBAN, bank_holder: 'F. Last', city: 'Amsterdam' });
    return core;
  };

  it('when POSTed, each is refused with a 400 naming every problem, and nothing is written', async () => {
    const core = await arrange();
    const before = await customerRows(core);
    await fc.assert(
      fc.asyncProperty(fc.oneof(attributeCase(false), documentCase(false), conflictCase(false)), async (c) => {
        check(await send(core, 'POST', '/customers', { body: c.raw }), c);
        expect(await customerRows(core)).toEqual(before);
      }),
      { numRuns: 200 },
    );
  });

  it('when PATCHed onto customer 1, each is refused with a 400 naming every problem, and the customer is unchanged', async () => {
    const core = await arrange();
    const before = await customerRows(core);
    await fc.assert(
      fc.asyncProperty(fc.oneof(attributeCase(true), documentCase(true), conflictCase(true)), async (c) => {
        check(await send(core, 'PATCH', '/customers/1', { body: c.raw }), c);
        expect(await customerRows(core)).toEqual(before);
      }),
      { numRuns: 200 },
    );
  });
});
