// The collection batch resource (SEPA): request attributes (validation, flags, help).
import { z } from 'zod';
import { dateInput } from './subscription.js';

export const collectionCreateShape = {
  until: dateInput({
    description: 'take the transactions due on or before this day (default: the next TARGET2 business day)',
    example: '2026-12-01',
  }),
};
export const collectionCreateSchema = z.strictObject(collectionCreateShape);

/** The one change a batch takes: cancelled, before its export. */
export const collectionUpdateShape = {
  status: z.literal('cancelled', { error: 'can only be cancelled (before the batch is exported)' }).meta({
    kind: 'enum',
    description: 'cancelled: the batch is dropped and its transactions are free again',
    choices: ['cancelled'],
  }),
};
export const collectionUpdateSchema = z.strictObject(collectionUpdateShape);

export const COLLECTION_READ_ONLY = [
  'message_id',
  'due_until',
  'transactions',
  'control_sum',
  'blocks',
  'outcomes',
  'creditor',
  'exported_at',
  'cancelled_at',
  'created_at',
  'updated_at',
] as const;
