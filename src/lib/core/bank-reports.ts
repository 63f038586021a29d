// The bank's reports read back (camt.054, camt.053, pain.002): each entry is matched to the
// collection it names (its EndToEndId, and the batch's MsgId where the report gives it) and settles
// it: booked, rejected before settlement, or returned after it. A file is applied whole or not at
// all, in one transaction; one applied before (the same bytes) changes nothing and says so, and an
// entry that finds its collection already settled so changes nothing either (a statement after the
// notification of the same bookings).
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { formatAmount } from '../schemas/money.js';
import {
  MalformedReportError,
  NotABankReportError,
  reportReader,
  type ReportEntry,
  type ReportReading,
} from '../sepa/reports.js';
import type { CollectionItemRow } from '../store/schema.js';
import type { DB } from '../store/store.js';
import { ahead, all, get, run, taken, turn, writeRows, type RowsSpec, type Unit } from '../store/unit.js';
import {
  CHUNK,
  currentAccount,
  fileBlocks,
  paymentInfoId,
  transactionOf,
  type BankReportRecord,
  type Block,
} from './collections.js';
import type { Account, CoreContext } from './context.js';
import { allowsPrivateWebhooks, nowIso } from './context.js';
import { loadFullCredits } from './invoice-rules.js';
import { flush, Ledger, loadSubscriptions, withBatches, type Txn } from './ledger.js';
import { loadWebhookUrls } from './outbox.js';
import { bookCollection, rejectCollection, returnCollection, type Settled } from './transaction-rules.js';
import { fail, ok, type Result } from './result.js';

/** An entry of a report that settled nothing: what it said, where it is in the file, and why. */
export interface Unmatched {
  end_to_end_id: string;
  /** '' when the report gives no amount. */
  amount: string;
  outcome: ReportEntry['outcome'];
  reason_code: string | null;
  where: string;
  reason: string;
}

export interface Imported {
  report: BankReportRecord;
  /** The same file was applied before: nothing changed now. */
  already: boolean;
}

/** The code a reject or return gets when the report names none. */
const UNSPECIFIED = 'MS03';

const ITEM_SETTLE: RowsSpec = {
  key: 'collection_items.settle',
  table: 'collection_items',
  by: 'id',
  columns: { id: 'integer', state: 'text', reason_code: 'text', settled_at: 'instant', updated_at: 'instant' },
};

type Item = Pick<
  CollectionItemRow,
  | 'transaction_id'
  | 'transaction_seq'
  | 'subscription_id'
  | 'collection_id'
  | 'attempt'
  | 'state'
  | 'amount_cents'
  | 'reason_code'
  | 'settled_at'
  | 'updated_at'
> & {
  id: number;
  end_to_end_id: string;
  message_id: string;
  batch_status: string;
};

/**
 * POST /bank-reports: reads the report from `input` (streamed; its SHA-256 taken on the way) and
 * applies it. A file that is not well-formed XML, or no report of these formats, is an invalid
 * document and changes nothing.
 */
export async function importBankReport(
  ctx: CoreContext,
  input: AsyncIterable<Buffer | string> | Buffer,
): Promise<Result<Imported>> {
  // The whole file first: its hash says whether it was applied before. It is read as it is applied.
  // An error of the source itself (the body too large, the client gone) is not the report's fault:
  // it is thrown as it is.
  const body: (Buffer | string)[] = [];
  const hash = createHash('sha256');
  if (Buffer.isBuffer(input)) {
    hash.update(input);
    for (let at = 0; at < input.length; at += PIECE) body.push(input.subarray(at, at + PIECE));
  } else {
    for await (const chunk of input) {
      hash.update(chunk);
      body.push(chunk);
    }
  }
  const contentHash = hash.digest('hex');
  const newReading = await reportReader();
  return ctx.store.work(
    function* () {
      try {
        return yield* apply(ctx, body, newReading(), contentHash);
      } catch (error) {
        // Rolled back: whatever it applied of the file before it found it unreadable.
        if (error instanceof MalformedReportError)
          return fail({ kind: 'invalid_document', pointer: '', detail: `the report is ${error.message}` });
        if (error instanceof NotABankReportError)
          return fail({ kind: 'invalid_document', pointer: '', detail: error.message });
        throw error;
      }
    },
    (result) => result.ok,
  );
}

/** Entries settled between turns (store/unit.ts turn): a few milliseconds' work. */
const TURN_EVERY = 250;

/** How much of a file given whole is read at a time (a file streamed in comes in its own pieces). */
const PIECE = 64 * 1024;

function* findReport(ctx: CoreContext, contentHash: string): Unit<BankReportRecord | undefined> {
  return yield* get((q) =>
    q
      .selectFrom('bank_reports')
      .selectAll()
      .where('account_id', '=', ctx.account.id)
      .where('content_hash', '=', contentHash),
  );
}

/** One collection an entry settles: named by its EndToEndId, or an item of the block or batch a whole-block entry names. */
interface Work {
  entry: ReportEntry;
  endToEndId?: string;
  itemId?: number;
}

/** The item a piece of work names: by id (a whole block's), else by its EndToEndId. */
const itemOf = (work: Work, byId: ReadonlyMap<number, Item>, byEndToEnd: ReadonlyMap<string, Item>) =>
  work.itemId !== undefined ? byId.get(work.itemId) : byEndToEnd.get(work.endToEndId!);

const ITEM_COLUMNS = [
  'i.id',
  'i.end_to_end_id',
  'i.transaction_id',
  'i.transaction_seq',
  'i.subscription_id',
  'i.collection_id',
  'i.attempt',
  'i.state',
  'i.amount_cents',
  'i.reason_code',
  'i.settled_at',
  'i.updated_at',
  'c.message_id',
  'c.status as batch_status',
] as const;

function* apply(
  ctx: CoreContext,
  body: readonly (Buffer | string)[],
  reading: ReportReading,
  contentHash: string,
): Unit<Result<Imported>> {
  const account = yield* currentAccount(ctx);
  const now = nowIso(ctx);
  const known = yield* findReport(ctx, contentHash);
  if (known) return ok({ report: known, already: true });

  // The file is read as far as the work needs: entries naming their collection are settled in
  // chunks as they are read (while the server writes the chunk before); those standing for a whole
  // block or batch come last, for what the report did not settle one by one (a pain.002 rejecting
  // a group, and some of it with reasons of their own).
  let given = 0;
  let head = reading.head();
  let entries = 0;
  const named: ReportEntry[] = [];
  const wholes: ReportEntry[] = [];
  function* readWhile(more: () => boolean): Unit<void> {
    while (more() && given <= body.length) {
      if (given < body.length) reading.write(body[given]);
      else head = reading.end();
      given++;
      head ??= reading.head();
      for (const entry of reading.take()) {
        entries++;
        (entry.endToEndId !== '' ? named : wholes).push(entry);
      }
      yield* turn(); // a piece of the file takes a few milliseconds to read
    }
  }
  yield* readWhile(() => head === null);
  if (head === null) head = reading.end(); // says why it is no report

  // Taken first: an import of the same file at the same moment waits here, then finds it taken.
  const [made] = yield* all((q) =>
    q
      .insertInto('bank_reports')
      .values({
        account_id: account.id,
        format: head!.format,
        message_id: head!.messageId,
        content_hash: contentHash,
        entries: 0,
        booked: 0,
        rejected: 0,
        returned: 0,
        unchanged: 0,
        unmatched: 0,
        unmatched_entries: '[]',
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .returning('id'),
  );
  if (!made) return ok({ report: (yield* findReport(ctx, contentHash))!, already: true });
  const counts = { booked: 0, rejected: 0, returned: 0, unchanged: 0 };
  // Listed in file order within each kind, those of whole blocks first.
  const unmatched: Unmatched[] = [];
  const unmatchedWholes: Unmatched[] = [];
  const miss = (entry: ReportEntry, reason: string, list = unmatched) =>
    list.push({
      end_to_end_id: entry.endToEndId,
      amount: entry.amountCents === null ? '' : formatAmount(entry.amountCents),
      outcome: entry.outcome,
      reason_code: entry.reasonCode,
      where: entry.where,
      reason,
    });
  let wholeWork: Work[] | undefined;
  /** The next chunk of work, empty at the end. */
  function* nextChunk(): Unit<Work[]> {
    yield* readWhile(() => named.length < CHUNK);
    if (named.length > 0) return named.splice(0, CHUNK).map((entry) => ({ entry, endToEndId: entry.endToEndId }));
    if (wholeWork === undefined) {
      wholeWork = [];
      for (const entry of wholes) {
        const found = yield* wholeBlock(ctx, entry);
        if (typeof found === 'string') miss(entry, found, unmatchedWholes);
        else for (const itemId of found) wholeWork.push({ entry, itemId });
      }
    }
    return wholeWork.splice(0, CHUNK);
  }

  const settledHere = new Set<number>();
  // Each chunk's reads are started ahead: the next chunk is read from the file first, then its
  // items and transactions are read by the server while this process settles the chunk before it
  // (PostgreSQL; store/unit.ts ahead), and before that one's writes go out. Whole, only when the two
  // share no subscription: nothing the one before writes (its items and transactions, retries,
  // mandates flagged, invoices) is then anything the next one read. Otherwise its transactions are
  // read after those writes, and its items too when the one before settles any of them.
  let current = yield* nextChunk();
  let next = current.length > 0 ? yield* ahead(readNext(ctx, account, current, [])) : undefined;
  while (next !== undefined) {
    const got = yield* taken(next);
    const { chunk, items, byEndToEnd, byId, l } =
      got === 'stale'
        ? yield* readChunk(ctx, account, current, yield* itemsOf(account.id, current))
        : Array.isArray(got)
          ? yield* readChunk(ctx, account, current, got)
          : got;
    current = yield* nextChunk();
    next = current.length > 0 ? yield* ahead(readNext(ctx, account, current, items)) : undefined;
    const changed = new Set<Item>();
    let done = 0;
    for (const work of chunk) {
      const { entry, itemId } = work;
      if (++done % TURN_EVERY === 0) yield* turn();
      const item = itemOf(work, byId, byEndToEnd);
      if (itemId !== undefined && (settledHere.has(itemId) || !item)) continue;
      const refusal = itemId !== undefined ? undefined : mismatch(entry, item);
      if (refusal !== undefined) {
        miss(entry, refusal);
        continue;
      }
      settledHere.add(item!.id);
      const settled = settle(l, item!, entry, now);
      if (settled === 'unchanged') counts.unchanged++;
      else {
        counts[entry.outcome]++;
        changed.add(item!);
      }
    }
    yield* writeRows('update', ITEM_SETTLE, [...changed]);
    yield* flush(l);
  }
  unmatched.unshift(...unmatchedWholes);
  yield* run((q) =>
    q
      .updateTable('bank_reports')
      .set({ entries, ...counts, unmatched: unmatched.length, unmatched_entries: JSON.stringify(unmatched) })
      .where('id', '=', made.id),
  );
  return ok({ report: (yield* findReport(ctx, contentHash))!, already: false });
}

/** A chunk of work with what it reads: its items, and its transactions loaded into a ledger of its own. */
interface Read {
  chunk: readonly Work[];
  items: Item[];
  byEndToEnd: Map<string, Item>;
  byId: Map<number, Item>;
  l: Ledger;
}

/** Collection items with their batch's MsgId and status, as settling them reads them. */
const itemRows = (q: Kysely<DB>) =>
  q.selectFrom('collection_items as i').innerJoin('collections as c', 'c.id', 'i.collection_id').select(ITEM_COLUMNS);

/** The items a chunk's entries name: by their EndToEndId's transaction, or by id (a whole block's). */
function* itemsOf(accountId: number, chunk: readonly Work[]): Unit<Item[]> {
  const ids = [
    ...new Set(
      chunk
        .map((w) => (w.endToEndId === undefined ? undefined : transactionOf(w.endToEndId)))
        .filter((id) => id !== undefined),
    ),
  ];
  const itemIds = chunk.filter((w) => w.itemId !== undefined).map((w) => w.itemId!);
  const items: Item[] = [];
  // The live items are keyed by their transaction's row number: the transactions are read first, by
  // their ids, so that each statement is a lookup by a key, with no join for the planner to order.
  // The account is the items' to check: a row number read from the index on ids alone, without its
  // row (on SQLite half the time of a lookup that also reads the transaction's account).
  const seqs = ids.length
    ? (yield* all((q, d) => q.selectFrom('transactions').select('seq').where(d.among('id', ids)))).map((row) => row.seq)
    : [];
  if (seqs.length) {
    items.push(
      ...((yield* all((q, d) =>
        itemRows(q)
          .where('i.account_id', '=', accountId)
          .where(d.among('i.transaction_seq', seqs))
          // As the unique index of live items says "not cancelled", so that it is the one read; an
          // earlier attempt's item is told apart by its EndToEndId (byEndToEnd).
          .where('i.cancelled_at', 'is', null),
      )) as Item[]),
    );
  }
  if (itemIds.length) items.push(...((yield* all((q, d) => itemRows(q).where(d.among('i.id', itemIds)))) as Item[]));
  return items;
}

/**
 * A chunk's items and, unless they share a subscription with the items of the chunk before (`before`),
 * what readChunk reads of them; when they do, only the items (readChunk then runs after the writes
 * of the chunk before), or 'stale' when the chunk before settles some of these very items (a
 * booking, then its return further on in the file): they are read again after its writes.
 */
function* readNext(
  ctx: CoreContext,
  account: Account,
  chunk: readonly Work[],
  before: readonly Item[],
): Unit<Read | Item[] | 'stale'> {
  const items = yield* itemsOf(account.id, chunk);
  const theirs = new Set(before.map((item) => item.subscription_id));
  if (!items.some((item) => theirs.has(item.subscription_id))) return yield* readChunk(ctx, account, chunk, items);
  const settledBefore = new Set(before.map((item) => item.id));
  return items.some((item) => settledBefore.has(item.id)) ? 'stale' : items;
}

/** A chunk's items, and their transactions (locked) with what settling them needs, in a ledger of its own. */
function* readChunk(ctx: CoreContext, account: Account, chunk: readonly Work[], items: Item[]): Unit<Read> {
  const byEndToEnd = new Map(items.map((item) => [item.end_to_end_id, item]));
  const byId = new Map(items.map((item) => [item.id, item]));
  const l = new Ledger(allowsPrivateWebhooks(ctx));
  l.useAccount(account);
  yield* loadSettled(l, chunk, items, byEndToEnd, byId, account.id);
  yield* loadFullCredits(l);
  // Where the chunk's events go, read now: a read among its writes would wait for the writes sent
  // before it (writeDeliveries), and the client with it. Only for items an entry moves on: a
  // statement after the notification of the same bookings moves none.
  const moved = new Set<number>();
  for (const work of chunk) {
    const item = itemOf(work, byId, byEndToEnd);
    if (item && movesOn(item.state, work.entry.outcome)) moved.add(item.subscription_id);
  }
  yield* loadWebhookUrls(l, moved);
  return { chunk, items, byEndToEnd, byId, l };
}

/**
 * Loads (locked) the transactions of a chunk's items. A booking needs only its transaction and the
 * account's zone; a reject or a return may retry it or flag its mandate, so those take their
 * subscription (its plan, its open transactions) first, in the order every writer locks in.
 * Loading a subscription for every booking, and with it each one's open transactions, cost more
 * than the rest of an import.
 */
function* loadSettled(
  l: Ledger,
  chunk: readonly Work[],
  items: readonly Item[],
  byEndToEnd: ReadonlyMap<string, Item>,
  byId: ReadonlyMap<number, Item>,
  accountId: number,
): Unit<void> {
  const subscriptions = new Set<number>();
  for (const work of chunk) {
    if (work.entry.outcome === 'booked') continue;
    const item = itemOf(work, byId, byEndToEnd);
    if (item) subscriptions.add(item.subscription_id);
  }
  yield* loadSubscriptions(l, subscriptions, accountId);
  // By their row numbers, as the items hold them: the table's own key, and in a report's order
  // mostly the order they were made in, where their UUIDs fall anywhere in the index of ids.
  const rest = [...new Set(items.filter((i) => !l.txns.has(i.transaction_id)).map((i) => i.transaction_seq))];
  if (rest.length === 0) return;
  const rows = (yield* all((q, d) =>
    d.locked(
      q
        .selectFrom('transactions')
        .selectAll()
        .where(d.among('seq', rest))
        .where('account_id', '=', accountId)
        .orderBy('seq'),
    ),
  )) as Omit<Txn, 'collection_id'>[];
  // The batch of each one's current attempt is the batch of the item the report names (read live;
  // only an exported batch's items are settled, and an exported batch is never cancelled), unless
  // the transaction has moved on to another attempt since: those are asked, now that they are locked.
  const live = new Map(items.map((item) => [`${item.transaction_id} ${item.attempt}`, item.collection_id]));
  const txns = rows as Txn[];
  yield* withBatches(txns.filter((tx) => !live.has(`${tx.id} ${tx.attempt}`)));
  for (const tx of txns) {
    const named = live.get(`${tx.id} ${tx.attempt}`);
    if (named !== undefined) tx.collection_id = named;
    l.put(tx);
  }
}

/**
 * The items an entry without an EndToEndId stands for: the whole block its PmtInfId names (a batch
 * booking, a block rejected), or the whole batch its MsgId names (a file rejected). Or why none.
 */
function* wholeBlock(ctx: CoreContext, entry: ReportEntry): Unit<number[] | string> {
  if (entry.originalMessageId === null) return 'it names no collection: neither an EndToEndId nor the MsgId of a batch';
  const batch = yield* get((q) =>
    q
      .selectFrom('collections')
      .select(['id', 'status', 'message_id'])
      .where('account_id', '=', ctx.account.id)
      .where('message_id', '=', entry.originalMessageId!),
  );
  if (!batch) return `no collection batch has MsgId ${entry.originalMessageId}`;
  if (batch.status !== 'exported') return `its collection batch ${batch.id} was never exported`;
  let block: Block | undefined;
  if (entry.paymentInfoId !== null) {
    const blocks = yield* fileBlocks(batch.id);
    block = blocks.find((_, i) => paymentInfoId(batch.message_id, i) === entry.paymentInfoId);
    if (!block) return `batch ${batch.message_id} has no payment information block ${entry.paymentInfoId}`;
  }
  const items = yield* all((q) => {
    let query = q
      .selectFrom('collection_items')
      .select(['id', 'amount_cents'])
      .where('collection_id', '=', batch.id)
      .where('state', '<>', 'cancelled');
    if (block)
      query = query
        .where('collection_date', '=', block.collection_date)
        .where('sequence_type', '=', block.sequence_type);
    return query.orderBy('id');
  });
  const sum = items.reduce((total, item) => total + item.amount_cents, 0);
  if (entry.outcome !== 'returned' && entry.amountCents !== null && entry.amountCents !== sum) {
    return `the amount ${formatAmount(entry.amountCents)} is not the ${block ? 'block' : 'batch'}'s ${formatAmount(sum)}`;
  }
  return items.map((item) => item.id);
}

/** Why an entry settles no collection, or undefined when it names one. */
function mismatch(entry: ReportEntry, item: Item | undefined): string | undefined {
  if (!item) return 'no collection has this EndToEndId';
  if (entry.originalMessageId !== null && entry.originalMessageId !== item.message_id)
    return `the collection is in the batch with MsgId ${item.message_id}, not ${entry.originalMessageId}`;
  if (item.batch_status !== 'exported') return `its collection batch ${item.collection_id} was never exported`;
  // A return may come with charges or a partial refund: its amount is not held to the collection's.
  if (entry.outcome !== 'returned' && entry.amountCents !== null && entry.amountCents !== item.amount_cents) {
    return `the amount ${formatAmount(entry.amountCents)} is not the collection's ${formatAmount(item.amount_cents)}`;
  }
  return undefined;
}

/** Whether an entry moves its item on: a booking or a reject a pending one, a return a pending or booked one. */
const movesOn = (state: string, outcome: ReportEntry['outcome']): boolean =>
  outcome === 'returned' ? state === 'pending' || state === 'booked' : state === 'pending';

/**
 * Applies an entry to its item and to the transaction's attempt the item presented. A state the
 * entry does not move on (booked again, a reject of a booked collection, anything after a reject
 * or a return) changes nothing.
 */
function settle(l: Ledger, item: Item, entry: ReportEntry, now: string): Settled {
  const tx = l.txns.get(item.transaction_id);
  const code = entry.reasonCode ?? UNSPECIFIED;
  if (!movesOn(item.state, entry.outcome)) return 'unchanged';
  item.state = entry.outcome;
  item.reason_code = entry.outcome === 'booked' ? null : code;
  item.settled_at = now;
  item.updated_at = now;
  // The transaction has moved on only when this attempt was settled by other means (an invoice paid by hand).
  if (!tx || tx.attempt !== item.attempt) return 'changed';
  if (entry.outcome === 'booked') bookCollection(l, tx, now);
  else if (entry.outcome === 'rejected') rejectCollection(l, tx, code, now);
  else returnCollection(l, tx, code, now);
  return 'changed';
}
