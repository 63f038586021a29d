// A batch's pain.008 file, streamed: the export marks the batch exported (freezing its creditor),
// then the file is written block by block, each block's debits read from the store a page at a
// time, so a batch of any size is written in flat memory. The same batch gives the same bytes on
// every export: everything in the file comes from the batch's rows.
import { writePain008, type Pain008Block, type Pain008Debit, type Pain008Format } from '../sepa/pain008.js';
import { toEpcLatin } from '../sepa/charset.js';
import { all, run, type MaybePromise } from '../store/unit.js';
import {
  currentAccount,
  fileBlocks,
  missingCreditor,
  moveCollection,
  paymentInfoId,
  type Collection,
} from './collections.js';
import type { CoreContext } from './context.js';
import { nowIso } from './context.js';
import { fail, notFound, ok, type Result } from './result.js';

export const PAIN008_FORMATS: readonly Pain008Format[] = ['pain.008.001.02', 'pain.008.001.08'];
/** The format every SEPA bank accepts (the EPC implementation guidelines' version). */
export const DEFAULT_PAIN008_FORMAT: Pain008Format = 'pain.008.001.02';

/** Debits read per query while a block is written. */
const PAGE = 1_000;

/** Writes a chunk of the file; a promise when the reader is full (backpressure). */
export type Write = (chunk: string) => void | Promise<void>;

export interface Exported {
  batch: Collection;
  /** Writes the whole file to `write`, chunk by chunk. */
  pipe: (write: Write) => Promise<void>;
}

/**
 * GET /collections/{id}/file: an open batch is exported (a transition: its creditor settings are
 * frozen into it; refused, naming what is missing, while the account lacks them), an exported one
 * is written again as it was. A cancelled batch has no file.
 */
export async function exportCollection(ctx: CoreContext, id: number, format: Pain008Format): Promise<Result<Exported>> {
  const marked: MaybePromise<Result<Collection>> = ctx.store.work(
    function* () {
      const [batch] = (yield* all((q, d) =>
        d.locked(q.selectFrom('collections').selectAll().where('id', '=', id).where('account_id', '=', ctx.account.id)),
      )) as Collection[];
      if (!batch) return notFound<Collection>(`no collection with id ${id}`);
      if (batch.status === 'cancelled')
        return fail<Collection>({ kind: 'invalid_state', detail: `collection ${id} was cancelled: it has no file` });
      if (batch.status === 'open') {
        const account = yield* currentAccount(ctx);
        const missing = missingCreditor(account);
        // A name of no EPC letter at all would be refused by the writer once the batch is marked.
        if (account.creditor_name !== null && toEpcLatin(account.creditor_name) === '')
          missing.push('a creditor name with letters');
        if (missing.length)
          return fail<Collection>({
            kind: 'invalid_state',
            detail: `account ${account.name} cannot export: it needs ${missing.join(', ')} (billing accounts update ${account.name})`,
          });
        const now = nowIso(ctx);
        moveCollection(batch, 'exported', now);
        Object.assign(batch, {
          creditor_id: account.creditor_id,
          creditor_name: account.creditor_name,
          creditor_iban: account.creditor_iban,
          creditor_bic: account.creditor_bic,
          exported_at: now,
        });
        yield* run((q) =>
          q
            .updateTable('collections')
            .set({
              status: batch.status,
              creditor_id: batch.creditor_id,
              creditor_name: batch.creditor_name,
              creditor_iban: batch.creditor_iban,
              creditor_bic: batch.creditor_bic,
              exported_at: now,
              updated_at: now,
            })
            .where('id', '=', id),
        );
      }
      return { ok: true, value: batch };
    },
    (result) => result.ok,
  );
  const result = await marked;
  if (!result.ok) return result;
  const batch = result.value;
  return ok({ batch, pipe: (write) => writeFile(ctx, batch, format, write) });
}

/** The batch's file, from its rows only. */
async function writeFile(ctx: CoreContext, batch: Collection, format: Pain008Format, write: Write): Promise<void> {
  const { store } = ctx;
  const blocks = await store.read(() => fileBlocks(batch.id));
  const page = (day: string, sequence: string, after: number) =>
    store.read(() =>
      all((q) =>
        q
          .selectFrom('collection_items')
          .select([
            'id',
            'end_to_end_id',
            'amount_cents',
            'mandate_id',
            'mandate_signed_on',
            'debtor_name',
            'debtor_iban',
            'remittance',
            'original_mandate_id',
            'original_debtor_iban',
            'original_debtor_agent',
          ])
          .where('collection_id', '=', batch.id)
          .where('collection_date', '=', day)
          .where('sequence_type', '=', sequence)
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE),
      ),
    );
  async function* debits(day: string, sequence: string): AsyncIterable<Pain008Debit[]> {
    for (let rows = await page(day, sequence, 0); ;) {
      // The next page is asked for before this one is written: PostgreSQL reads it meanwhile.
      const next = rows.length < PAGE ? undefined : page(day, sequence, rows[rows.length - 1].id);
      // Never awaited when the writer stops early (a debit it refuses): a failure of it is then no one's.
      if (next instanceof Promise) next.catch(() => undefined);
      yield rows.map((row) => {
        const amended =
          row.original_mandate_id !== null || row.original_debtor_iban !== null || row.original_debtor_agent !== null;
        return {
          endToEndId: row.end_to_end_id,
          amountCents: row.amount_cents,
          mandateId: row.mandate_id,
          mandateSignedOn: row.mandate_signed_on,
          debtorName: row.debtor_name,
          debtorIban: row.debtor_iban,
          remittance: row.remittance,
          amendment: amended
            ? {
                ...(row.original_mandate_id !== null ? { originalMandateId: row.original_mandate_id } : {}),
                ...(row.original_debtor_iban !== null ? { originalDebtorIban: row.original_debtor_iban } : {}),
                ...(row.original_debtor_agent === 'SMNDA' ? { originalDebtorAgentSmnda: true } : {}),
              }
            : null,
        };
      });
      if (next === undefined) return;
      rows = await next;
    }
  }
  const paymentBlocks: Pain008Block[] = blocks.map((block, i) => ({
    paymentInfoId: paymentInfoId(batch.message_id, i),
    sequenceType: block.sequence_type as Pain008Block['sequenceType'],
    collectionDate: block.collection_date,
    count: block.count,
    controlSumCents: block.control_sum_cents,
    debits: { pages: debits(block.collection_date, block.sequence_type) },
  }));
  await writePain008(
    {
      messageId: batch.message_id,
      // The instant the batch was made, in UTC to the second: never the time of the export.
      createdAt: `${batch.created_at.slice(0, 19)}Z`,
      count: batch.transaction_count,
      controlSumCents: batch.control_sum_cents,
      initiatingPartyName: batch.creditor_name!,
      creditor: {
        name: batch.creditor_name!,
        iban: batch.creditor_iban!,
        bic: batch.creditor_bic,
        creditorId: batch.creditor_id!,
      },
      blocks: paymentBlocks,
    },
    format,
    write,
  );
}
