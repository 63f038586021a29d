// The invoice and invoice-line resources: request attributes (validation, flags, prompts, help).
// Money is integer cents from here on; a tax rate is integer hundredths of a percent (21.00% is 2100).
import { z } from 'zod';
import { amount, bool, integer, optionalBool, requiredText, type FieldMeta } from './common.js';
import { parseAmount } from './money.js';
import { dateInput, relatedId } from './subscription.js';

/** A unit amount's bound, either way: 1,000,000.00 euro. quantity x amount then stays far inside exact integers. */
export const LINE_AMOUNT_MAX = 100_000_000;
export const QUANTITY_MAX = 1_000_000;

/** A percentage 0 to 100 with at most two decimals, as hundredths of a percent. */
const taxRate = () =>
  z.unknown().transform((value, ctx) => {
    const hundredths = parseAmount(value);
    if (hundredths === null || hundredths < 0 || hundredths > 10_000) {
      ctx.addIssue({
        code: 'custom',
        message:
          value === undefined
            ? 'is required'
            : 'must be a percentage from 0 to 100 with at most two decimals, for example 21 or 9.5',
      });
      return z.NEVER;
    }
    return hundredths;
  });

const related = (meta: Omit<FieldMeta, 'kind' | 'related'>) =>
  integer(1)
    .nullable()
    .optional()
    .meta({ kind: 'id', ...meta });

/** What PATCH /invoices/{id} may change on a draft (and POST set). */
const invoiceChangeable = {
  invoice_date: dateInput({
    description: 'The invoice’s date, on or before today; a draft is finalised when this day has ended',
    example: '2026-12-01',
  }),
  transaction_date: dateInput({
    description:
      'When the payment is collected after finalising, on or after the invoice date (default: the invoice date)',
    example: '2026-12-10',
  }),
  original_invoice_id: related({
    description: 'The invoice this one relates to (a credit invoice’s original)',
    example: '42',
  }),
  send_email: optionalBool({
    description: 'Email the invoice to the customer on finalising',
    default: 'the plan’s send_invoice',
  }),
};

export const invoiceCreateShape = {
  subscription_id: relatedId({
    description: 'Subscription the invoice belongs to',
    related: {
      path: '/subscriptions',
      noun: 'subscription',
      make: 'make one with `billing subscriptions create`',
      include: 'customer',
    },
  }),
  ...invoiceChangeable,
};
export const invoiceUpdateShape = invoiceChangeable;
export const invoiceCreateSchema = z.strictObject(invoiceCreateShape);
export const invoiceUpdateSchema = z.strictObject(invoiceUpdateShape);
export type InvoiceCreate = z.output<typeof invoiceCreateSchema>;
export type InvoiceUpdate = z.output<typeof invoiceUpdateSchema>;

/**
 * POST /invoices/{id}/credit's optional body: the lines to credit (`line_id`, a line of the
 * invoice), each with how many of its quantity (default: all that is not credited yet). Without
 * it, every line is credited with all that is left of it.
 */
export const invoiceCreditSchema = z.strictObject({
  lines: z
    .array(
      z.strictObject({
        line_id: integer(1),
        quantity: integer(1, QUANTITY_MAX).optional(),
      }),
      { error: 'must be a list of {"line_id": n, "quantity": n} objects' },
    )
    .min(1, 'must name at least one line')
    .max(1000, 'must name at most 1000 lines')
    .optional(),
});

/** PATCH /invoices/{id}/refunded's optional body: the day a credit was paid back (default today). */
export const invoiceRefundedSchema = z.strictObject({
  refunded_on: dateInput({ description: 'The day the money went back to the customer', example: '2026-12-01' }),
});

export const INVOICE_READ_ONLY_ON_CREATE = [
  'status',
  'reference',
  'amount_excl',
  'amount_incl',
  'tax_amount',
  'tax_rates',
  'hosted_invoice_url',
  'refunded_on',
  'created_at',
  'updated_at',
] as const;
export const INVOICE_READ_ONLY_ON_UPDATE = ['subscription_id', ...INVOICE_READ_ONLY_ON_CREATE] as const;

// ---- lines ----

const description = requiredText({
  description: 'What the line is for, as the customer reads it',
  example: 'Lunchbox',
});
const lineAmount = amount({ min: -LINE_AMOUNT_MAX, max: LINE_AMOUNT_MAX }).meta({
  kind: 'amount',
  description: 'Amount per unit in euro, at most two decimals; negative for a discount',
  example: '10.00',
});
const lineRate = taxRate().meta({
  kind: 'percent',
  description: 'Tax rate in percent, 0 to 100, at most two decimals',
  example: '21',
});
const taxIncluded = bool().meta({ kind: 'boolean', description: 'The amount already holds the tax', default: 'false' });
const quantity = integer(1, QUANTITY_MAX).meta({
  kind: 'integer',
  description: 'How many units',
  example: '2',
  default: '1',
});

export const lineCreateShape = {
  invoice_id: relatedId({
    description: 'Invoice (a draft)',
    // Only a draft takes lines.
    related: {
      path: '/invoices',
      noun: 'draft invoice',
      filter: { status: 'draft' },
      make: 'make one with `billing invoices create`',
      include: 'customer',
    },
  }),
  description,
  amount: lineAmount,
  tax_rate: lineRate,
  tax_included: taxIncluded.optional(),
  quantity: quantity.optional(),
};
export const lineUpdateShape = {
  description: description.optional(),
  amount: lineAmount.optional(),
  tax_rate: lineRate.optional(),
  tax_included: taxIncluded.optional(),
  quantity: quantity.optional(),
};
export const lineCreateSchema = z.strictObject(lineCreateShape);
export const lineUpdateSchema = z.strictObject(lineUpdateShape);
export type LineCreate = z.output<typeof lineCreateSchema>;
export type LineUpdate = z.output<typeof lineUpdateSchema>;

export const LINE_READ_ONLY_ON_CREATE = [
  'amount_excl',
  'amount_incl',
  'tax_amount',
  'created_at',
  'updated_at',
] as const;
export const LINE_READ_ONLY_ON_UPDATE = ['invoice_id', ...LINE_READ_ONLY_ON_CREATE] as const;
