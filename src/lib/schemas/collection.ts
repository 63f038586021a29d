// The collection batch resource (SEPA): request attributes (validation, flags, help).
import { z } from 'zod';
import { dateInput } from './subscription.js';
import { ATTRIBUTES } from './vocabulary.js';

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

/** Every attribute a batch answers but the status, which only the batch's own rules set. */
export const COLLECTION_READ_ONLY = ATTRIBUTES.collection.filter((name) => name !== 'status');
