// The customer resource: request attributes (validation, flags, prompts, help) and output fields.
import { isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { optionalBool, optionalEnum, optionalText, requiredText } from './common.js';
import { COUNTRY_CODES } from './countries.js';
import { GENDERS, LANGUAGES } from './vocabulary.js';

// A practical RFC 5322 check: dot-atom local part, and a domain of LDH labels with a dot in it.
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
export function isEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at < 1 || at > 64) return false;
  const labels = value.slice(at + 1).split('.');
  return (
    LOCAL.test(value.slice(0, at)) &&
    labels.length >= 2 &&
    labels.every((l) => LABEL.test(l)) &&
    /[A-Za-z]/.test(labels[labels.length - 1])
  );
}

const email = requiredText({ description: 'Email address', example: 'jan@example.com' }).refine(
  isEmail,
  'must be a valid email address',
);

const iban = z
  .string({ error: 'must be a string or null' })
  .transform((value) => value.replace(/\s+/g, '').toUpperCase())
  .refine((value) => value === '' || isValidIBAN(value), 'must be a valid IBAN (country length and check digits)')
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional()
  .meta({
    kind: 'string',
    description: 'IBAN of the account to debit',
    example: 'NL91ABNA0417164300',
    offered: true,
  });

const country = z
  .string({ error: 'must be a string or null' })
  .trim()
  .transform((value) => value.toUpperCase())
  .refine(
    (value) => value === '' || COUNTRY_CODES.has(value),
    'must be an ISO 3166-1 alpha-2 country code, for example NL',
  )
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional()
  .meta({ kind: 'string', description: 'Country (ISO 3166-1 alpha-2)', example: 'NL' });

/** Attributes a client may send on create, in the order the help lists them. */
export const customerCreateShape = {
  first_name: requiredText({ description: 'First name', example: 'Jan' }),
  last_name: requiredText({ description: 'Last name', example: 'Jansen' }),
  email,
  gender: optionalEnum(GENDERS, { description: 'Gender, for the salutation' }).nullable(),
  middle_name: optionalText({ description: 'Middle name', example: 'van' }),
  company_name: optionalText({ description: 'Company name' }),
  vat_number: optionalText({ description: 'VAT number of the company' }),
  bank_holder: optionalText({
    description: 'Account holder name (needed with --iban)',
    example: 'J. Jansen',
    after: 'iban',
  }),
  iban,
  postalcode: optionalText({ description: 'Postal code', example: '1016EE' }),
  house_number: optionalText({ description: 'House number', example: '313' }),
  house_number_add: optionalText({ description: 'House number addition' }),
  street: optionalText({ description: 'Street', example: 'Keizersgracht' }),
  city: optionalText({ description: 'City', example: 'Amsterdam' }),
  country_iso2: country,
  language: optionalEnum(LANGUAGES, { description: 'Language of notifications', default: 'nl' }),
  telephone: optionalText({ description: 'Telephone number', example: '+31201234567' }),
};

export const customerCreateSchema = z.strictObject(customerCreateShape);
export const customerUpdateSchema = z
  .strictObject(customerCreateShape)
  .partial()
  .extend({ archived: optionalBool({ description: 'Archive (true) or unarchive (false) the customer' }) });

export type CustomerCreate = z.output<typeof customerCreateSchema>;
export type CustomerUpdate = z.output<typeof customerUpdateSchema>;

export const CUSTOMER_READ_ONLY_ON_CREATE = [
  'payment_method',
  'bank_verification_method',
  'card_holder',
  'card_number',
  'archived',
  'created_at',
  'updated_at',
] as const;
export const CUSTOMER_READ_ONLY_ON_UPDATE = CUSTOMER_READ_ONLY_ON_CREATE.filter((name) => name !== 'archived');
