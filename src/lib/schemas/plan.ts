// The subscription plan: read-only over the API; made by an operator with `billing plans create`.
import { z } from 'zod';
import { amount, integer, optionalBool, optionalEnum, optionalText, requiredText } from './common.js';
import { MONEY_MAX } from './money.js';
import { FREQUENCIES, MANDATE_METHODS, PLAN_STATUSES } from './vocabulary.js';

export const planCreateShape = {
  name: requiredText({
    description: 'Plan name (also the default transaction description)',
    example: 'Monthly membership',
  }),
  amount: amount({ min: 1, max: MONEY_MAX }).meta({
    kind: 'amount',
    description: 'Amount per period in euro',
    example: '12.50',
  }),
  frequency: optionalEnum(FREQUENCIES, { description: 'How often the amount is collected', default: 'monthly' }),
  description: optionalText({ description: 'Description', example: 'Access to all clubs' }),
  start_date: z.string({ error: 'must be a date' }).optional().meta({
    kind: 'date',
    description: 'First day subscriptions can be collected (default: today)',
    example: '2026-12-01',
  }),
  status: optionalEnum(PLAN_STATUSES, { description: 'Only active plans take new subscriptions', default: 'active' }),
  mandate_authentication_method: optionalEnum(MANDATE_METHODS, {
    description: 'How customers accept the mandate',
    default: 'email',
  }),
  send_invoice: optionalBool({ description: 'Email invoices by default', default: 'true' }),
  storno_retries: integer(0, 10)
    .optional()
    .meta({ kind: 'integer', description: 'Retries of a returned transaction (0 to 10)', default: '2' }),
  terms: optionalText({ description: 'Terms shown to the customer' }, 10_000),
};

export const planCreateSchema = z.strictObject(planCreateShape);

/**
 * What `plans update` changes. The frequency, start date, mandate method and storno retries stay as
 * made: the subscriptions' cycles, mandates and retries were agreed under them (a new plan instead).
 */
export const planUpdateShape = {
  name: planCreateShape.name.optional(),
  description: planCreateShape.description,
  amount: planCreateShape.amount.optional(),
  terms: planCreateShape.terms,
  send_invoice: planCreateShape.send_invoice,
  status: planCreateShape.status,
  archived: optionalBool({ description: 'Archived: takes no new subscriptions; its subscriptions go on' }),
};

export const planUpdateSchema = z.strictObject(planUpdateShape);
/** The plan's attributes a change keeps as they were made. */
export const PLAN_FIXED = ['frequency', 'start_date', 'mandate_authentication_method', 'storno_retries'] as const;
export type PlanCreate = z.output<typeof planCreateSchema>;
