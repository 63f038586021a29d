// The SEPA rules a batch keeps (EPC SDD Core rulebook), through the router on the engine of the run:
// sequence types and amendments from the mandate's history, the TARGET2 calendar, pre-notification,
// and what a batch does to its transactions (never collected by the clock, never canceled, the
// batch cancelled only before its export). TEST_NOW is Saturday 2026-11-21, 11:00 in Amsterdam.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/lib/core/accounts.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { camt054For } from '../helpers/bank-reports.js';
import { ENGINE } from '../helpers/engine.js';
import {
  batch,
  call,
  fileOf,
  finalisedShirt,
  IBANS,
  makePlan,
  ok,
  report,
  sepaCore,
  subscribe,
  transactionsOf,
  values,
} from '../helpers/sepa.js';

const ONE_DAY = { prenotification_days: 1 };

type Json = any;

/** Sequence types and amendment elements of a file's debits, in order. */
const sequences = (xml: string) => values(xml, 'SeqTp');

/** Books every collection of a batch at the bank (a camt.054 of credit entries). */
async function bookAll(core: Awaited<ReturnType<typeof sepaCore>>, id: string): Promise<void> {
  const xml = await fileOf(core, id);
  const ids = values(xml, 'EndToEndId');
  const amounts = [...xml.matchAll(/<InstdAmt Ccy="EUR">([^<]*)</g)].map((m) => Math.round(Number(m[1]) * 100));
  const answer = await report(
    core,
    camt054For({
      bookedOn: values(xml, 'ReqdColltnDt')[0],
      booked: ids.map((endToEndId, i) => ({ endToEndId, amountCents: amounts[i] })),
    }),
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
}

const changeIban = (core: Awaited<ReturnType<typeof sepaCore>>, customer: string, iban: string) =>
  ok(core, 'PATCH', `/customers/${customer}`, 200, {
    data: { type: 'customer', id: customer, attributes: { iban, bank_holder: 'Jan Jansen' } },
  });

describe('sequence types and amendments', () => {
  it('FRST for the first collection under a mandate, RCUR after it; OOFF for a plan collected once', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const monthly = await makePlan(core);
    const once = await makePlan(core, { name: 'Workshop', frequency: 'once', amount: '45.00' });
    await subscribe(core, monthly);
    await subscribe(core, once);
    const first = await batch(core);
    expect(sequences(await fileOf(core, first.data.id))).toEqual(['FRST', 'OOFF']);
    await bookAll(core, first.data.id);
    await setClock(core, '2026-12-18T09:00:00Z'); // the next cycle, Monday December 21
    const second = await batch(core);
    expect(sequences(await fileOf(core, second.data.id))).toEqual(['RCUR']);
  });

  it('RCUR for a mandate collected earlier in the same batch, a chunk of 1,000 transactions before', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const plan = await makePlan(core);
    const early = await subscribe(core, plan);
    const busy = await subscribe(core, plan);
    const manual = (subscription: string, day: string) =>
      ok(core, 'POST', '/transactions', 201, {
        data: { type: 'transaction', attributes: { subscription_id: subscription, amount: '1.00', due_date: day } },
      });
    // The batch reads what is due in order (due date, then as made) a thousand at a time: the two
    // plan collections and 998 of another mandate fill the first thousand, this one comes after.
    for (let i = 0; i < 998; i++) await manual(busy.subscription, '2026-11-23');
    await manual(early.subscription, '2026-11-24');
    await setClock(core, '2026-11-21T10:00:01Z'); // the manual transactions are scheduled by due work
    const made = await batch(core, '2026-11-24');
    expect(made.data.attributes.transactions).toBe(1001);
    const blocks = (await fileOf(core, made.data.id))
      .split('<PmtInf>')
      .slice(1)
      .map((block) => ({
        day: values(block, 'ReqdColltnDt')[0],
        seq: values(block, 'SeqTp')[0],
        early: values(block, 'MndtId').filter((id) => id === `MNDT-${early.subscription}`).length,
      }))
      .filter((block) => block.early > 0);
    expect(blocks).toEqual([
      { day: '2026-11-23', seq: 'FRST', early: 1 },
      { day: '2026-11-24', seq: 'RCUR', early: 1 },
    ]);
  }, 60_000);

  it('an IBAN changed at the same bank since the last collection amends it (OrgnlDbtrAcct); at another bank SMNDA, collected as a first again', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const plan = await makePlan(core);
    const same = await subscribe(core, plan, { iban: IBANS.abn });
    const other = await subscribe(core, plan, { iban: IBANS.abn });
    await bookAll(core, (await batch(core)).data.id);
    await changeIban(core, same.customer, IBANS.abn2);
    await changeIban(core, other.customer, IBANS.rabo);
    await setClock(core, '2026-12-18T09:00:00Z');
    const xml = await fileOf(core, (await batch(core)).data.id);
    const [rcur, frst] = xml
      .split('<PmtInf>')
      .slice(1)
      .sort((a, b) => (a.includes('<SeqTp>FRST') ? 1 : b.includes('<SeqTp>FRST') ? -1 : 0));
    expect(values(rcur, 'SeqTp')).toEqual(['RCUR']);
    expect(values(rcur, 'AmdmntInd')).toEqual(['true']);
    expect(values(rcur.split('<OrgnlDbtrAcct>')[1], 'IBAN')[0]).toBe(IBANS.abn);
    expect(values(frst, 'SeqTp')).toEqual(['FRST']);
    expect(values(frst, 'AmdmntInd')).toEqual(['true']);
    expect(frst).toContain('<OrgnlDbtrAgt>');
    expect(values(frst.split('<OrgnlDbtrAgt>')[1], 'Id')[0]).toBe('SMNDA');
    expect(frst).not.toContain('<OrgnlDbtrAcct>');
    expect(values(frst, 'MndtId')).toEqual([`MNDT-${other.subscription}`]);
  });
});

describe('the collection date', () => {
  it('a due date on a closed TARGET2 day (Good Friday, then Easter Monday) moves to the next open one, the history saying why', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    await setClock(core, '2027-03-20T10:00:00Z');
    const plan = await makePlan(core);
    const member = await subscribe(core, plan, { signed: '2027-03-01' });
    const made = await ok(core, 'POST', '/transactions', 201, {
      data: {
        type: 'transaction',
        attributes: { subscription_id: member.subscription, amount: '20', due_date: '2027-03-26' },
      },
    });
    await setClock(core, '2027-03-20T10:00:01Z');
    const tx = (await ok(core, 'GET', `/transactions/${made.data.id}`, 200)).data.attributes;
    expect(tx.due_date).toBe('2027-03-30T00:00:00+02:00');
    expect(tx.history.at(-1)).toMatchObject({
      status: 'scheduled',
      reason: '2027-03-26 is no TARGET2 business day: collected on the next one',
      new_due_date: '2027-03-30T00:00:00+02:00',
    });
    const xml = await fileOf(core, (await batch(core, '2027-03-30')).data.id);
    expect(values(xml, 'ReqdColltnDt')).toEqual(['2027-03-22', '2027-03-30']);
  });

  it('is at least one business day after the batch is made: an overdue transaction goes on the next business day', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    await subscribe(core, await makePlan(core)); // due Monday November 23
    await setClock(core, '2026-11-25T15:00:00Z'); // Wednesday, not batched in time
    const [tx] = (await transactionsOf(core, (await ok(core, 'GET', '/subscriptions', 200)).data[0].id)).filter(
      (t: Json) => t.attributes.status === 'scheduled',
    );
    expect(tx.attributes.due_date).toBe('2026-11-23T00:00:00+01:00'); // still due, waiting: shown scheduled with its past date
    const made = await batch(core);
    expect(values(await fileOf(core, made.data.id), 'ReqdColltnDt')).toEqual(['2026-11-26']);
  });
});

describe('pre-notification', () => {
  it('tells the customer of the amount and the date when a collection is scheduled, in their language, by the mandate channel', async () => {
    const core = await sepaCore();
    const plan = await makePlan(core, { mandate_authentication_method: 'sms' });
    const member = await subscribe(core, plan, {
      language: 'en',
      first: 'Emma',
      last: 'Smit',
      telephone: '+31612345678',
    });
    const notices = (
      await ok(core, 'GET', '/notifications', 200, undefined, `filter[subscription_id]=${member.subscription}`)
    ).data.filter((n: Json) => n.attributes.kind === 'prenotification');
    expect(notices).toHaveLength(1);
    expect(notices[0].attributes).toMatchObject({
      channel: 'sms',
      recipient: '+31612345678',
      language: 'en',
      subject: 'Your direct debit is coming',
    });
    expect(notices[0].attributes.body).toBe(
      `Dear Emma Smit,\n\nOn 2026-12-07 we will collect € 12.50 by direct debit for Membership (mandate MNDT-${member.subscription}; Sportclub Zuid NL57ZZZ999999999999).\n`,
    );
  });

  it("moves a due date nearer than the period after the notice to the period's end (then to a business day), the history saying why", async () => {
    const core = await sepaCore({ settings: { prenotification_days: 3 } });
    const member = await subscribe(core, await makePlan(core));
    const [tx] = await transactionsOf(core, member.subscription);
    // Announced Saturday November 21: three days on is Tuesday November 24.
    expect(tx.attributes.due_date).toBe('2026-11-24T00:00:00+01:00');
    expect(tx.attributes.history).toEqual([
      {
        attempt: 1,
        reason: 'pre-notified on 2026-11-21: collected no sooner than 3 days after the notice',
        reason_code: null,
        recorded_on: '2026-11-21T11:00:00+01:00',
        status: 'scheduled',
        new_due_date: '2026-11-24T00:00:00+01:00',
      },
    ]);
  });

  it('reaches the transactions scheduled before the account went over to SEPA', async () => {
    const core = await sepaCore({ settings: { collection: 'simulated', prenotification_days: 2 } });
    const member = await subscribe(core, await makePlan(core)); // due today, simulated: no notice
    expect(
      (await ok(core, 'GET', '/notifications', 200)).data.filter((n: Json) => n.attributes.kind === 'prenotification'),
    ).toHaveLength(0);
    await updateAccount(core.store, core.clock, 'default', { collection: 'sepa' });
    const [tx] = await transactionsOf(core, member.subscription);
    expect(tx.attributes.due_date).toBe('2026-11-23T00:00:00+01:00');
    expect(tx.attributes.history.at(-1)).toMatchObject({
      status: 'scheduled',
      reason: 'pre-notified on 2026-11-21: collected no sooner than 2 days after the notice',
    });
    expect(
      (await ok(core, 'GET', '/notifications', 200)).data.filter((n: Json) => n.attributes.kind === 'prenotification'),
    ).toHaveLength(1);
  });
});

describe('transactions under SEPA', () => {
  it('are not collected by the clock: past their due date they wait for a batch and the bank', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const member = await subscribe(core, await makePlan(core));
    await setClock(core, '2026-12-10T10:00:00Z');
    expect((await transactionsOf(core, member.subscription)).map((t: Json) => t.attributes.status)).toEqual([
      'scheduled',
    ]);
  });

  it('cannot be canceled once in a batch; a batch can be cancelled before its export only, its transactions then free again', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const member = await subscribe(core, await makePlan(core));
    const made = await batch(core);
    const [tx] = await transactionsOf(core, member.subscription);
    const refused = await call(core, 'DELETE', `/transactions/${tx.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].detail).toContain(`collection batch ${made.data.id}`);
    const cancelled = await ok(core, 'PATCH', `/collections/${made.data.id}`, 200, {
      data: { type: 'collection', id: made.data.id, attributes: { status: 'cancelled' } },
    });
    expect(cancelled.data.attributes).toMatchObject({
      status: 'cancelled',
      outcomes: { pending: 0, booked: 0, rejected: 0, returned: 0 },
    });
    expect((await call(core, 'GET', `/collections/${made.data.id}/file`)).status).toBe(400);
    const again = await batch(core);
    expect(again.data.attributes.transactions).toBe(1);
    await fileOf(core, again.data.id);
    const late = await call(core, 'PATCH', `/collections/${again.data.id}`, {
      data: { type: 'collection', id: again.data.id, attributes: { status: 'cancelled' } },
    });
    expect(late.status).toBe(400);
    expect(late.body.errors[0].detail).toBe(
      `collection ${again.data.id} is exported: only a batch not yet exported can be cancelled (its file may be at the bank)`,
    );
    // Batched twice for the same date: its next cycle is scheduled once on that date.
    await setClock(core, '2026-11-23T09:00:00Z');
    expect((await transactionsOf(core, member.subscription)).map((t: Json) => t.attributes.status)).toEqual([
      'scheduled',
      'scheduled',
    ]);
  });

  it('cancelled out of a batch after the account went back to simulation, are collected by the clock again', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const member = await subscribe(core, await makePlan(core));
    const made = await batch(core);
    const back = await updateAccount(core.store, core.clock, 'default', { collection: 'simulated' });
    expect(back.ok).toBe(true);
    await ok(core, 'PATCH', `/collections/${made.data.id}`, 200, {
      data: { type: 'collection', id: made.data.id, attributes: { status: 'cancelled' } },
    });
    await setClock(core, '2026-12-10T10:00:00Z');
    const statuses = (await transactionsOf(core, member.subscription)).map((t: Json) => t.attributes.status);
    expect(statuses).toContain('fulfilled'); // the one taken out of the batch, collected on its due date
    expect(statuses).not.toContain('queued');
  });

  it('stay in their batch when the subscription is paused; a batch cancelled then cancels them', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const member = await subscribe(core, await makePlan(core));
    const made = await batch(core);
    await ok(core, 'PATCH', `/subscriptions/${member.subscription}`, 200, {
      data: { type: 'subscription', id: member.subscription, attributes: { status: 'paused' } },
    });
    const statuses = async () =>
      (await transactionsOf(core, member.subscription)).map((t: Json) => t.attributes.status);
    expect(await statuses()).toEqual(['scheduled']); // the batched one on its way
    await ok(core, 'PATCH', `/collections/${made.data.id}`, 200, {
      data: { type: 'collection', id: made.data.id, attributes: { status: 'cancelled' } },
    });
    expect(await statuses()).toEqual(['canceled']);
    // Its collection date passes with nothing to present: no next cycle, none when resumed before it either.
    await setClock(core, '2026-11-23T09:00:00Z');
    expect(await statuses()).toEqual(['canceled']);
  });

  it('refuse a simulated outcome, and an invoice paid by hand while its collection is in a batch', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const member = await subscribe(core, await makePlan(core));
    const invoice = await finalisedShirt(core, member.subscription);
    await setClock(core, '2026-11-21T10:00:01Z');
    const made = await batch(core);
    expect(made.data.attributes.transactions).toBe(2);
    const paid = await call(core, 'PATCH', `/invoices/${invoice.data.id}/pay`);
    expect(paid.status).toBe(400);
    expect(paid.body.errors[0].detail).toContain(`collection batch ${made.data.id}`);
    const { simulateOutcome } = await import('../../src/lib/core/transaction-writes.js');
    const [tx] = await transactionsOf(core, member.subscription);
    const simulated = await simulateOutcome(
      { store: core.store, clock: core.clock, account: await core.account() },
      tx.id,
      'failed',
      'AM04',
    );
    expect(simulated.ok).toBe(false);
    expect(JSON.stringify(simulated)).toContain("outcomes come from the bank's reports");
  });
});

/** Waits (at most 10 s) until `count` statements of the database wait for a lock (of the kind `event`, when given). */
async function lockWaits(watch: pg.Client, count: number, event?: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const waiting = await watch.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND ($1::text IS NULL OR wait_event = $1)`,
      [event ?? null],
    );
    if (Number(waiting.rows[0].n) >= count) return;
    if (Date.now() > deadline) throw new Error(`${count} statements never waited for a lock ${event ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Two batches of one account at the same moment: the second waits for the first as a whole (an
// advisory lock), then finds nothing left. Without it both read the same candidates, the second
// waits at their rows, then meets the first's items at the unique index of live items: all its work
// thrown away and done again.
describe.runIf(ENGINE === 'postgres')('two batches made at the same moment (PostgreSQL)', () => {
  it('the second waits for the first before reading what is due, then finds nothing and makes none', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const plan = await makePlan(core);
    const members = [await subscribe(core, plan), await subscribe(core, plan)];
    const ids = (await Promise.all(members.map((m) => transactionsOf(core, m.subscription)))).map(([tx]) => tx.id);
    const hold = new pg.Client({ connectionString: core.dbPath });
    const watch = new pg.Client({ connectionString: core.dbPath });
    await hold.connect();
    await watch.connect();
    try {
      // A write holding one of the transactions keeps the first batch from finishing meanwhile.
      await hold.query('BEGIN');
      await hold.query('SELECT id FROM transactions WHERE id = $1 FOR NO KEY UPDATE', [ids[1]]);
      const body = { data: { type: 'collection', attributes: {} } };
      const first = call(core, 'POST', '/collections', body);
      await lockWaits(watch, 1);
      const second = call(core, 'POST', '/collections', body);
      await lockWaits(watch, 1, 'advisory');
      await hold.query('COMMIT');
      const answers = await Promise.all([first, second]);
      expect(answers.map((a) => a.status)).toEqual([201, 200]);
      expect(answers[0].body.data.attributes.transactions).toBe(2);
      expect(answers[1].body.data).toBeNull();
      const items = await watch.query<{ transaction_id: string }>(
        'SELECT transaction_id FROM collection_items ORDER BY transaction_id',
      );
      expect(items.rows.map((r) => r.transaction_id)).toEqual([...ids].sort());
    } finally {
      await hold.end();
      await watch.end();
    }
  });
});

// SQLite runs one writer at a time: a write starts after a batch commits and reads what it wrote.
// PostgreSQL's writers meet at row locks, and a batch writes only its items.
describe.runIf(ENGINE === 'postgres')('a batch made at the same moment as a cancel (PostgreSQL)', () => {
  it('the cancel waits for the batch, then finds the transaction in it and changes nothing', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const member = await subscribe(core, await makePlan(core));
    const [tx] = await transactionsOf(core, member.subscription);
    const account = (await core.account()).id;
    const batch = new pg.Client({ connectionString: core.dbPath });
    const watch = new pg.Client({ connectionString: core.dbPath });
    await batch.connect();
    await watch.connect();
    try {
      // What making a batch does, held open: the transaction locked, a batch and its item written.
      await batch.query('BEGIN');
      const [{ seq }] = (
        await batch.query<{ seq: string }>('SELECT seq FROM transactions WHERE id = $1 FOR NO KEY UPDATE', [tx.id])
      ).rows;
      const made = await batch.query<{ id: string }>(
        `INSERT INTO collections (account_id, status, message_id, due_until, transaction_count, control_sum_cents, created_at, updated_at)
         VALUES ($1, 'open', 'RACE-1', '2026-11-23', 1, 1250, now(), now()) RETURNING id`,
        [account],
      );
      const id = made.rows[0].id;
      await batch.query(
        `INSERT INTO collection_items (account_id, collection_id, transaction_id, transaction_seq, subscription_id, attempt, state,
           end_to_end_id, sequence_type, collection_date, amount_cents, mandate_id, mandate_signed_on, debtor_name, debtor_iban,
           created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 1, 'pending', 'RACE-E2E-1', 'FRST', '2026-11-23', 1250, 'M-1', '2026-11-01', 'Jan',
           'NL91ABNA0417164300', now(), now())`,
        [account, id, tx.id, seq, member.subscription],
      );
      const cancel = call(core, 'DELETE', `/transactions/${tx.id}`);
      // The cancel is waiting for the transaction's lock before the batch commits.
      await lockWaits(watch, 1);
      await batch.query('COMMIT');
      const refused = await cancel;
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].detail).toContain(`collection batch ${id}`);
      expect((await transactionsOf(core, member.subscription)).map((t: Json) => t.attributes.status)).toEqual([
        'scheduled',
      ]);
    } finally {
      await batch.end();
      await watch.end();
    }
  });
});
