// The subscription and transaction resources: request attributes (validation, flags, prompts, help).
import { z } from 'zod';
import { amount, integer, optionalBool, optionalEnum, optionalText, type FieldMeta } from './common.js';
import { MONEY_MAX } from './money.js';
import { DATE_MESSAGE, isDateInput } from './dates.js';
import { SUBSCRIPTION_STATUSES } from './vocabulary.js';

/** A date as the API takes it; the use case reads it in the account's time zone. Empty or null clears it. */
export const dateInput = (meta: Omit<FieldMeta, 'kind'>) =>
  z
    .string({ error: 'must be a date or null' })
    .trim()
    .refine((text) => text === '' || isDateInput(text), DATE_MESSAGE)
    .transform((text) => (text === '' ? null : text))
    .nullable()
    .optional()
    .meta({ kind: 'date', ...meta });

/** The id of a related resource, picked from a searchable list when prompted. */
export const relatedId = (meta: Omit<FieldMeta, 'kind'> & Required<Pick<FieldMeta, 'related'>>) =>
  integer(1).meta({ kind: 'id', ...meta });

// SEPA's character set for identifiers: Latin letters, digits, space and / - ? : ( ) . , ' +
const SEPA = /^[A-Za-z0-9/\-?:().,'+ ]*$/;
export const MANDATE_CODE_MAX = 35;
/** Generated codes are MNDT-<subscription id>: a code of that shape is never taken from a client. */
export const GENERATED_MANDATE_CODE = /^MNDT-\d+$/i;

const mandateCode = z
  .string({ error: 'must be a string' })
  .trim()
  .refine((code) => code.length <= MANDATE_CODE_MAX, `must be at most ${MANDATE_CODE_MAX} characters`)
  .refine((code) => SEPA.test(code), "may hold only letters A-Z, digits, spaces and / - ? : ( ) . , ' +")
  .refine((code) => !GENERATED_MANDATE_CODE.test(code), 'MNDT-<number> is kept for the codes the service generates')
  .transform((code) => (code === '' ? undefined : code))
  .optional()
  .meta({
    kind: 'string',
    description: 'Mandate code, unique in the account (default: MNDT-<subscription id>)',
    example: 'LID-2026-0042',
  });

/** An absolute http(s) URL, at most 2,048 characters; empty or null clears it. */
export function isHttpUrl(text: string): boolean {
  if (text.length > 2048 || /\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const url = (description: string) =>
  z
    .string({ error: 'must be a string or null' })
    .trim()
    .refine((text) => text === '' || isHttpUrl(text), 'must be an absolute http or https URL')
    .transform((text) => (text === '' ? null : text))
    .nullable()
    .optional()
    .meta({ kind: 'string', description, example: 'https://example.com/hooks/billing' });

export const METADATA_MAX_BYTES = 1024;

/** A string, object or array, as stored: its JSON at most 1,024 bytes (UTF-8). null clears it. */
const metadata = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value === null || value === undefined) return;
    if (typeof value !== 'string' && typeof value !== 'object') {
      ctx.addIssue({ code: 'custom', message: 'must be a string, a JSON object or a JSON array' });
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > METADATA_MAX_BYTES)
      ctx.addIssue({ code: 'custom', message: `must be at most ${METADATA_MAX_BYTES} bytes as JSON (it is ${bytes})` });
  })
  .optional()
  .meta({
    kind: 'string',
    description: 'Your own data: a string, JSON object or JSON array, at most 1,024 bytes as JSON',
  });

/** What PATCH may change (and POST set), in the order the help lists them. */
const changeable = {
  status: optionalEnum(SUBSCRIPTION_STATUSES, {
    description: 'Status; active schedules the plan’s transactions',
    default: 'unverified',
  }),
  mandate_accepted: optionalBool({
    description: 'The customer accepted the mandate by other means (needs --mandate-accepted-date)',
  }),
  mandate_accepted_date: dateInput({ description: 'When the mandate was accepted', example: '2026-12-01' }),
  start_date: dateInput({
    description: 'No transaction is scheduled before this day (default: today)',
    example: '2026-12-01',
  }),
  cancel_date: dateInput({ description: 'Cancel on this day (today cancels at once)', example: '2027-06-30' }),
  resume_date: dateInput({ description: 'A paused subscription resumes on this day', example: '2027-01-15' }),
  confirmation_sent: optionalBool({
    description: 'The mandate confirmation was already sent elsewhere: the service sends none',
  }),
  subscription_webhook_url: url('Called when the subscription’s status changes'),
  transaction_webhook_url: url('Called when a transaction’s status changes'),
  success_redirect_url: url('Where the customer goes after accepting the mandate'),
  metadata,
};

export const subscriptionCreateShape = {
  customer_id: relatedId({
    description: 'Customer',
    // An archived customer is one support has put away: not offered for new business.
    related: {
      path: '/customers',
      noun: 'active customer',
      filter: { archived: 'false' },
      make: 'make one with `billing customers create`',
    },
  }),
  subscription_plan_id: relatedId({
    description: 'Subscription plan',
    // The service refuses an inactive or archived plan.
    related: {
      path: '/subscription-plans',
      noun: 'active plan',
      filter: { status: 'active', archived: 'false' },
      make: 'make one with `billing plans create`',
    },
  }),
  mandate_code: mandateCode,
  ...changeable,
};

export const subscriptionCreateSchema = z.strictObject(subscriptionCreateShape);
export const subscriptionUpdateSchema = z.strictObject(changeable);
export const subscriptionUpdateShape = changeable;

export type SubscriptionCreate = z.output<typeof subscriptionCreateSchema>;
export type SubscriptionUpdate = z.output<typeof subscriptionUpdateSchema>;

export const SUBSCRIPTION_READ_ONLY_ON_CREATE = ['confirmation_page', 'archived', 'created_at', 'updated_at'] as const;
/** On PATCH these may be sent only with the value they have (clients that send back what they read). */
export const SUBSCRIPTION_READ_ONLY_ON_UPDATE = [
  'mandate_code',
  'customer_id',
  'subscription_plan_id',
  ...SUBSCRIPTION_READ_ONLY_ON_CREATE,
] as const;

// ---- transactions ----

export const transactionCreateShape = {
  subscription_id: relatedId({
    description: 'Subscription',
    // The service collects only under an active subscription.
    related: {
      path: '/subscriptions',
      noun: 'active subscription',
      filter: { status: 'active' },
      make: 'activate one with `billing subscriptions activate ID`',
      include: 'customer',
    },
  }),
  amount: amount({ min: 1, max: MONEY_MAX }).meta({ kind: 'amount', description: 'Amount in euro', example: '12.50' }),
  due_date: dateInput({ description: 'Day of collection (default: today)', example: '2026-12-01' }),
  description: optionalText({
    description: "On the customer's statement (default: the plan's name; cut to 140 characters, 22 for cards)",
  }),
};

export const transactionCreateSchema = z.strictObject(transactionCreateShape);
export type TransactionCreate = z.output<typeof transactionCreateSchema>;
export const TRANSACTION_READ_ONLY = [
  'status',
  'scheduled_on',
  'canceled_on',
  'webhook_url',
  'payment_method',
  'history',
] as const;
