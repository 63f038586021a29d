// The bank's reports read back through the router (POST /bank-reports), on the engine of the run:
// booked, rejected and returned collections, the retries that follow only where a retry can cure
// the reason, the invoices, events and webhook deliveries as for simulated outcomes; the same file
// twice, entries matching nothing, files that are no report, all or nothing per file.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createAccount, updateAccount } from '../../src/lib/core/accounts.js';
import { transactionOf } from '../../src/lib/core/collections.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { all } from '../../src/lib/store/unit.js';
import { camt053For, camt054For, pain002For } from '../helpers/bank-reports.js';
import { ENGINE } from '../helpers/engine.js';
import {
  batch,
  call,
  CREDITOR,
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
  type Member,
} from '../helpers/sepa.js';
import type { TestCore } from '../helpers/store.js';

type Json = any;

/** A SEPA account (a day's notice) with members on a monthly plan of 12.50 with two retries, their first collections batched and exported for Monday 2026-11-23. */
async function exported(count: number, plan: Record<string, unknown> = {}) {
  const core = await sepaCore({ settings: { prenotification_days: 1 } });
  const planId = await makePlan(core, plan);
  const members: Member[] = [];
  for (let i = 0; i < count; i++)
    members.push(await subscribe(core, planId, { last: `Lid${i}`, iban: i % 2 ? IBANS.rabo : IBANS.abn }));
  const made = await batch(core);
  const xml = await fileOf(core, made.data.id);
  const e2e = values(xml, 'EndToEndId');
  return { core, members, batch: made.data, messageId: made.data.attributes.message_id as string, e2e };
}

/** The plan transaction a member's first batch holds (its first cycle). */
const first = async (core: TestCore, member: Member): Promise<Json> =>
  (await transactionsOf(core, member.subscription)).find(
    (t: Json) => t.attributes.due_date === '2026-11-23T00:00:00+01:00',
  );

const imported = async (core: TestCore, xml: string, status = 201): Promise<Json> => {
  const answer = await report(core, xml);
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
};

/** A member with 1,000 manual collections of 1.00 beside the plan's first of 12.50, batched and exported: the file's EndToEndIds and amounts in cents, in file order. */
async function thousandAndOne() {
  const core = await sepaCore({ settings: { prenotification_days: 1 } });
  const member = await subscribe(core, await makePlan(core));
  for (let i = 0; i < 1000; i++)
    await ok(core, 'POST', '/transactions', 201, {
      data: {
        type: 'transaction',
        attributes: { subscription_id: member.subscription, amount: '1.00', due_date: '2026-11-23' },
      },
    });
  await setClock(core, '2026-11-21T10:00:01Z'); // the manual transactions are scheduled by due work
  const made = await batch(core);
  expect(made.data.attributes.transactions).toBe(1001);
  const xml = await fileOf(core, made.data.id);
  const e2e = values(xml, 'EndToEndId');
  const amounts = [...xml.matchAll(/<InstdAmt Ccy="EUR">([^<]*)</g)].map((m) => Math.round(Number(m[1]) * 100));
  return { core, e2e, amounts };
}

/** A pain.002 rejecting one collection of the batch `messageId` with AM04 (insufficient funds), imported. */
const rejectedAM04 = (core: TestCore, messageId: string, endToEndId: string): Promise<Json> =>
  imported(
    core,
    pain002For({
      originalMessageId: messageId,
      blocks: [{ paymentInfoId: `${messageId}-1`, status: 'PART', rejects: [{ endToEndId, reasonCode: 'AM04' }] }],
    }),
  );

/**
 * thousandAndOne's debits all booked, the plan collection's (12.50) first, so in the first chunk of
 * 1,000 entries, and then its return or reject (`late`), in the next chunk: the import's answer.
 */
async function bookedThen(late: 'returns' | 'rejects', reasonCode: string) {
  const { core, e2e, amounts } = await thousandAndOne();
  const plan = e2e[amounts.indexOf(1250)];
  const booked = [plan, ...e2e.filter((id) => id !== plan)].map((endToEndId) => ({
    endToEndId,
    amountCents: endToEndId === plan ? 1250 : 100,
  }));
  const xml = camt054For({
    bookedOn: '2026-11-23',
    booked,
    [late]: [{ endToEndId: plan, amountCents: 1250, reasonCode }],
  });
  return { core, plan, body: await imported(core, xml) };
}

describe('POST /bank-reports', () => {
  it('a booked collection succeeds, then is fulfilled three days on and its invoice paid; events and webhooks follow as for a simulated one', async () => {
    const core = await sepaCore({ settings: { prenotification_days: 1 } });
    const member = await subscribe(core, await makePlan(core));
    await ok(core, 'PATCH', `/subscriptions/${member.subscription}`, 200, {
      data: {
        type: 'subscription',
        id: member.subscription,
        attributes: { transaction_webhook_url: 'http://127.0.0.1:9/hook' },
      },
    });
    const invoice = await finalisedShirt(core, member.subscription);
    await setClock(core, '2026-11-21T10:00:01Z');
    const made = await batch(core);
    const xml = await fileOf(core, made.data.id);
    const e2e = values(xml, 'EndToEndId');
    const amounts = [...xml.matchAll(/<InstdAmt Ccy="EUR">([^<]*)</g)].map((m) => Math.round(Number(m[1]) * 100));
    const body = await imported(
      core,
      camt054For({
        bookedOn: '2026-11-23',
        messageId: 'CAMT-1',
        booked: e2e.map((endToEndId, i) => ({ endToEndId, amountCents: amounts[i] })),
      }),
    );
    expect(body.data.type).toBe('bank-report');
    expect(body.data.attributes).toMatchObject({
      format: 'camt.054.001.02',
      message_id: 'CAMT-1',
      entries: 2,
      booked: 2,
      rejected: 0,
      returned: 0,
      unchanged: 0,
      unmatched: 0,
      unmatched_entries: [],
    });
    const invoiceTx = (await ok(core, 'GET', `/invoices/${invoice.data.id}`, 200)).data.relationships.transaction.data
      .id;
    expect((await ok(core, 'GET', `/transactions/${invoiceTx}`, 200)).data.attributes.status).toBe('succeeded');
    expect((await ok(core, 'GET', `/invoices/${invoice.data.id}`, 200)).data.attributes.status).toBe('open');
    await setClock(core, '2026-11-24T23:00:00Z');
    expect((await ok(core, 'GET', `/transactions/${invoiceTx}`, 200)).data.attributes.status).toBe('fulfilled');
    expect((await ok(core, 'GET', `/invoices/${invoice.data.id}`, 200)).data.attributes.status).toBe('paid');
    const events = (await ok(core, 'GET', '/events', 200, undefined, 'page[size]=100')).data
      .filter((e: Json) => e.attributes.transaction_id === invoiceTx)
      .map((e: Json) => e.attributes.event);
    expect(events).toEqual([
      'transaction.queued',
      'transaction.scheduled',
      'transaction.succeeded',
      'transaction.fulfilled',
    ]);
    const hooks = (await ok(core, 'GET', '/webhook-deliveries', 200, undefined, 'page[size]=100')).data.map(
      (d: Json) => d.attributes.event,
    );
    expect(hooks.filter((e: string) => e === 'transaction.succeeded')).toHaveLength(2);
    expect((await ok(core, 'GET', `/collections/${made.data.id}`, 200)).data.attributes.outcomes).toEqual({
      pending: 0,
      booked: 2,
      rejected: 0,
      returned: 0,
    });
  });

  it('a reject of a collection whose subscription was cancelled after its batch was exported is still retried: it was in progress, and the money is owed', async () => {
    const { core, members, messageId, e2e } = await exported(1);
    const cancelled = await ok(core, 'PATCH', `/subscriptions/${members[0].subscription}`, 200, {
      data: { type: 'subscription', id: members[0].subscription, attributes: { status: 'cancelled' } },
    });
    expect(cancelled.data.attributes.status).toBe('cancelled');
    // In the batch at the bank, it was not canceled with the subscription's other open collections.
    expect((await first(core, members[0])).attributes.status).toBe('scheduled');
    const body = await rejectedAM04(core, messageId, e2e[0]);
    expect(body.data.attributes).toMatchObject({ rejected: 1, unmatched: 0 });
    const tx = await first(core, members[0]);
    expect(tx.attributes.status).toBe('rescheduled');
    expect(tx.attributes.history.at(-1)).toMatchObject({
      status: 'rescheduled',
      attempt: 1,
      new_due_date: '2026-11-24T00:00:00+01:00',
    });
    await setClock(core, '2026-11-23T09:00:00Z');
    const again = await fileOf(core, (await batch(core)).data.id);
    expect(values(again, 'EndToEndId')).toEqual([`${tx.id.replace(/-/g, '')}-2`]);
    // The cancelled subscription's plan schedules no next cycle: the retry, in the batch, is all there is.
    expect((await transactionsOf(core, members[0].subscription)).map((t: Json) => t.attributes.status)).toEqual([
      'rescheduled',
    ]);
  });

  it('a reject before settlement (pain.002 RJCT) fails the collection, then a retry on a business day, presented again with a new EndToEndId', async () => {
    const { core, members, messageId, e2e } = await exported(1);
    const body = await rejectedAM04(core, messageId, e2e[0]);
    expect(body.data.attributes).toMatchObject({ format: 'pain.002.001.03', rejected: 1, unmatched: 0 });
    const tx = await first(core, members[0]);
    expect(tx.attributes.status).toBe('rescheduled');
    expect(tx.attributes.history.slice(-2)).toEqual([
      expect.objectContaining({ status: 'failed', reason_code: 'AM04', reason: 'Insufficient funds', attempt: 1 }),
      // Rejected on Saturday the 21st (the test's today): three days on is Tuesday the 24th.
      expect.objectContaining({ status: 'rescheduled', attempt: 1, new_due_date: '2026-11-24T00:00:00+01:00' }),
    ]);
    const statuses = async () =>
      (await transactionsOf(core, members[0].subscription)).map((t: Json) => t.attributes.status).sort();
    expect(await statuses()).toEqual(['rescheduled']);
    await setClock(core, '2026-11-23T09:00:00Z');
    // The reject does not stop the plan: its next cycle is scheduled on the date the first was presented for.
    expect(await statuses()).toEqual(['rescheduled', 'scheduled']);
    const again = await fileOf(core, (await batch(core)).data.id);
    const [retry] = values(again, 'EndToEndId');
    expect(retry).toBe(`${tx.id.replace(/-/g, '')}-2`);
    // The first collection never happened: the mandate is still to be used first.
    expect(values(again, 'SeqTp')).toEqual(['FRST']);
  });

  it('a retry is pre-notified like any collection: no sooner than the notice period after it, on a business day', async () => {
    const { core, members, messageId, e2e } = await exported(1);
    expect((await updateAccount(core.store, core.clock, 'default', { prenotification_days: 5 })).ok).toBe(true);
    await rejectedAM04(core, messageId, e2e[0]);
    const tx = await first(core, members[0]);
    // Rejected on Saturday the 21st: three days on would be the 24th, five days' notice makes it the 26th.
    expect(tx.attributes.history.at(-1)).toMatchObject({
      status: 'rescheduled',
      new_due_date: '2026-11-26T00:00:00+01:00',
    });
    const notices = (
      await ok(core, 'GET', '/notifications', 200, undefined, `filter[subscription_id]=${members[0].subscription}`)
    ).data.filter((n: Json) => n.attributes.kind === 'prenotification');
    expect(notices.map((n: Json) => /^Op (\S+) schrijven wij/m.exec(n.attributes.body)?.[1])).toContain('26-11-2026');
  });

  it('a return after settlement (MD06 within 8 weeks) charges the collection back, with the code and its text, then retries it', async () => {
    const { core, members, e2e } = await exported(1);
    await imported(core, camt054For({ bookedOn: '2026-11-23', booked: [{ endToEndId: e2e[0], amountCents: 1250 }] }));
    await setClock(core, '2026-12-02T09:00:00Z');
    const body = await imported(
      core,
      camt054For({
        bookedOn: '2026-12-02',
        messageId: 'CAMT-2',
        returns: [{ endToEndId: e2e[0], amountCents: 1250, reasonCode: 'MD06' }],
      }),
    );
    expect(body.data.attributes).toMatchObject({ returned: 1, booked: 0 });
    const tx = await first(core, members[0]);
    expect(tx.attributes.status).toBe('rescheduled');
    expect(tx.attributes.history.map((h: Json) => [h.status, h.reason_code, h.reason])).toEqual([
      ['scheduled', null, 'pre-notified on 2026-11-21: collected no sooner than 1 day after the notice'],
      ['succeeded', null, null],
      ['fulfilled', null, null],
      ['charged_back', 'MD06', 'Refund requested by the debtor'],
      ['rescheduled', null, null],
    ]);
  });

  it('a return a chunk of 1,000 entries after its booking, in the same file, charges back what the booking settled', async () => {
    // Entries are settled a thousand at a time, in the file's order: the plan collection's booking
    // in the first thousand, its return in the next, which reads it as the first left it.
    const { core, plan, body } = await bookedThen('returns', 'MD06');
    expect(body.data.attributes).toMatchObject({ booked: 1001, returned: 1, unchanged: 0, unmatched: 0 });
    const tx = (await ok(core, 'GET', `/transactions/${transactionOf(plan)}`, 200)).data;
    expect(tx.attributes.history.map((h: Json) => [h.status, h.reason_code])).toEqual([
      ['scheduled', null],
      ['succeeded', null],
      ['charged_back', 'MD06'],
      ['rescheduled', null],
    ]);
    expect(tx.attributes.status).toBe('rescheduled');
    // Each change once, from where the one before left it.
    const changes = await core.store.read(() =>
      all((q) =>
        q
          .selectFrom('events')
          .select(['from_status', 'status'])
          .where('transaction_id', '=', tx.id)
          .where('name', '=', 'transaction.status')
          .orderBy('id'),
      ),
    );
    expect(changes.map((e) => `${e.from_status} -> ${e.status}`)).toEqual([
      'null -> queued',
      'queued -> scheduled',
      'scheduled -> succeeded',
      'succeeded -> charged_back',
      'charged_back -> rescheduled',
    ]);
  }, 120_000);

  it('a reject a chunk of 1,000 entries after the booking of the same collection changes nothing: the item stays booked, as in a file of two entries', async () => {
    // The booking first; the reject (a bank's late notice of a collection it has since booked) is
    // in the next chunk, whose items are read while the first is settled.
    const { core, plan, body } = await bookedThen('rejects', 'AM04');
    expect(body.data.attributes).toMatchObject({ booked: 1001, rejected: 0, unchanged: 1, unmatched: 0 });
    const tx = (await ok(core, 'GET', `/transactions/${transactionOf(plan)}`, 200)).data;
    expect(tx.attributes.status).toBe('succeeded');
    const items = await core.store.read(() =>
      all((q) => q.selectFrom('collection_items').select(['state', 'reason_code']).where('end_to_end_id', '=', plan)),
    );
    expect(items).toEqual([{ state: 'booked', reason_code: null }]);
  }, 120_000);

  it('a second chunk of bookings, of other subscriptions, is read ahead: booked, its webhooks sent where they go, a stray entry listed', async () => {
    // One member with 1,000 manual collections fills the first chunk; the next holds another
    // member's collection (a transaction webhook on its subscription) and an EndToEndId of that
    // collection's transaction but another attempt, which names no collection.
    const core = await sepaCore({ settings: { prenotification_days: 1 } });
    const plan = await makePlan(core);
    const many = await subscribe(core, plan, { last: 'Many' });
    const other = await subscribe(core, plan, { last: 'Other', iban: IBANS.rabo });
    await ok(core, 'PATCH', `/subscriptions/${other.subscription}`, 200, {
      data: {
        type: 'subscription',
        id: other.subscription,
        attributes: { transaction_webhook_url: 'http://127.0.0.1:9/other' },
      },
    });
    for (let i = 0; i < 1000; i++)
      await ok(core, 'POST', '/transactions', 201, {
        data: {
          type: 'transaction',
          attributes: { subscription_id: many.subscription, amount: '1.00', due_date: '2026-11-23' },
        },
      });
    await setClock(core, '2026-11-21T10:00:01Z');
    const made = await batch(core);
    const xml = await fileOf(core, made.data.id);
    const e2e = values(xml, 'EndToEndId');
    const amounts = [...xml.matchAll(/<InstdAmt Ccy="EUR">([^<]*)</g)].map((m) => Math.round(Number(m[1]) * 100));
    const otherTx = (await first(core, other)).id as string;
    const theOther = e2e.find((id) => transactionOf(id) === otherTx)!;
    const ones = e2e.filter((_, i) => amounts[i] === 100);
    expect(ones).toHaveLength(1000);
    const manyPlan = transactionOf(e2e.find((id, i) => amounts[i] === 1250 && id !== theOther)!)!;
    const stray = theOther.replace(/-1$/, '-7');
    const body = await imported(
      core,
      camt054For({
        bookedOn: '2026-11-23',
        booked: [
          ...ones.map((endToEndId) => ({ endToEndId, amountCents: 100 })),
          { endToEndId: theOther, amountCents: 1250 },
          { endToEndId: stray, amountCents: 1250 },
        ],
      }),
    );
    expect(body.data.attributes).toMatchObject({ entries: 1002, booked: 1001, unchanged: 0, unmatched: 1 });
    expect(body.data.attributes.unmatched_entries).toEqual([
      expect.objectContaining({ end_to_end_id: stray, reason: 'no collection has this EndToEndId' }),
    ]);
    expect((await ok(core, 'GET', `/transactions/${otherTx}`, 200)).data.attributes.status).toBe('succeeded');
    expect((await ok(core, 'GET', `/transactions/${manyPlan}`, 200)).data.attributes.status).toBe('scheduled');
    const hooks = await core.store.read(() =>
      all((q) =>
        q
          .selectFrom('webhook_deliveries')
          .select(['url', 'event', 'body'])
          .where('event', '=', 'transaction.succeeded'),
      ),
    );
    // The one succeeded transaction with a webhook: its delivery, to its subscription's URL.
    expect(hooks.map((h) => [h.url, h.body.includes(otherTx)])).toEqual([['http://127.0.0.1:9/other', true]]);
  }, 120_000);

  it('a file found not well-formed after a chunk of 1,000 bookings was applied changes nothing', async () => {
    const { core, e2e, amounts } = await thousandAndOne();
    const xml = camt054For({
      bookedOn: '2026-11-23',
      booked: e2e.map((endToEndId, i) => ({ endToEndId, amountCents: amounts[i] })),
    });
    const broken = xml.replace(/<\/Document>\s*$/, '</Documnt>\n');
    expect(broken).not.toBe(xml);
    const count = async (table: 'events' | 'bank_reports' | 'due_work') =>
      (await core.store.read(() => all((q) => q.selectFrom(table).select('id')))).length;
    const before = { events: await count('events'), due: await count('due_work') };
    const answer = await report(core, broken);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toMatch(/not well-formed XML at line \d+/);
    expect(await count('bank_reports')).toBe(0);
    expect({ events: await count('events'), due: await count('due_work') }).toEqual(before);
    const states = await core.store.read(() =>
      all((q) => q.selectFrom('transactions').select('status').where('status', '<>', 'scheduled')),
    );
    expect(states).toEqual([]);
    // Read whole and well-formed, the same bookings apply.
    expect((await imported(core, xml)).data.attributes).toMatchObject({ booked: 1001, unmatched: 0 });
  }, 120_000);

  it('a return of an invoice credited in full after its collection is not retried: failed for good, no next batch, nothing owed back', async () => {
    const core = await sepaCore({ settings: { prenotification_days: 1 } });
    const member = await subscribe(core, await makePlan(core, { frequency: 'once' }));
    const invoice = await finalisedShirt(core, member.subscription);
    const txId = invoice.data.relationships.transaction.data.id;
    await setClock(core, '2026-11-21T10:00:01Z');
    const made = await batch(core);
    const xml = await fileOf(core, made.data.id);
    const amounts = [...xml.matchAll(/<InstdAmt Ccy="EUR">([^<]*)</g)].map((m) => Math.round(Number(m[1]) * 100));
    const e2e = values(xml, 'EndToEndId')[amounts.indexOf(2420)];
    await imported(core, camt054For({ bookedOn: '2026-11-23', booked: [{ endToEndId: e2e, amountCents: 2420 }] }));
    const credit = await ok(core, 'POST', `/invoices/${invoice.data.id}/credit`, 200);
    await ok(core, 'PATCH', `/invoices/${credit.data.id}/finalise`, 200);
    const refundDue = async () =>
      (await ok(core, 'GET', '/invoices', 200, undefined, 'filter[refund_due]=true')).data.map((i: Json) => i.id);
    expect(await refundDue()).toEqual([credit.data.id]);
    await setClock(core, '2026-12-02T09:00:00Z');
    const returned = camt054For({
      bookedOn: '2026-12-02',
      messageId: 'CAMT-2',
      returns: [{ endToEndId: e2e, amountCents: 2420, reasonCode: 'MD06' }],
    });
    expect((await imported(core, returned)).data.attributes).toMatchObject({ returned: 1 });
    const tx = (await ok(core, 'GET', `/transactions/${txId}`, 200)).data.attributes;
    expect(tx.status).toBe('failed');
    expect(tx.history.map((h: Json) => h.status)).toEqual([
      'scheduled',
      'succeeded',
      'fulfilled',
      'charged_back',
      'failed',
    ]);
    expect((await ok(core, 'GET', `/invoices/${invoice.data.id}`, 200)).data.attributes.status).toBe('charged_back');
    // The bank gave the money back: the credit is owed no more, and no batch presents it again.
    expect(await refundDue()).toEqual([]);
    await setClock(core, '2026-12-20T09:00:00Z');
    expect((await batch(core)).data).toBeNull();
  });

  it('a reason no retry cures (AC04) fails at once and flags the mandate; its collections are left out until the IBAN changes', async () => {
    const { core, members, e2e } = await exported(2);
    await imported(
      core,
      camt054For({
        bookedOn: '2026-11-23',
        booked: [{ endToEndId: e2e[1], amountCents: 1250 }],
        returns: [{ endToEndId: e2e[0], amountCents: 1250, reasonCode: 'AC04' }],
      }),
    );
    const tx = await first(core, members[0]);
    expect(tx.attributes.status).toBe('failed');
    expect(tx.attributes.history.map((h: Json) => [h.status, h.reason_code])).toEqual([
      ['scheduled', null],
      ['succeeded', null],
      ['charged_back', 'AC04'],
      ['failed', 'AC04'],
    ]);
    const subscription = await ok(core, 'GET', `/subscriptions/${members[0].subscription}`, 200);
    expect(subscription.data.meta).toEqual({
      mandate_attention: { reason_code: 'AC04', reason: 'Account closed', flagged_at: '2026-11-21T11:00:00+01:00' },
    });
    expect((await ok(core, 'GET', `/subscriptions/${members[1].subscription}`, 200)).data.meta).toBeUndefined();
    await setClock(core, '2026-12-18T09:00:00Z');
    const next = await batch(core);
    expect(next.data.attributes.transactions).toBe(1);
    expect(next.meta.left_out.map((t: Json) => [t.subscription_id, t.reason])).toEqual([
      [members[0].subscription, 'the mandate needs attention: the bank answered AC04 (Account closed) on 2026-11-21'],
    ]);
    await ok(core, 'PATCH', `/customers/${members[0].customer}`, 200, {
      data: { type: 'customer', id: members[0].customer, attributes: { iban: IBANS.be, bank_holder: 'Lid Nul' } },
    });
    expect((await ok(core, 'GET', `/subscriptions/${members[0].subscription}`, 200)).data.meta).toBeUndefined();
    expect((await batch(core)).data.attributes.transactions).toBe(1);
  });

  it('the same file again changes nothing and says so; a statement of what a notification booked changes nothing either', async () => {
    const { core, e2e } = await exported(2);
    const xml = camt054For({
      bookedOn: '2026-11-23',
      booked: e2e.map((endToEndId) => ({ endToEndId, amountCents: 1250 })),
    });
    const firstTime = await imported(core, xml);
    const events = async () => (await core.store.read(() => all((q) => q.selectFrom('events').select('id')))).length;
    const before = await events();
    const again = await imported(core, xml, 200);
    expect(again.meta).toEqual({ already_imported: true });
    expect(again.data).toEqual(firstTime.data);
    const statement = await imported(
      core,
      camt053For({
        bookedOn: '2026-11-23',
        messageId: 'STMT-1',
        booked: e2e.map((endToEndId) => ({ endToEndId, amountCents: 1250 })),
      }),
    );
    expect(statement.data.attributes).toMatchObject({ format: 'camt.053.001.02', booked: 0, unchanged: 2 });
    expect(await events()).toBe(before);
  });

  it('lists the entries that match nothing, and applies the rest', async () => {
    const { core, e2e, messageId } = await exported(1);
    const body = await imported(
      core,
      camt054For({
        format: 'camt.054.001.08',
        bookedOn: '2026-11-23',
        booked: [
          { endToEndId: e2e[0], amountCents: 1250, messageId },
          { endToEndId: 'SOMEONE-ELSE-1', amountCents: 999 },
          { endToEndId: e2e[0].replace(/-1$/, '-7'), amountCents: 1250 },
        ],
      }),
    );
    expect(body.data.attributes).toMatchObject({ format: 'camt.054.001.08', entries: 3, booked: 1, unmatched: 2 });
    expect(body.data.attributes.unmatched_entries).toEqual([
      expect.objectContaining({
        end_to_end_id: 'SOMEONE-ELSE-1',
        amount: '9.99',
        outcome: 'booked',
        reason: 'no collection has this EndToEndId',
      }),
      expect.objectContaining({
        end_to_end_id: e2e[0].replace(/-1$/, '-7'),
        reason: 'no collection has this EndToEndId',
      }),
    ]);
  });

  it("never settles another account's collection: its EndToEndId is an entry that matches nothing", async () => {
    const { core, e2e, messageId, members } = await exported(1);
    const made = await createAccount(core.store, core.clock, 'other');
    if (!made.ok) throw new Error(JSON.stringify(made));
    const other = await updateAccount(core.store, core.clock, 'other', { collection: 'sepa', ...CREDITOR });
    expect(other.ok).toBe(true);
    const answer = (await core.router.handle(
      {
        method: 'POST',
        path: '/bank-reports',
        upload: {
          contentType: 'application/xml',
          body: Buffer.from(
            camt054For({ bookedOn: '2026-11-23', booked: [{ endToEndId: e2e[0], amountCents: 1250, messageId }] }),
          ),
        },
      },
      made.value.account,
    )) as { status: number; body: Json };
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.data.attributes).toMatchObject({ entries: 1, booked: 0, unmatched: 1 });
    expect(answer.body.data.attributes.unmatched_entries).toEqual([
      expect.objectContaining({ end_to_end_id: e2e[0], reason: 'no collection has this EndToEndId' }),
    ]);
    // Its own account's collection is as it was, and still settles by its own account's report.
    expect((await first(core, members[0])).attributes.status).not.toBe('succeeded');
    const own = await imported(
      core,
      camt054For({ bookedOn: '2026-11-23', booked: [{ endToEndId: e2e[0], amountCents: 1250, messageId }] }),
    );
    expect(own.data.attributes).toMatchObject({ entries: 1, booked: 1, unmatched: 0 });
    expect((await first(core, members[0])).attributes.status).toBe('succeeded');
  });

  it('refuses a file that is no bank report, or not well-formed (naming the line), changing nothing: all or nothing per file', async () => {
    const { core, e2e, batch: made } = await exported(1);
    const notReport = await report(core, await fileOf(core, made.id));
    expect(notReport.status).toBe(400);
    expect(notReport.body.errors[0]).toMatchObject({ title: 'Invalid Document' });
    expect(notReport.body.errors[0].detail).toContain(
      'a pain.008.001.02 file is a collection file for the bank, not a report from it',
    );
    const whole = camt054For({ bookedOn: '2026-11-23', booked: [{ endToEndId: e2e[0], amountCents: 1250 }] });
    const broken = whole.replace(/<\/Ntfctn>/, '</Ntfctn'); // the entry is whole; the file is not
    const malformed = await report(core, broken);
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].detail).toMatch(/^the report is not well-formed XML at line \d+: [a-z]/);
    expect((await ok(core, 'GET', `/collections/${made.id}`, 200)).data.attributes.outcomes).toEqual({
      pending: 1,
      booked: 0,
      rejected: 0,
      returned: 0,
    });
    expect(await core.store.read(() => all((q) => q.selectFrom('bank_reports').select('id')))).toEqual([]);
    expect((await call(core, 'POST', '/bank-reports', { data: { type: 'bank-report' } })).status).toBe(415);
  });

  it('a whole block booked in one entry (batch booking) applies to every collection of it the report did not settle one by one', async () => {
    const { core, members, messageId, e2e } = await exported(3);
    await imported(
      core,
      pain002For({
        originalMessageId: messageId,
        blocks: [
          { paymentInfoId: `${messageId}-1`, status: 'PART', rejects: [{ endToEndId: e2e[0], reasonCode: 'MD07' }] },
        ],
      }),
    );
    const body = await imported(
      core,
      camt054For({
        bookedOn: '2026-11-23',
        messageId: 'CAMT-B',
        batchBooked: true,
        booked: e2e
          .slice(1)
          .map((endToEndId) => ({ endToEndId, amountCents: 1250, messageId, paymentInfoId: `${messageId}-1` })),
      }),
    );
    expect(body.data.attributes).toMatchObject({ unmatched: 0, booked: 2 });
    expect(await Promise.all(members.map(async (m) => (await first(core, m)).attributes.status))).toEqual([
      'failed',
      'succeeded',
      'succeeded',
    ]);
  });

  it('a file rejected whole (pain.002 group RJCT) fails every collection of its batch, those named with their own reason', async () => {
    const { core, members, messageId, e2e } = await exported(3);
    const body = await imported(
      core,
      pain002For({
        originalMessageId: messageId,
        groupStatus: 'RJCT',
        groupReasonCode: 'FF01',
        blocks: [{ paymentInfoId: `${messageId}-1`, rejects: [{ endToEndId: e2e[2], reasonCode: 'AC01' }] }],
      }),
    );
    expect(body.data.attributes).toMatchObject({ rejected: 3, unchanged: 0, unmatched: 0 });
    const codes = await Promise.all(
      members.map(
        async (m) => (await first(core, m)).attributes.history.find((h: Json) => h.status === 'failed').reason_code,
      ),
    );
    expect(codes).toEqual(['FF01', 'FF01', 'AC01']);
  });
});

// PostgreSQL keeps half of each page of collection items free (migration 19), so that a report's
// update of an item is a new version on the item's own page, which no index is told of. On full
// pages each new version went to another page, with an entry in each of the table's indexes.
describe.runIf(ENGINE === 'postgres')('collection items updated in place (PostgreSQL)', () => {
  it('a booking leaves each item on the page it was written to', async () => {
    const { core, batch: made, messageId, e2e } = await exported(120);
    const xml = await fileOf(core, made.id);
    const amounts = [...xml.matchAll(/<InstdAmt Ccy="EUR">([^<]*)</g)].map((m) => Math.round(Number(m[1]) * 100));
    const client = new pg.Client({ connectionString: core.dbPath });
    await client.connect();
    try {
      const pages = async () =>
        (
          await client.query<{ id: string; page: string }>(
            "SELECT id, split_part(trim(both '()' from ctid::text), ',', 1) AS page FROM collection_items ORDER BY id",
          )
        ).rows;
      const before = await pages();
      expect(new Set(before.map((row) => row.page)).size).toBeGreaterThan(2);
      const answer = await report(
        core,
        camt054For({
          bookedOn: '2026-11-23',
          booked: e2e.map((endToEndId, i) => ({ endToEndId, amountCents: amounts[i], messageId })),
        }),
      );
      expect(answer.body.data.attributes.booked).toBe(120);
      expect(await pages()).toEqual(before);
    } finally {
      await client.end();
    }
  });
});
