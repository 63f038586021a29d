// Every status change of a subscription, a transaction, an invoice or a webhook delivery goes through
// these tables: nothing else assigns a status. A change the table does not list is refused (Invalid
// State for a request; a bug, thrown, for the core's own work). They sit together, apart from the
// rules that use them, so every lifecycle reads in one place.
import {
  OPEN_TRANSACTION_STATUSES,
  type InvoiceStatus,
  type SubscriptionStatus,
  type TransactionStatus,
} from '../schemas/vocabulary.js';
import type { WebhookDeliveryRow } from '../store/schema.js';

export const SUBSCRIPTION_TRANSITIONS: Readonly<Record<SubscriptionStatus, readonly SubscriptionStatus[]>> = {
  unverified: ['active', 'cancelled'],
  active: ['paused', 'cancelled'],
  paused: ['active', 'cancelled'],
  cancelled: [], // final
};

/**
 * queued (made) -> scheduled (accepted for its due date) -> succeeded (collected) -> fulfilled
 * (funds in, 3 days on). A return is charged_back (after collection) or failed (at it); a storno
 * retry makes it rescheduled, collected again on its new due date; with no retry left it ends
 * failed. canceled only before collection.
 */
export const TRANSACTION_TRANSITIONS: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = {
  queued: ['scheduled', 'canceled'],
  scheduled: ['succeeded', 'failed', 'canceled'],
  rescheduled: ['succeeded', 'failed', 'canceled'],
  succeeded: ['fulfilled', 'charged_back', 'failed'],
  fulfilled: ['charged_back'],
  charged_back: ['rescheduled', 'failed'],
  failed: ['rescheduled'],
  canceled: [],
};

/**
 * draft -> open when finalised with something to collect, completed when its total is zero or less.
 * An open invoice follows its transaction: paid (funds in), charged_back (failed after every retry),
 * cancelled (the transaction was canceled). `pay` marks open or charged_back invoices paid by hand;
 * a paid invoice whose funds are later charged back for good is charged_back. cancelled and
 * completed are final, and nothing ever goes back to draft.
 */
export const INVOICE_TRANSITIONS: Readonly<Record<InvoiceStatus, readonly InvoiceStatus[]>> = {
  draft: ['open', 'completed'],
  open: ['paid', 'charged_back', 'cancelled'],
  charged_back: ['paid'],
  paid: ['charged_back'],
  cancelled: [],
  completed: [],
};

export type DeliveryStatus = WebhookDeliveryRow['status'];

/**
 * pending (due, or being tried) -> delivered (a 2xx answer), or failed (none after the last attempt).
 * A success counts whatever the row became meanwhile (a sender whose claim lapsed still reached the
 * receiver): failed -> delivered. Retried by hand, a failed or delivered delivery is pending again.
 * An attempt that fails with attempts left, or is let go untried, rewrites a pending row: no change.
 */
export const DELIVERY_TRANSITIONS: Readonly<Record<DeliveryStatus, readonly DeliveryStatus[]>> = {
  pending: ['delivered', 'failed'],
  delivered: ['pending'],
  failed: ['pending', 'delivered'],
};

export type CollectionStatus = 'open' | 'exported' | 'cancelled';

/**
 * A collection batch: open (made) -> exported (its file given out, to be uploaded to the bank) or
 * cancelled (before that: its transactions are free again). An exported batch is never cancelled:
 * its file may be at the bank; the bank's reports settle it item by item.
 */
export const COLLECTION_TRANSITIONS: Readonly<Record<CollectionStatus, readonly CollectionStatus[]>> = {
  open: ['exported', 'cancelled'],
  exported: [],
  cancelled: [],
};

/** Not yet collected (the vocabulary's: the CLI refuses the others before asking to cancel one). */
export const OPEN_STATUSES = OPEN_TRANSACTION_STATUSES;

export const canMove = <S extends string>(table: Readonly<Record<S, readonly S[]>>, from: S, to: S): boolean =>
  Object.hasOwn(table, from) && table[from].includes(to);

/** The statuses a row may have when written with `to`: `to` itself (no change), and those the table moves to it. */
export const reaching = <S extends string>(table: Readonly<Record<S, readonly S[]>>, to: S): S[] =>
  (Object.keys(table) as S[]).filter((from) => from === to || canMove(table, from, to));

export class TransitionError extends Error {
  override name = 'TransitionError';
}
