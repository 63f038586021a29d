// The ledger writes a changed transaction by its row number (seq), the table's own key: a
// transaction it holds without one (read without it) is a mistake of the code, refused before
// anything is written, never an update that finds no row.
import { describe, expect, it } from 'vitest';
import { flush, Ledger, type Txn } from '../../src/lib/core/ledger.js';
import { all } from '../../src/lib/store/unit.js';
import { makePlan, subscribe } from '../helpers/sepa.js';
import { testCore, type TestCore } from '../helpers/store.js';

async function oneTransaction(core: TestCore): Promise<Txn> {
  const member = await subscribe(core, await makePlan(core));
  const [tx] = await core.store.read(() =>
    all((q) => q.selectFrom('transactions').selectAll().where('subscription_id', '=', Number(member.subscription))),
  );
  return { ...tx, collection_id: null };
}

const statusOf = async (core: TestCore, id: string) =>
  (await core.store.read(() => all((q) => q.selectFrom('transactions').select('status').where('id', '=', id))))[0]
    .status;

describe('the ledger writing a changed transaction', () => {
  it('writes the change to the row it was read from', async () => {
    const core = await testCore();
    const tx = await oneTransaction(core);
    const before = await statusOf(core, tx.id);
    const l = new Ledger(true);
    l.put({ ...tx, status: 'canceled' });
    l.changedTxns.add(l.txns.get(tx.id)!);
    await core.store.write(() => flush(l));
    expect(before).not.toBe('canceled');
    expect(await statusOf(core, tx.id)).toBe('canceled');
  });

  it('refuses one read without its row number, writing nothing', async () => {
    const core = await testCore();
    const { seq: _seq, ...tx } = await oneTransaction(core);
    const before = await statusOf(core, tx.id);
    const l = new Ledger(true);
    l.put({ ...tx, status: 'canceled' });
    l.changedTxns.add(l.txns.get(tx.id)!);
    // Thrown at once on SQLite, whose writes are synchronous; a rejection on PostgreSQL.
    await expect(async () => core.store.write(() => flush(l))).rejects.toThrow(
      `transaction ${tx.id} was changed but not read with its row number`,
    );
    expect(await statusOf(core, tx.id)).toBe(before);
  });
});
