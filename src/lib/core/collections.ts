// Collection batches (SEPA): what is due is put into a batch, one pain.008 file's worth, exported,
// and settled by the bank's reports (bank-reports.ts).
//
// A batch freezes its file when it is made: every debit (amount, mandate, debtor, sequence type,
// amendment, collection date) as it was then, in collection_items; the creditor at the first
// export. So the same batch always exports the same bytes, whatever changes later. A transaction's
// attempt is in at most one batch that is not cancelled: its item is the one record of it (read
// with the transaction as its collection_id, ledger.ts batchOf), and a unique index on the items
// (collection_items_once) guards it.
import { isValidCreditorId } from '../sepa/creditor.js';
import type { BankReportRow, CollectionRow } from '../store/schema.js';
import { all, get, type Unit } from '../store/unit.js';
import type { Account, CoreContext } from './context.js';
import type { Txn } from './ledger.js';
import { pageOf, type PageOf, type PageRequest } from './paging.js';
import { notFound, ok, type Result } from './result.js';
import { canMove, COLLECTION_TRANSITIONS, TransitionError, type CollectionStatus } from './transitions.js';

export type Collection = Omit<CollectionRow, 'id'> & { id: number };

/** One payment information block of a batch: a collection date and a sequence type. */
export interface Block {
  collection_date: string;
  sequence_type: string;
  count: number;
  control_sum_cents: number;
}

/** Items of a batch by what the bank said of them. */
export type Outcomes = Record<'pending' | 'booked' | 'rejected' | 'returned', number>;

/** A batch as the API shows it: the row, its blocks and where its items stand. */
export interface CollectionView {
  batch: Collection;
  blocks: Block[];
  outcomes: Outcomes;
}

/** A transaction due by the batch's day that was not put into it, and why. */
export interface LeftOut {
  transaction_id: string;
  subscription_id: number;
  due_date: string;
  amount_cents: number;
  reason: string;
}

export interface Made {
  /** The batch made, or null when nothing could go into one. */
  collection: CollectionView | null;
  /** The day (YYYY-MM-DD) it took what was due by. */
  until: string;
  leftOut: LeftOut[];
}

/** Months a mandate may go unused before it expires (EPC SDD Core rulebook). */
export const MANDATE_EXPIRY_MONTHS = 36;
/** Days ahead a collection may reach the debtor's bank at most (EPC SDD Core rulebook): how far `until` may look. */
export const MAX_DAYS_AHEAD = 14;
/** Transactions read, locked and batched per round of one batch's transaction: memory stays flat whatever the batch's size. */
export const CHUNK = 1_000;
/** Items collected from a batch that are in the bank's file and not cancelled. */
export const LIVE_STATES = ['pending', 'booked', 'returned'] as const;

/**
 * The account as it is now: its collection mode and creditor settings are read inside the unit that
 * acts on them, not taken from a context made earlier (a long-lived core caches its account).
 */
export function* currentAccount(ctx: CoreContext): Unit<Account> {
  return (yield* get((q) => q.selectFrom('accounts').selectAll().where('id', '=', ctx.account.id))) ?? ctx.account;
}

/** The creditor settings a SEPA export needs that the account lacks or has wrong, as words ("a creditor id"); empty when set up. */
export function missingCreditor(account: Pick<Account, 'creditor_id' | 'creditor_name' | 'creditor_iban'>): string[] {
  const missing: string[] = [];
  if (!account.creditor_id) missing.push('a creditor id (--creditor-id)');
  else if (!isValidCreditorId(account.creditor_id))
    missing.push(`a valid creditor id (${account.creditor_id} fails its check digits)`);
  if (!account.creditor_name) missing.push('a creditor name (--creditor-name)');
  if (!account.creditor_iban) missing.push('a creditor IBAN (--creditor-iban)');
  return missing;
}

/** The EndToEndId of an attempt: the transaction's UUID without hyphens, and the attempt (a re-presentation gets a new one). 34 characters at most. */
export const endToEndId = (tx: Pick<Txn, 'id' | 'attempt'>): string => `${tx.id.replace(/-/g, '')}-${tx.attempt}`;

/**
 * The subject of a block's `collection.presented` work: the batch, the block (its day and sequence
 * type), and the last item done, so the work goes on a page at a time.
 */
export const presentedSubject = (collectionId: number, day: string, sequence: string, after: number): string =>
  `${collectionId} ${day} ${sequence} ${after}`;

/**
 * The next `limit` first attempts of a block's transactions that its batch still holds (a cancelled
 * batch's items are cancelled: none), from its work's subject; and the subject of the work that goes
 * on after them, when there may be more.
 */
export function* presentedPage(subject: string, limit: number): Unit<{ transactions: string[]; rest?: string }> {
  const [id, day, sequence, after] = subject.split(' ');
  const rows = yield* all((q) =>
    q
      .selectFrom('collection_items')
      .select(['id', 'transaction_id'])
      .where('collection_id', '=', Number(id))
      .where('collection_date', '=', day)
      .where('sequence_type', '=', sequence)
      .where('id', '>', Number(after))
      .where('attempt', '=', 1)
      .where('cancelled_at', 'is', null)
      .orderBy('id')
      .limit(limit),
  );
  return {
    transactions: rows.map((row) => row.transaction_id),
    rest: rows.length === limit ? presentedSubject(Number(id), day, sequence, rows[rows.length - 1].id) : undefined,
  };
}

const END_TO_END = /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})-[1-9][0-9]{0,8}$/;

/**
 * The transaction an EndToEndId of endToEndId's names, undefined for one it cannot have written:
 * a report's entries are found through the index of each transaction's live item, so the items need
 * no index of their EndToEndIds of their own.
 */
export function transactionOf(endToEnd: string): string | undefined {
  const parts = END_TO_END.exec(endToEnd);
  return parts ? parts.slice(1, 6).join('-') : undefined;
}

// ---- reading ----

/**
 * The payment information blocks of a batch's file, in file order (collection date, then sequence
 * type): block n (from 1) is PmtInfId `<MsgId>-<n>`, which the bank's reports may name.
 */
export function* fileBlocks(batchId: number): Unit<Block[]> {
  const rows = yield* all((q) =>
    q
      .selectFrom('collection_items')
      .select((eb) => [
        'collection_date',
        'sequence_type',
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>('amount_cents').as('cents'),
      ])
      .where('collection_id', '=', batchId)
      .where('state', '<>', 'cancelled')
      .groupBy(['collection_date', 'sequence_type'])
      .orderBy('collection_date')
      .orderBy('sequence_type'),
  );
  return rows.map((row) => ({
    collection_date: row.collection_date,
    sequence_type: row.sequence_type,
    count: Number(row.n),
    control_sum_cents: Number(row.cents),
  }));
}

/** The PmtInfId of block `index` (from 0) of a batch's file. */
export const paymentInfoId = (messageId: string, index: number): string => `${messageId}-${index + 1}`;

const NO_OUTCOMES = (): Outcomes => ({ pending: 0, booked: 0, rejected: 0, returned: 0 });

/** The blocks and outcomes of some batches, in one query. */
function* summaries(ids: number[]): Unit<Map<number, { blocks: Block[]; outcomes: Outcomes }>> {
  const byBatch = new Map(ids.map((id) => [id, { blocks: [] as Block[], outcomes: NO_OUTCOMES() }]));
  if (ids.length === 0) return byBatch;
  const rows = yield* all((q) =>
    q
      .selectFrom('collection_items')
      .select((eb) => [
        'collection_id',
        'collection_date',
        'sequence_type',
        'state',
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>('amount_cents').as('cents'),
      ])
      .where('collection_id', 'in', ids)
      .groupBy(['collection_id', 'collection_date', 'sequence_type', 'state'])
      .orderBy('collection_id')
      .orderBy('collection_date')
      .orderBy('sequence_type'),
  );
  for (const row of rows) {
    const summary = byBatch.get(row.collection_id)!;
    const n = Number(row.n);
    const cents = Number(row.cents);
    // A cancelled batch keeps what its file would have held.
    const last = summary.blocks.at(-1);
    if (last && last.collection_date === row.collection_date && last.sequence_type === row.sequence_type) {
      last.count += n;
      last.control_sum_cents += cents;
    } else
      summary.blocks.push({
        collection_date: row.collection_date,
        sequence_type: row.sequence_type,
        count: n,
        control_sum_cents: cents,
      });
    if (Object.hasOwn(summary.outcomes, row.state)) summary.outcomes[row.state as keyof Outcomes] += n;
  }
  return byBatch;
}

export function* viewOf(ctx: CoreContext, id: number): Unit<CollectionView | undefined> {
  const batch = yield* get((q) =>
    q.selectFrom('collections').selectAll().where('id', '=', id).where('account_id', '=', ctx.account.id),
  );
  if (!batch) return undefined;
  const summary = (yield* summaries([id])).get(id)!;
  return { batch, ...summary };
}

export function* listCollections(ctx: CoreContext, page: PageRequest): Unit<PageOf<CollectionView>> {
  const found = yield* pageOf('collections', ctx.account.id, page);
  const byBatch = yield* summaries(found.rows.map((row) => row.id));
  return { ...found, rows: found.rows.map((batch) => ({ batch: batch, ...byBatch.get(batch.id)! })) };
}

// ---- changing ----

export function moveCollection(batch: Collection, to: CollectionStatus, at: string): void {
  if (!canMove(COLLECTION_TRANSITIONS, batch.status as CollectionStatus, to))
    throw new TransitionError(`collection ${batch.id} cannot go from ${batch.status} to ${to}`);
  batch.status = to;
  batch.updated_at = at;
}

// ---- bank reports applied (bank-reports.ts applies them) ----

export type BankReportRecord = Omit<BankReportRow, 'id'> & { id: number };

export function* getBankReport(ctx: CoreContext, id: number): Unit<Result<BankReportRecord>> {
  const row = yield* get((q) =>
    q.selectFrom('bank_reports').selectAll().where('id', '=', id).where('account_id', '=', ctx.account.id),
  );
  return row ? ok(row) : notFound(`no bank report with id ${id}`);
}

export function listBankReports(ctx: CoreContext, page: PageRequest): Unit<PageOf<BankReportRecord>> {
  return pageOf('bank_reports', ctx.account.id, page);
}
