// Making and cancelling collection batches (SEPA): see collections.ts for what a batch is.
import { extractIBAN } from 'ibantools';
import { sql, type ExpressionBuilder } from 'kysely';
import { validateAttributes } from '../schemas/common.js';
import { collectionCreateSchema, collectionUpdateSchema, COLLECTION_READ_ONLY } from '../schemas/collection.js';
import { addTarget2Days, nextTarget2Day } from '../sepa/calendar.js';
import { SEPA_AMOUNT_MAX_CENTS } from '../sepa/pain008.js';
import { identifierProblem, toEpcLatin } from '../sepa/charset.js';
import { reasonText } from '../sepa/reasons.js';
import { formatAmount } from '../schemas/money.js';
import { raw } from '../store/info.js';
import type { DB } from '../store/store.js';
import {
  ahead,
  all,
  get,
  run,
  taken,
  turn,
  writeRows,
  type MaybePromise,
  type RowsSpec,
  type Unit,
} from '../store/unit.js';
import {
  CHUNK,
  currentAccount,
  endToEndId,
  presentedSubject,
  LIVE_STATES,
  MANDATE_EXPIRY_MONTHS,
  MAX_DAYS_AHEAD,
  missingCreditor,
  moveCollection,
  viewOf,
  type Collection,
  type CollectionView,
  type LeftOut,
  type Made,
} from './collections.js';
import type { Account, CoreContext } from './context.js';
import { allowsPrivateWebhooks, nowIso } from './context.js';
import {
  flush,
  Ledger,
  loadRules,
  loadTransactions,
  notInBatch,
  WORK_INSERT,
  workRow,
  type HistoryItem,
  type Txn,
} from './ledger.js';
import { recollect, retryDueOf, takeOutOfBatch } from './transaction-rules.js';
import { fail, invalidAttributes, notFound, ok, type Result } from './result.js';
import { addDays, addMonths, dayAt, midnight } from './schedule.js';
import { readInstants } from './time.js';

const COLLECTABLE = ['scheduled', 'rescheduled'] as const;
/** The scope of the lock that makes an account's batches one at a time (Dialect.serialized). */
const BATCH_LOCK = 1;

const ITEM_INSERT: RowsSpec = {
  key: 'collection_items.insert',
  table: 'collection_items',
  columns: {
    account_id: 'integer',
    collection_id: 'integer',
    transaction_id: 'text',
    transaction_seq: 'integer',
    subscription_id: 'integer',
    attempt: 'integer',
    state: 'text',
    end_to_end_id: 'text',
    sequence_type: 'text',
    collection_date: 'text',
    amount_cents: 'integer',
    mandate_id: 'text',
    mandate_signed_on: 'text',
    debtor_name: 'text',
    debtor_iban: 'text',
    remittance: 'text',
    original_mandate_id: 'text',
    original_debtor_iban: 'text',
    original_debtor_agent: 'text',
    created_at: 'instant',
    updated_at: 'instant',
  },
};

const notSetUp = (account: Account, missing: string[]) =>
  `account ${account.name} is not set up for SEPA: it needs ${missing.join(', ')} (billing accounts update ${account.name})`;

/** The debtor's bank as its IBAN names it (country and bank identifier): a change of bank is SMNDA. */
function bankOf(iban: string): string {
  const parts = extractIBAN(iban);
  return `${parts.countryCode ?? iban.slice(0, 2)}:${parts.bankIdentifier ?? iban.slice(4, 8)}`;
}

interface LastUse {
  date: string;
  mandate_id: string;
  debtor_iban: string;
}

interface Debtor {
  id: number;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  company_name: string | null;
  bank_holder: string | null;
  iban: string | null;
}

const ASCII_ALPHANUMERIC = /[A-Za-z0-9]/;

/** The account holder's name as the bank knows it: the bank holder, else the company, else the customer's name. */
const debtorName = (c: Debtor): string =>
  c.bank_holder || c.company_name || [c.first_name, c.middle_name, c.last_name].filter(Boolean).join(' ');

/** Between the fields of a last use read as one text: no date, mandate id or IBAN holds it. */
const FIELD = '\u001f';

/**
 * The latest collection presented under a subscription's mandate that the bank did not reject, as
 * one text (its date, mandate id and debtor's IBAN: lastUseOf), selected beside the subscription's
 * columns: the index of a mandate's items is probed once a subscription, with no statement of its own.
 */
const lastUse = (eb: ExpressionBuilder<DB & { s: DB['subscriptions'] }, 's'>) =>
  eb
    .selectFrom('collection_items as i')
    .select(sql<string>`i.collection_date || ${FIELD} || i.mandate_id || ${FIELD} || i.debtor_iban`.as('use'))
    .whereRef('i.subscription_id', '=', 's.id')
    .where('i.state', 'in', LIVE_STATES)
    .orderBy('i.collection_date', 'desc')
    .orderBy('i.id', 'desc')
    .limit(1)
    .as('last_use');

function lastUseOf(text: string): LastUse {
  const [date, mandate_id, debtor_iban] = text.split(FIELD);
  return { date, mandate_id, debtor_iban };
}

/**
 * POST /collections: puts every SEPA transaction due by `until` (scheduled, or rescheduled for a
 * storno retry) that is in no batch yet into a new batch, grouped in the file by collection date
 * and sequence type. What cannot be collected is left out, each with its reason, and stays as it
 * is. Nothing is made when nothing can go in.
 */
export function createCollection(ctx: CoreContext, attributes: Record<string, unknown>): MaybePromise<Result<Made>> {
  const { value, problems } = validateAttributes(collectionCreateSchema, attributes, {
    readOnly: [...COLLECTION_READ_ONLY, 'status'],
  });
  const tz = ctx.account.time_zone;
  const given = readInstants(value, ['until'], tz, problems).until;
  if (problems.length) return invalidAttributes(problems);
  const today = dayAt(nowIso(ctx), tz);
  const until = given ? dayAt(given, tz) : addTarget2Days(today, 1);
  const latest = addDays(today, MAX_DAYS_AHEAD);
  if (until > latest) {
    return invalidAttributes([
      {
        attribute: 'until',
        detail: `must be at most ${MAX_DAYS_AHEAD} days ahead (${latest}): a collection reaches the debtor's bank no sooner than that before its date`,
      },
    ]);
  }
  return ctx.store.work(
    () => makeBatch(ctx, today, until),
    (result) => result.ok && result.value.collection !== null,
  );
}

/** A transaction as a batch reads it. */
interface Taken {
  seq: number;
  id: string;
  subscription_id: number;
  status: string;
  origin: string;
  attempt: number;
  due_date: string;
  /** Only a rescheduled one's. */
  history: string | null;
  amount_cents: number;
  payment_method: string;
  description: string | null;
}

/** A subscription's mandate, and whose it is. */
interface Mandate {
  id: number;
  customer_id: number;
  subscription_plan_id: number;
  mandate_code: string;
  mandate_accepted: number;
  mandate_accepted_date: string | null;
  mandate_attention: string | null;
  mandate_attention_on: string | null;
  /** The mandate's latest collection presented (lastUse). */
  last_use: string | null;
}

/** Candidates worked out between turns (store/unit.ts turn): a few milliseconds' work. */
const TURN_EVERY = 200;

/**
 * The batch is written set-based: per chunk, reads of the transactions (locked), their mandates,
 * debtors and plans, and the mandates' last uses, then the items and the due work. No transaction is
 * written: its item is the record of its batch, and its plan's next cycle is due work at its
 * collection date (collection.presented, one piece per block), as a simulated collection's is
 * scheduled by the clock on its due date, so a batch holds the write lock for the batch alone.
 */
function* makeBatch(ctx: CoreContext, today: string, until: string): Unit<Result<Made>> {
  // One batch of an account at a time: one made at the same moment waits here, then reads what is
  // due after this one commits, so what it finds in no batch stays so. PostgreSQL's READ COMMITTED
  // reads each statement afresh, so reading the candidates after the lock is enough.
  yield* get(raw((_, d) => d.serialized(BATCH_LOCK, ctx.account.id)));
  const account = yield* currentAccount(ctx);
  if (account.collection !== 'sepa') {
    return fail<Made>({
      kind: 'invalid_state',
      detail: `account ${account.name} collects by simulation: its transactions are not batched (billing accounts update ${account.name} --collection sepa)`,
    });
  }
  const tz = account.time_zone;
  const now = nowIso(ctx);
  const missing = missingCreditor(account);
  // The same few days and instants come back for every transaction: each is worked out once.
  const days = remembered((iso: string) => dayAt(iso, tz));
  const openDays = remembered(nextTarget2Day);
  const midnights = remembered((day: string) => midnight(day, tz));
  const earliest = addTarget2Days(today, 1);
  const untilEnd = midnight(addDays(until, 1), tz);
  const batch = (yield* get((q) =>
    q
      .insertInto('collections')
      .values({
        account_id: account.id,
        status: 'open',
        message_id: `pending-${now}-${Math.random()}`,
        due_until: until,
        transaction_count: 0,
        control_sum_cents: 0,
        created_at: now,
        updated_at: now,
      })
      .returningAll(),
  )) as Collection;
  // Every candidate once, in the items' order: one sorted read, not a sort of what is left per chunk.
  // By its row number (seq), which finds a row by the table's own key, not through the index of ids.
  const seqs = (yield* all((q) =>
    q
      .selectFrom('transactions')
      .select('seq')
      .where('account_id', '=', account.id)
      .where('status', 'in', COLLECTABLE)
      .where(() => notInBatch())
      .where((eb) => eb.or([eb('status', '=', 'rescheduled'), eb('due_date', '<', untilEnd)]))
      .orderBy('due_date')
      .orderBy('seq'),
  )).map((row) => row.seq);
  const leftOut: LeftOut[] = [];
  const frequencies = new Map<number, string>();
  /** The blocks ("day sequence") holding a plan's first attempt: their date schedules the plan's next cycle. */
  const presentedBlocks = new Set<string>();
  let count = 0;
  let sum = 0;
  // Each chunk is read ahead, while this process works out the one before it, and before that one's
  // items are written: PostgreSQL reads it (and writes the items of the chunk before) meanwhile.
  // Its mandates' last uses then lack the items of the chunk before it, which `made` adds back.
  const chunkAt = (from: number) => ahead(readChunk(account.id, seqs.slice(from, from + CHUNK), frequencies));
  let next = seqs.length > 0 ? yield* chunkAt(0) : undefined;
  let made = new Map<number, LastUse>();
  for (let from = 0; next !== undefined; from += CHUNK) {
    const { chunk, bySeq, mandates, debtors, uses } = yield* taken(next);
    next = from + CHUNK < seqs.length ? yield* chunkAt(from + CHUNK) : undefined;
    for (const [subscription, use] of made) {
      const read = uses.get(subscription);
      // The latest by collection date, then the newest: as the store orders a mandate's items.
      if (mandates.has(subscription) && (!read || use.date >= read.date)) uses.set(subscription, use);
    }
    made = new Map();
    const items: Record<string, unknown>[] = [];
    for (let i = 0; i < chunk.length; i++) {
      // Every few milliseconds the connection may send what waits (the writes before, the next
      // chunk's reads): PostgreSQL sends a statement only when the one before has answered.
      if (i % TURN_EVERY === TURN_EVERY - 1) yield* turn();
      const seq = chunk[i];
      const tx = bySeq.get(seq);
      // Canceled or collected since it was read: no longer this batch's.
      if (!tx || !(COLLECTABLE as readonly string[]).includes(tx.status)) continue;
      const retryDue =
        tx.history !== null ? retryDueOf(JSON.parse(tx.history) as HistoryItem[], tx.due_date) : tx.due_date;
      const due = days(retryDue);
      if (due > until) continue; // a retry not due yet
      const collectionDate = openDays(due > earliest ? due : earliest);
      const use = uses.get(tx.subscription_id);
      const m = mandates.get(tx.subscription_id)!;
      const debtor = debtors.get(m.customer_id)!;
      const reason = leaveOut(tx, m, debtor, use, collectionDate, missing, account, days);
      if (reason !== undefined) {
        leftOut.push({
          transaction_id: tx.id,
          subscription_id: tx.subscription_id,
          due_date: retryDue,
          amount_cents: tx.amount_cents,
          reason,
        });
        continue;
      }
      const iban = debtor.iban!;
      let sequence = frequencies.get(m.subscription_plan_id) === 'once' ? 'OOFF' : use ? 'RCUR' : 'FRST';
      let originalMandate: string | null = null;
      let originalIban: string | null = null;
      let originalAgent: string | null = null;
      if (use) {
        if (use.mandate_id !== m.mandate_code) originalMandate = use.mandate_id;
        if (use.debtor_iban !== iban) {
          // Another bank: the debtor's agent changed (SMNDA), which the EPC guidelines collect as a first collection again.
          if (bankOf(use.debtor_iban) !== bankOf(iban)) {
            originalAgent = 'SMNDA';
            if (sequence === 'RCUR') sequence = 'FRST';
          } else originalIban = use.debtor_iban;
        }
      }
      const used = { date: collectionDate, mandate_id: m.mandate_code, debtor_iban: iban };
      uses.set(tx.subscription_id, used);
      made.set(tx.subscription_id, used);
      items.push({
        account_id: account.id,
        collection_id: batch.id,
        transaction_id: tx.id,
        transaction_seq: tx.seq,
        subscription_id: tx.subscription_id,
        attempt: tx.attempt,
        state: 'pending',
        end_to_end_id: endToEndId(tx),
        sequence_type: sequence,
        collection_date: collectionDate,
        amount_cents: tx.amount_cents,
        mandate_id: m.mandate_code,
        mandate_signed_on: days(m.mandate_accepted_date!),
        debtor_name: debtorName(debtor),
        debtor_iban: iban,
        remittance: tx.description,
        original_mandate_id: originalMandate,
        original_debtor_iban: originalIban,
        original_debtor_agent: originalAgent,
        created_at: now,
        updated_at: now,
      });
      count++;
      sum += tx.amount_cents;
      if (tx.origin === 'plan' && tx.attempt === 1) presentedBlocks.add(`${collectionDate} ${sequence}`);
    }
    yield* writeRows('insert', ITEM_INSERT, items);
  }
  if (count === 0) return ok<Made>({ collection: null, until, leftOut });
  // One piece of due work per block, not one per transaction: it works through the block's items
  // when their date comes (due.ts), a page at a time.
  yield* writeRows(
    'insert',
    WORK_INSERT,
    [...presentedBlocks].sort().map((block) => {
      const [day, sequence] = block.split(' ');
      return workRow(account.id, 'collection.presented', presentedSubject(batch.id, day, sequence, 0), midnights(day));
    }),
  );
  const stamp = today.replace(/-/g, '');
  const messageId = `BILLING-${stamp}-${batch.id}`;
  yield* run((q) =>
    q
      .updateTable('collections')
      .set({ message_id: messageId, transaction_count: count, control_sum_cents: sum })
      .where('id', '=', batch.id),
  );
  return ok<Made>({ collection: (yield* viewOf(ctx, batch.id))!, until, leftOut });
}

/** A chunk of candidates as a batch reads them: locked, with their mandates, debtors and plans. */
interface ChunkRead {
  chunk: number[];
  bySeq: Map<number, Taken>;
  mandates: Map<number, Mandate>;
  debtors: Map<number, Debtor>;
  /** The latest collection presented under each mandate, as the store holds them now. */
  uses: Map<number, LastUse>;
}

/** Reads a chunk of candidates (by seq); the frequencies of plans not seen before are added to `frequencies`. */
function* readChunk(accountId: number, chunk: number[], frequencies: Map<number, string>): Unit<ChunkRead> {
  // Locked (PostgreSQL) as they are now, against a cancel or a change at the same moment. No other
  // batch takes them meanwhile (BATCH_LOCK); SQLite has one writer, this one.
  const txs = (yield* all((q, d) =>
    d.locked(
      q
        .selectFrom('transactions')
        .select([
          'seq',
          'id',
          'subscription_id',
          'status',
          'origin',
          'attempt',
          'due_date',
          // A retry's due date is in its history: only a rescheduled one's is read.
          sql<string | null>`case when ${sql.ref('status')} = 'rescheduled' then ${sql.ref('history')} end`.as(
            'history',
          ),
          'amount_cents',
          'payment_method',
          'description',
        ])
        .where(d.among('seq', chunk))
        .where('account_id', '=', accountId),
    ),
  )) as Taken[];
  // Each table by its own key, joined here: PostgreSQL planned the join of the three as a hash of
  // every customer (a scan of the table per chunk: 1.9 of a 10 s batch of 100,000).
  const mandates = new Map(
    (
      (yield* all((q, d) =>
        q
          .selectFrom('subscriptions as s')
          .select((eb) => [
            's.id',
            's.customer_id',
            's.subscription_plan_id',
            's.mandate_code',
            's.mandate_accepted',
            's.mandate_accepted_date',
            's.mandate_attention',
            's.mandate_attention_on',
            lastUse(eb),
          ])
          .where(d.among('s.id', [...new Set(txs.map((tx) => tx.subscription_id))])),
      )) as Mandate[]
    ).map((row) => [row.id, row]),
  );
  const debtors = new Map(
    (
      (yield* all((q, d) =>
        q
          .selectFrom('customers')
          .select(['id', 'first_name', 'middle_name', 'last_name', 'company_name', 'bank_holder', 'iban'])
          .where(d.among('id', [...new Set([...mandates.values()].map((m) => m.customer_id))])),
      )) as Debtor[]
    ).map((row) => [row.id, row]),
  );
  const plans = [...new Set([...mandates.values()].map((m) => m.subscription_plan_id))].filter(
    (id) => !frequencies.has(id),
  );
  if (plans.length)
    for (const plan of yield* all((q) =>
      q.selectFrom('subscription_plans').select(['id', 'frequency']).where('id', 'in', plans),
    ))
      frequencies.set(plan.id, plan.frequency);
  return {
    chunk,
    bySeq: new Map(txs.map((tx) => [tx.seq, tx])),
    mandates,
    debtors,
    uses: new Map(
      [...mandates.values()].flatMap((m) => (m.last_use === null ? [] : [[m.id, lastUseOf(m.last_use)] as const])),
    ),
  };
}

/**
 * `f` with its last answers kept: the due and collection days of a batch are a handful over 100,000
 * rows. Bounded, as the instants mandates were signed at are as many as the rows.
 */
function remembered<T>(f: (key: string) => T): (key: string) => T {
  const answers = new Map<string, T>();
  return (key) => {
    let answer = answers.get(key);
    if (answer === undefined) {
      if (answers.size === 1_000) answers.clear();
      answers.set(key, (answer = f(key)));
    }
    return answer;
  };
}

/** Why a transaction cannot be collected now, or undefined when it can. */
function leaveOut(
  tx: Pick<Txn, 'payment_method' | 'amount_cents'>,
  sub: {
    mandate_code: string;
    mandate_accepted: number;
    mandate_accepted_date: string | null;
    mandate_attention: string | null;
    mandate_attention_on: string | null;
  },
  debtor: Debtor | undefined,
  use: LastUse | undefined,
  collectionDate: string,
  missing: string[],
  account: Account,
  /** The local day of an instant, in the account's time zone. */
  days: (iso: string) => string,
): string | undefined {
  if (missing.length) return notSetUp(account, missing);
  if (tx.payment_method !== 'directdebit') return `it is paid by ${tx.payment_method}, not by direct debit`;
  if (!debtor?.iban) return 'the customer has no IBAN';
  if (tx.amount_cents > SEPA_AMOUNT_MAX_CENTS)
    return `its amount is above the most a SEPA collection may be (${formatAmount(SEPA_AMOUNT_MAX_CENTS)})`;
  if (sub.mandate_accepted !== 1 || sub.mandate_accepted_date === null) return 'the mandate is not accepted';
  // What the file could not carry is left out here, never found by the writer after the export.
  const codeProblem = identifierProblem(sub.mandate_code);
  if (codeProblem !== null)
    return `the mandate code "${sub.mandate_code}" cannot go into a SEPA file: it ${codeProblem}`;
  // A letter or digit of ASCII passes transliteration as it is: only a name without one can come out empty.
  const name = debtorName(debtor);
  if (!ASCII_ALPHANUMERIC.test(name) && toEpcLatin(name) === '')
    return `the account holder's name has no letter a SEPA file can carry (billing customers update ${debtor.id} --bank-holder NAME)`;
  if (sub.mandate_attention !== null) {
    const text = reasonText(sub.mandate_attention);
    return `the mandate needs attention: the bank answered ${sub.mandate_attention}${text ? ` (${text})` : ''} on ${days(sub.mandate_attention_on!)}`;
  }
  const signed = days(sub.mandate_accepted_date);
  const lastUsed = use && use.date > signed ? use.date : signed;
  if (collectionDate >= addMonths(lastUsed, MANDATE_EXPIRY_MONTHS)) {
    return `the mandate expired: ${use && use.date > signed ? 'last collected' : 'signed and never collected'} on ${lastUsed}, ${MANDATE_EXPIRY_MONTHS} months before ${collectionDate}`;
  }
  return undefined;
}

/** The batch, locked until the transaction ends: an export and a cancel of one batch never cross. */
function* lockBatch(ctx: CoreContext, id: number): Unit<Collection | undefined> {
  return yield* get((q, d) =>
    d.locked(q.selectFrom('collections').selectAll().where('id', '=', id).where('account_id', '=', ctx.account.id)),
  );
}

/**
 * PATCH /collections/{id} with status cancelled: only before its export (the file may be at the
 * bank after it). Its transactions are free for the next batch; one whose subscription no longer
 * collects is canceled.
 */
export function updateCollection(
  ctx: CoreContext,
  id: number,
  attributes: Record<string, unknown>,
): MaybePromise<Result<CollectionView>> {
  const { value, problems } = validateAttributes(collectionUpdateSchema, attributes, {
    readOnly: COLLECTION_READ_ONLY,
  });
  if (problems.length) return invalidAttributes(problems);
  if (value.status === undefined)
    return invalidAttributes([{ attribute: 'status', detail: 'is required: a batch can only be cancelled' }]);
  return ctx.store.work(
    function* () {
      const now = nowIso(ctx);
      const batch = yield* lockBatch(ctx, id);
      if (!batch) return notFound<CollectionView>(`no collection with id ${id}`);
      if (batch.status === 'cancelled') return ok((yield* viewOf(ctx, id))!);
      if (batch.status !== 'open') {
        return fail<CollectionView>({
          kind: 'invalid_state',
          attribute: 'status',
          detail: `collection ${id} is ${batch.status}: only a batch not yet exported can be cancelled (its file may be at the bank)`,
        });
      }
      moveCollection(batch, 'cancelled', now);
      yield* run((q) =>
        q
          .updateTable('collections')
          .set({ status: batch.status, cancelled_at: now, updated_at: now })
          .where('id', '=', id),
      );
      for (let from = 0; ;) {
        const items = yield* all((q) =>
          q
            .selectFrom('collection_items')
            .select(['id', 'transaction_id'])
            .where('collection_id', '=', id)
            .where('id', '>', from)
            .orderBy('id')
            .limit(CHUNK),
        );
        if (items.length === 0) break;
        from = items[items.length - 1].id;
        const l = new Ledger(allowsPrivateWebhooks(ctx));
        yield* loadRules(l, [ctx.account.id]);
        yield* loadTransactions(
          l,
          items.map((i) => i.transaction_id),
          ctx.account.id,
        );
        for (const item of items) {
          const tx = l.txns.get(item.transaction_id);
          if (tx && tx.collection_id === id) takeOutOfBatch(l, tx, now);
        }
        yield* flush(l);
        yield* run((q) =>
          q
            .updateTable('collection_items')
            .set({ state: 'cancelled', cancelled_at: now, updated_at: now })
            .where('collection_id', '=', id)
            .where(
              'id',
              'in',
              items.map((i) => i.id),
            ),
        );
      }
      return ok((yield* viewOf(ctx, id))!);
    },
    (result) => result.ok,
  );
}

/**
 * An account gone over to SEPA or back to simulation: its transactions waiting to be collected
 * (in no batch) follow the new way. Under SEPA the scheduled ones are pre-notified now, moving
 * where the notice period or the calendar asks; under simulation the clock collects them again.
 */
export function* collectionSwitched(account: Account, now: string): Unit<void> {
  for (let after = 0; ;) {
    const rows = yield* all((q) =>
      q
        .selectFrom('transactions')
        .select(['id', 'seq'])
        .where('account_id', '=', account.id)
        .where('status', 'in', COLLECTABLE)
        .where(() => notInBatch())
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(CHUNK),
    );
    if (rows.length === 0) return;
    after = rows[rows.length - 1].seq;
    // Switched by `accounts update`, embedded only: the embedded CLI's webhook policy (allowed).
    const l = new Ledger(true);
    l.useAccount(account);
    yield* loadTransactions(
      l,
      rows.map((row) => row.id),
      account.id,
    );
    for (const row of rows) {
      const tx = l.txns.get(row.id);
      if (tx && tx.collection_id === null && (COLLECTABLE as readonly string[]).includes(tx.status))
        recollect(l, tx, now);
    }
    yield* flush(l);
  }
}
