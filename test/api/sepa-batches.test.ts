// Collection batches (SEPA) through the router, on the engine of the run: what goes into a batch
// and what is left out, the file a batch exports (valid against the official schemas, the same
// bytes every time) and the SEPA rules it keeps. TEST_NOW is Saturday 2026-11-21, 11:00 in Amsterdam.
import { describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/lib/core/accounts.js';
import { runDue } from '../../src/lib/core/due.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { all, run } from '../../src/lib/store/unit.js';
import { expectValid } from '../helpers/xmllint.js';
import {
  batch,
  call,
  CREDITOR,
  fileOf,
  IBANS,
  makePlan,
  type Member,
  ok,
  sepaCore,
  subscribe,
  transactionsOf,
  values,
} from '../helpers/sepa.js';
import { testCore } from '../helpers/store.js';

const ONE_DAY = { prenotification_days: 1 };

describe('accounts collecting by SEPA', () => {
  it('take a creditor id only with valid check digits (ISO 7064 mod 97-10), stored without spaces in upper case', async () => {
    const core = await testCore();
    const wrong = await updateAccount(core.store, core.clock, 'default', { creditor_id: 'NL98ZZZ999999999999' });
    expect(wrong.ok).toBe(false);
    expect(JSON.stringify(wrong)).toContain('creditor_id');
    const right = await updateAccount(core.store, core.clock, 'default', { creditor_id: 'nl57 zzz 9999 9999 9999' });
    expect(right.ok && right.value.creditor_id).toBe('NL57ZZZ999999999999');
  });

  it('refuse a bad IBAN, BIC, collection mode or pre-notification period, each named, changing nothing', async () => {
    const core = await testCore();
    const refused = await updateAccount(core.store, core.clock, 'default', {
      creditor_iban: 'NL00ABNA0417164300',
      creditor_bic: 'XX',
      creditor_name: '★',
      collection: 'bank',
      prenotification_days: 0,
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok && refused.failure.kind === 'invalid_attribute') {
      expect(refused.failure.problems.map((p) => p.attribute).sort()).toEqual([
        'collection',
        'creditor_bic',
        'creditor_iban',
        'creditor_name',
        'prenotification_days',
      ]);
    } else throw new Error(JSON.stringify(refused));
    expect((await core.account()).collection).toBe('simulated');
  });

  it('collect by simulation until told otherwise: a batch is refused, naming the setting', async () => {
    const core = await testCore();
    const answer = await call(core, 'POST', '/collections', { data: { type: 'collection', attributes: {} } });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].title).toBe('Invalid State');
    expect(answer.body.errors[0].detail).toContain('--collection sepa');
  });
});

describe('collections create', () => {
  it('puts a due SEPA transaction into a batch, once: a second batch finds nothing, and the batch answers its totals and blocks', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const plan = await makePlan(core);
    const a = await subscribe(core, plan);
    const b = await subscribe(core, plan, { iban: IBANS.rabo });
    const made = await batch(core);
    expect(made.data.type).toBe('collection');
    expect(made.data.attributes).toMatchObject({
      status: 'open',
      transactions: 2,
      control_sum: '25.00',
      due_until: '2026-11-23T00:00:00+01:00',
    });
    expect(made.data.attributes.message_id).toBe(`BILLING-20261121-${made.data.id}`);
    // Due Saturday, announced today with a day's notice: collected on Monday, the first TARGET2 business day after.
    expect(made.data.attributes.blocks).toEqual([
      { collection_date: '2026-11-23T00:00:00+01:00', sequence_type: 'FRST', transactions: 2, control_sum: '25.00' },
    ]);
    expect(made.meta.left_out).toEqual([]);
    const again = await batch(core);
    expect(again.data).toBeNull();
    expect(again.meta.left_out).toEqual([]);
    const scheduled = async (member: { subscription: string }) =>
      (await transactionsOf(core, member.subscription)).filter((t) => t.attributes.status === 'scheduled');
    // The next cycle is scheduled on the collection date (Monday), as the clock does a simulated collection's.
    for (const member of [a, b]) expect(await scheduled(member)).toHaveLength(1);
    await setClock(core, '2026-11-22T22:59:59Z');
    for (const member of [a, b]) expect(await scheduled(member)).toHaveLength(1);
    await setClock(core, '2026-11-22T23:00:00Z');
    for (const member of [a, b]) expect(await scheduled(member)).toHaveLength(2);
  });

  it('leaves out what cannot be collected, each with its reason, and never writes it into the file', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const plan = await makePlan(core);
    const good = await subscribe(core, plan, { last: 'Goed' });
    const noIban = await subscribe(core, plan, { iban: null, last: 'Zonder' });
    const unaccepted = await subscribe(core, plan, { accepted: false, last: 'Nog' });
    const expired = await subscribe(core, plan, { signed: '2023-11-20', last: 'Oud' });
    // Values the file cannot carry are found here, never by the writer after the batch is exported.
    const slashes = await subscribe(core, plan, { mandate: '/LID//1', last: 'Streep' });
    const noLetters = await subscribe(core, plan, { holder: '★★', last: 'Ster' });
    const made = await batch(core);
    expect(made.data.attributes.transactions).toBe(1);
    const reasons = Object.fromEntries(made.meta.left_out.map((t: any) => [t.subscription_id, t.reason]));
    expect(reasons).toEqual({
      [noIban.subscription]: 'the customer has no IBAN',
      [unaccepted.subscription]: 'the mandate is not accepted',
      [expired.subscription]:
        'the mandate expired: signed and never collected on 2023-11-20, 36 months before 2026-11-23',
      [slashes.subscription]: `the mandate code "/LID//1" cannot go into a SEPA file: it starts or ends with '/'`,
      [noLetters.subscription]: `the account holder's name has no letter a SEPA file can carry (billing customers update ${noLetters.customer} --bank-holder NAME)`,
    });
    const xml = await fileOf(core, made.data.id);
    expect(values(xml, 'MndtId')).toEqual([`MNDT-${good.subscription}`]);
    // Left out, they wait: the next batch lists them again.
    expect((await batch(core)).meta.left_out).toHaveLength(5);
  });

  it('leaves everything out, naming the missing settings, while the account has no creditor', async () => {
    const core = await sepaCore({ settings: { ...ONE_DAY, creditor_id: '', creditor_iban: '' } });
    const plan = await makePlan(core);
    await subscribe(core, plan);
    const made = await batch(core);
    expect(made.data).toBeNull();
    expect(made.meta.left_out[0].reason).toBe(
      'account default is not set up for SEPA: it needs a creditor id (--creditor-id), a creditor IBAN (--creditor-iban) (billing accounts update default)',
    );
  });

  it('takes an until of at most 14 days ahead, and only what is due by it', async () => {
    const core = await sepaCore();
    const plan = await makePlan(core);
    await subscribe(core, plan); // announced today with 14 days' notice: due 2026-12-07 (Dec 5 is a Saturday)
    expect(
      (await call(core, 'POST', '/collections', { data: { type: 'collection', attributes: { until: '2026-12-06' } } }))
        .status,
    ).toBe(400);
    expect((await batch(core, '2026-12-05')).data).toBeNull();
    await setClock(core, '2026-11-24T09:00:00Z');
    expect((await batch(core, '2026-12-07')).data.attributes.transactions).toBe(1);
  });
});

describe('a batch reaching its collection date', () => {
  it("schedules each plan's next cycle: one piece of due work per block, done a page at a time", async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const plan = await makePlan(core);
    const members: Member[] = [];
    for (let n = 0; n < 5; n++) members.push(await subscribe(core, plan, { n }));
    const made = await batch(core);
    const presented = () =>
      core.store.read(() =>
        all((q) =>
          q
            .selectFrom('due_work')
            .select(['kind', 'subject', 'due_at'])
            .where('kind', 'like', '%.presented')
            .orderBy('id'),
        ),
      );
    expect(await presented()).toEqual([
      {
        kind: 'collection.presented',
        subject: `${made.data.id} 2026-11-23 FRST 0`,
        due_at: new Date('2026-11-23T00:00:00+01:00').toISOString(),
      },
    ]);
    const count = async () =>
      Promise.all(members.map(async (m) => (await transactionsOf(core, m.subscription)).length));
    expect(await count()).toEqual([1, 1, 1, 1, 1]);
    // Two transactions a batch of due work: the block's piece is done in three, each going on from the last item done.
    const report = await runDue(core.store, '2026-11-23T08:00:00Z', { batchSize: 2, allowPrivateWebhooks: false });
    expect(report.done).toBe(3);
    expect(await presented()).toEqual([]);
    expect(await count()).toEqual([2, 2, 2, 2, 2]);
  });

  it('schedules the next cycle from the due work of a batch made by an earlier version, one piece per transaction', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const plan = await makePlan(core);
    const members = [await subscribe(core, plan, { n: 1 }), await subscribe(core, plan, { n: 2 })];
    await batch(core);
    // As a batch wrote its work before: a transaction.presented piece for each transaction, at the same moment.
    await core.store.write(function* () {
      const [piece] = yield* all((q) =>
        q.selectFrom('due_work').selectAll().where('kind', '=', 'collection.presented'),
      );
      yield* run((q) => q.deleteFrom('due_work').where('id', '=', piece.id));
      for (const m of members) {
        const [tx] = yield* all((q) =>
          q.selectFrom('transactions').select('id').where('subscription_id', '=', Number(m.subscription)),
        );
        yield* run((q) =>
          q.insertInto('due_work').values({ ...piece, id: undefined, kind: 'transaction.presented', subject: tx.id }),
        );
      }
    });
    await runDue(core.store, '2026-11-23T08:00:00Z', { allowPrivateWebhooks: false });
    for (const m of members) expect(await transactionsOf(core, m.subscription)).toHaveLength(2);
  });
});

/** The debits of a file in order: EndToEndId, amount, sequence type of its block, date of its block, mandate, signed, debtor, IBAN, text. */
function debits(xml: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  for (const block of xml.split('<PmtInf>').slice(1)) {
    const head = block.split('<DrctDbtTxInf>')[0];
    for (const debit of block.split('<DrctDbtTxInf>').slice(1)) {
      const one = (name: string) => values(debit, name)[0] ?? '';
      found.push({
        e2e: one('EndToEndId'),
        amount: /<InstdAmt Ccy="EUR">([^<]*)</.exec(debit)![1],
        seq: values(head, 'SeqTp')[0],
        date: values(head, 'ReqdColltnDt')[0],
        mandate: one('MndtId'),
        signed: one('DtOfSgntr'),
        debtor: values(debit.split('<Dbtr>')[1] ?? '', 'Nm')[0],
        iban: values(debit.split('<DbtrAcct>')[1] ?? '', 'IBAN')[0],
        text: one('Ustrd'),
      });
    }
  }
  return found;
}

describe('the file of a batch', () => {
  it('validates against both official schemas, carries every total and debit field, and exports the same bytes every time', async () => {
    const core = await sepaCore({ settings: { ...ONE_DAY, creditor_bic: 'ABNANL2A' } });
    const plan = await makePlan(core, { name: 'Lidmaatschap Zuid' });
    const a = await subscribe(core, plan, { first: 'Anna', last: 'de Vries', signed: '2026-10-15' });
    const b = await subscribe(core, plan, { first: 'Bram', last: 'Bakker', iban: IBANS.be });
    await ok(core, 'POST', '/transactions', 201, {
      data: {
        type: 'transaction',
        attributes: {
          subscription_id: b.subscription,
          amount: '7.25',
          due_date: '2026-11-23',
          description: 'Extra les',
        },
      },
    });
    await setClock(core, '2026-11-21T10:00:01Z'); // the manual transaction is scheduled by due work
    const made = await batch(core);
    const id = made.data.id;
    const v2 = await fileOf(core, id);
    const v8 = await fileOf(core, id, 'pain.008.001.08');
    await expectValid([v2], 'pain.008.001.02');
    await expectValid([v8], 'pain.008.001.08');
    // The creditor is frozen at the first export: changing it afterwards changes no byte.
    await updateAccount(core.store, core.clock, 'default', { creditor_name: 'Another Name' });
    expect(await fileOf(core, id)).toBe(v2);
    expect(await fileOf(core, id, 'pain.008.001.08')).toBe(v8);

    expect(values(v2, 'MsgId')).toEqual([made.data.attributes.message_id]);
    expect(values(v2, 'CreDtTm')).toEqual(['2026-11-21T10:00:01Z']);
    // The file, then each block (one collection date, one sequence type): FRST and RCUR.
    expect(values(v2, 'NbOfTxs')).toEqual(['3', '2', '1']);
    expect(values(v2, 'CtrlSum')).toEqual(['32.25', '25.00', '7.25']);
    expect(values(v2, 'ReqdColltnDt')).toEqual(['2026-11-23', '2026-11-23']);
    expect(values(v2, 'Nm').slice(0, 2)).toEqual(['Sportclub Zuid', 'Sportclub Zuid']);
    expect(values(v2.split('<CdtrAcct>')[1], 'IBAN')[0]).toBe(CREDITOR.creditor_iban);
    expect(values(v2, 'BIC')[0]).toBe('ABNANL2A');
    expect(values(v2, 'BICFI')).toEqual([]);
    expect(values(v8, 'BICFI')[0]).toBe('ABNANL2A');
    expect(values(v2, 'Id')).toContain(CREDITOR.creditor_id);
    const [first, second, third] = debits(v2);
    const txs = await transactionsOf(core, a.subscription);
    const collected = txs.find((t) => t.attributes.due_date === '2026-11-23T00:00:00+01:00')!;
    expect(first).toEqual({
      e2e: `${collected.id.replace(/-/g, '')}-1`,
      amount: '12.50',
      seq: 'FRST',
      date: '2026-11-23',
      mandate: `MNDT-${a.subscription}`,
      signed: '2026-10-15',
      debtor: 'Anna de Vries',
      iban: IBANS.abn,
      text: 'Lidmaatschap Zuid',
    });
    expect(first.e2e.length).toBeLessThanOrEqual(35);
    expect([second.debtor, second.iban, second.amount, second.seq]).toEqual(['Bram Bakker', IBANS.be, '12.50', 'FRST']);
    // Two collections of one new mandate in one batch: the first is FRST, the one after it RCUR.
    expect([third.amount, third.text, third.seq]).toEqual(['7.25', 'Extra les', 'RCUR']);
  });

  it('writes a block of more debits than a page (1,000 are read at a time) whole and in order, the same every time', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const member = await subscribe(core, await makePlan(core));
    // The plan's first collection (FRST), then 1,001 more under the same mandate on the same day (RCUR): two pages.
    for (let i = 0; i < 1_001; i++) {
      const amount = `${1 + (i % 9)}.${String(i % 100).padStart(2, '0')}`;
      await ok(core, 'POST', '/transactions', 201, {
        data: {
          type: 'transaction',
          attributes: { subscription_id: member.subscription, amount, due_date: '2026-11-23' },
        },
      });
    }
    await setClock(core, '2026-11-21T10:00:01Z'); // the manual transactions are scheduled by due work
    const made = await batch(core);
    expect(made.data.attributes.transactions).toBe(1_002);
    const xml = await fileOf(core, made.data.id);
    await expectValid([xml], 'pain.008.001.02');
    expect(await fileOf(core, made.data.id)).toBe(xml);
    const rcur = xml.split('<PmtInf>')[2];
    expect([values(rcur, 'SeqTp'), values(rcur, 'NbOfTxs')]).toEqual([['RCUR'], ['1001']]);
    const items = await core.store.read(() =>
      all((q) =>
        q
          .selectFrom('collection_items')
          .select(['end_to_end_id', 'amount_cents'])
          .where('collection_id', '=', Number(made.data.id))
          .where('sequence_type', '=', 'RCUR')
          .orderBy('id'),
      ),
    );
    expect(items).toHaveLength(1_001);
    expect(values(rcur, 'EndToEndId')).toEqual(items.map((item) => item.end_to_end_id));
    expect([...rcur.matchAll(/<InstdAmt Ccy="EUR">([^<]*)</g)].map((m) => m[1])).toEqual(
      items.map((item) => (item.amount_cents / 100).toFixed(2)),
    );
    const sum = items.reduce((total, item) => total + item.amount_cents, 0);
    expect(values(rcur, 'CtrlSum')).toEqual([(sum / 100).toFixed(2)]);
  }, 60_000);

  it('is refused, naming what is missing, when the account lost its creditor settings before the first export', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    await subscribe(core, await makePlan(core));
    const made = await batch(core);
    await updateAccount(core.store, core.clock, 'default', { creditor_iban: '' });
    const answer = await call(core, 'GET', `/collections/${made.data.id}/file`);
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].detail).toBe(
      'account default cannot export: it needs a creditor IBAN (--creditor-iban) (billing accounts update default)',
    );
    expect((await ok(core, 'GET', `/collections/${made.data.id}`, 200)).data.attributes.status).toBe('open');
  });

  it('transliterates names to the EPC Latin set, never dropping them', async () => {
    const core = await sepaCore({ settings: ONE_DAY });
    const plan = await makePlan(core, { name: 'Größe: Zoë’s “Ångström” box' });
    await subscribe(core, plan, { first: 'Zoë', last: 'Ångström', holder: 'Zoë Ångström' });
    await subscribe(core, plan, { first: 'Jürgen', last: 'Groß', holder: 'Jürgen Groß' });
    const xml = await fileOf(core, (await batch(core)).data.id);
    await expectValid([xml], 'pain.008.001.02');
    expect(debits(xml).map((d) => d.debtor)).toEqual(['Zoe Angstrom', 'Jurgen Gross']);
    for (const text of debits(xml).map((d) => d.text)) expect(text).toMatch(/^Grosse: Zoe.s .Angstrom. box$/);
  });
});
