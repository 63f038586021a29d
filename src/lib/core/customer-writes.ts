// Creating and changing customers: every rule checked first, then one write transaction.
import {
  CUSTOMER_READ_ONLY_ON_CREATE,
  CUSTOMER_READ_ONLY_ON_UPDATE,
  customerCreateSchema,
  customerUpdateSchema,
} from '../schemas/customer.js';
import type { Insertable } from 'kysely';
import type { z } from 'zod';
import { validateAttributes } from '../schemas/common.js';
import type { CustomerRow } from '../store/schema.js';
import { customerSearchText } from '../store/search-text.js';
import type { MaybePromise } from '../store/unit.js';
import { andThen, run } from '../store/unit.js';
import { nowIso, transactLocked, type CoreContext } from './context.js';
import { findCustomerWithSubscriptionIds, lockCustomer, type Customer } from './customers.js';
import { invalidAttributes, notFound, ok, type Result } from './result.js';
import { formatInstant, parseDateInput } from './time.js';

/** How the iban attribute is stored: uppercase, without spaces (as the schema makes it). */
const normaliseIban = (text: string): string => text.replace(/\s+/g, '').toUpperCase();

/**
 * Whether a read-only attribute of a PATCH carries the value the customer has, as a GET shows it:
 * a client that saves by sending back what it read. Instants compare as instants, to the second
 * (as shown), in any offset; everything else exactly.
 */
function isCurrentValue(customer: Customer, name: string, given: unknown, timeZone: string): boolean {
  switch (name) {
    case 'created_at':
    case 'updated_at': {
      if (typeof given !== 'string') return false;
      const shown = formatInstant(customer[name], timeZone);
      if (given === shown) return true;
      const instant = parseDateInput(given.trim(), timeZone);
      return instant !== null && formatInstant(instant, timeZone) === shown;
    }
    case 'payment_method':
    case 'bank_verification_method':
    case 'card_holder':
    case 'card_number':
      return given === customer[name];
    default:
      return false;
  }
}

/** A customer as the answer to a write shows it: with the ids of its subscriptions. */
export interface CustomerWithSubscriptions {
  customer: Customer;
  subscriptionIds: number[];
}

export function createCustomer(
  ctx: CoreContext,
  attributes: Record<string, unknown>,
): MaybePromise<Result<CustomerWithSubscriptions>> {
  const checked = checkCustomer(attributes);
  if (!checked.ok) return checked;
  const row = customerRow(ctx.account.id, checked.value, nowIso(ctx));
  // One statement that depends on nothing read before it: its own transaction, one round trip.
  const inserted = ctx.store.writeOne((q) => q.insertInto('customers').values(row).returningAll());
  return andThen(inserted, (customer) => ok({ customer: customer!, subscriptionIds: [] }));
}

export type CustomerInput = z.output<typeof customerCreateSchema>;

/** The create rules of a customer: a customer needs nothing from the store to be accepted. */
export function checkCustomer(attributes: Record<string, unknown>): Result<CustomerInput> {
  const { value, problems } = validateAttributes(customerCreateSchema, attributes, {
    readOnly: CUSTOMER_READ_ONLY_ON_CREATE,
  });
  return problems.length ? invalidAttributes(problems) : ok(value);
}

/** The row a checked customer is stored as (a create, or one of an import's many). */
export function customerRow(accountId: number, value: CustomerInput, now: string): Insertable<CustomerRow> {
  return {
    account_id: accountId,
    first_name: value.first_name,
    last_name: value.last_name,
    email: value.email,
    gender: value.gender ?? null,
    middle_name: value.middle_name ?? null,
    company_name: value.company_name ?? null,
    vat_number: value.vat_number ?? null,
    bank_holder: value.bank_holder ?? null,
    iban: value.iban ?? null,
    // A manually entered IBAN is not a verified first payment: the card fields stay empty.
    payment_method: 'directdebit',
    bank_verification_method: null,
    card_holder: null,
    card_number: null,
    postalcode: value.postalcode ?? null,
    house_number: value.house_number ?? null,
    house_number_add: value.house_number_add ?? null,
    street: value.street ?? null,
    city: value.city ?? null,
    country_iso2: value.country_iso2 ?? null,
    language: value.language ?? 'nl',
    telephone: value.telephone ?? null,
    search_text: customerSearchText(value),
    archived: 0,
    created_at: now,
    updated_at: now,
  };
}

/**
 * READ COMMITTED (transactLocked): every rule is about the customer row itself, locked first, so
 * concurrent changes of it queue and each sees the one before, where SERIALIZABLE failed changes of
 * different customers for sharing an index page.
 */
export function updateCustomer(
  ctx: CoreContext,
  id: number,
  attributes: Record<string, unknown>,
): MaybePromise<Result<CustomerWithSubscriptions>> {
  const { store } = ctx;
  return transactLocked(store, function* () {
    const customer = yield* lockCustomer(ctx, id);
    if (!customer) return notFound(`no customer with id ${id}`);
    const tz = ctx.account.time_zone;
    const { value, problems } = validateAttributes(customerUpdateSchema, attributes, {
      readOnly: CUSTOMER_READ_ONLY_ON_UPDATE,
      unchanged: (name, given) => isCurrentValue(customer, name, given, tz),
    });
    // PATCH rules 1 and 2 of the reference: a new IBAN needs direct debit and a holder name. The
    // IBAN the customer has, sent back as it was read, is not a new one.
    if (
      typeof attributes.iban === 'string' &&
      attributes.iban.trim() !== '' &&
      normaliseIban(attributes.iban) !== customer.iban
    ) {
      if (customer.payment_method !== 'directdebit') {
        problems.push({
          attribute: 'iban',
          detail: `can be changed only for a customer paying by direct debit (this one pays by ${customer.payment_method})`,
        });
      }
      if (attributes.bank_holder === undefined && !problems.some((p) => p.attribute === 'bank_holder')) {
        problems.push({ attribute: 'bank_holder', detail: 'is required when iban is given' });
      }
    }
    if (problems.length) return invalidAttributes(problems);
    const { archived, ...rest } = value;
    const searchText = customerSearchText({ ...customer, ...rest });
    yield* run((q) =>
      q
        .updateTable('customers')
        .set({
          ...rest,
          ...(archived === undefined ? {} : { archived: archived ? 1 : 0 }),
          ...(searchText === customer.search_text ? {} : { search_text: searchText }),
          updated_at: nowIso(ctx),
        })
        .where('id', '=', id),
    );
    // A new account to debit answers a bank's refusal of the old one (AC04 account closed): the mandates may collect again.
    if (value.iban !== undefined && value.iban !== customer.iban) {
      yield* run((q) =>
        q
          .updateTable('subscriptions')
          .set({ mandate_attention: null, mandate_attention_on: null })
          .where('customer_id', '=', id)
          .where('mandate_attention', 'is not', null),
      );
    }
    return ok((yield* findCustomerWithSubscriptionIds(ctx, id))!);
  });
}
