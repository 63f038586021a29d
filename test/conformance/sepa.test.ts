// Collecting by SEPA through every door (the router in process, and `billing serve` over loopback
// spoken to by the HTTP transport), on the engine of the run: a batch made, its pain.008 file
// streamed (GET /collections/{id}/file) and valid, the bank's camt.054 uploaded (POST
// /bank-reports) and applied. Each door answers the same documents, and the same file but for the
// random transaction ids its EndToEndIds are made of.
import { describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/lib/core/accounts.js';
import type { Transport } from '../../src/lib/transport/types.js';
import { camt054For } from '../helpers/bank-reports.js';
import { CREDITOR, IBANS } from '../helpers/sepa.js';
import { expectValid } from '../helpers/xmllint.js';
import { doors, type OpenDoor } from './doors.js';
import { normalise } from './scenarios.js';

type Json = any;

async function request(
  t: Transport,
  method: string,
  path: string,
  body?: unknown,
  query?: Record<string, string>,
): Promise<Json> {
  const answer = await t.request({ method, path, body, query });
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body;
}

async function fileOf(t: Transport, id: string, format?: string): Promise<string> {
  const answer = await t.request({ method: 'GET', path: `/collections/${id}/file`, query: { format }, file: true });
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toBe('application/xml; charset=utf-8');
  let xml = '';
  await answer.pipe!((chunk) => void (xml += chunk));
  return xml;
}

/** What one door saw: the documents (normalised), and the files. */
async function play(door: OpenDoor): Promise<{ documents: unknown[]; files: string[] }> {
  const t = door.transport;
  const name = door.operator.account.name;
  const set = await updateAccount(door.operator.store, door.operator.clock, name, {
    collection: 'sepa',
    ...CREDITOR,
    prenotification_days: 1,
  });
  expect(set.ok, JSON.stringify(set)).toBe(true);
  await door.seedPlan({ name: 'Lidmaatschap', amount: '12.50', frequency: 'monthly', storno_retries: 1 });
  const documents: unknown[] = [];
  for (const [i, iban] of [IBANS.abn, IBANS.rabo, null].entries()) {
    const bank = iban ? { iban, bank_holder: `Lid ${i}` } : {};
    const customer = await request(t, 'POST', '/customers', {
      data: {
        type: 'customer',
        attributes: { first_name: 'Lid', last_name: `${i}`, email: `lid${i}@example.com`, ...bank },
      },
    });
    await request(t, 'POST', '/subscriptions', {
      data: {
        type: 'subscription',
        attributes: {
          customer_id: customer.data.id,
          subscription_plan_id: 1,
          status: 'active',
          mandate_accepted: true,
          mandate_accepted_date: '2026-11-01',
        },
      },
    });
  }
  const made = await request(t, 'POST', '/collections', { data: { type: 'collection', attributes: {} } });
  documents.push(made);
  const id = made.data.id;
  const v2 = await fileOf(t, id);
  const v8 = await fileOf(t, id, 'pain.008.001.08');
  expect(await fileOf(t, id)).toBe(v2);
  documents.push(await request(t, 'GET', `/collections/${id}`));
  const e2e = [...v2.matchAll(/<EndToEndId>([^<]*)</g)].map((m) => m[1]);
  const camt = camt054For({
    bookedOn: '2026-11-23',
    messageId: 'CAMT-1',
    booked: [{ endToEndId: e2e[0], amountCents: 1250 }],
    returns: [{ endToEndId: e2e[1], amountCents: 1250, reasonCode: 'MD01' }],
  });
  const upload = { contentType: 'application/xml', open: () => Buffer.from(camt) };
  const imported = await t.request({ method: 'POST', path: '/bank-reports', upload });
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  documents.push(imported.body);
  const again = await t.request({ method: 'POST', path: '/bank-reports', upload });
  expect(again.status).toBe(200);
  documents.push(again.body);
  documents.push(await request(t, 'GET', `/collections/${id}`));
  documents.push(await request(t, 'GET', '/subscriptions/2'));
  documents.push(await request(t, 'GET', '/subscriptions/2/transactions'));
  documents.push(await request(t, 'GET', '/bank-reports'));
  const refused = await t.request({
    method: 'POST',
    path: '/bank-reports',
    upload: { contentType: 'application/xml', open: () => Buffer.from(v2) },
  });
  expect(refused.status).toBe(400);
  documents.push(refused.body);
  const text = JSON.stringify(documents).split(door.baseUrl).join('BASE');
  return { documents: normalise(JSON.parse(text)) as unknown[], files: [v2, v8] };
}

const hex = (text: string) => text.replace(/[0-9a-f]{32}-\d/g, '<e2e>').replace(/<CreDtTm>[^<]*</g, '<CreDtTm><');

describe('SEPA through every door', () => {
  it("a batch, its file and the bank's report answer alike through each door", async () => {
    const seen: { documents: unknown[]; files: string[] }[] = [];
    for (const door of doors) {
      const open = await door.open();
      try {
        seen.push(await play(open));
      } finally {
        await open.close();
      }
    }
    const [first, ...rest] = seen;
    await expectValid(
      seen.map((s) => s.files[0]),
      'pain.008.001.02',
    );
    await expectValid(
      seen.map((s) => s.files[1]),
      'pain.008.001.08',
    );
    const made = first.documents[0] as Json;
    expect(made.data.attributes).toMatchObject({ status: 'open', transactions: 2, control_sum: '25.00' });
    expect(made.meta.left_out).toEqual([
      expect.objectContaining({ subscription_id: '3', reason: 'the customer has no IBAN' }),
    ]);
    const report = first.documents[2] as Json;
    expect(report.data.attributes).toMatchObject({ booked: 1, returned: 1, unmatched: 0 });
    expect((first.documents[3] as Json).meta).toEqual({ already_imported: true });
    expect((first.documents[4] as Json).data.attributes.outcomes).toEqual({
      pending: 0,
      booked: 1,
      rejected: 0,
      returned: 1,
    });
    expect((first.documents[5] as Json).data.meta.mandate_attention.reason_code).toBe('MD01');
    for (const other of rest) {
      expect(other.documents).toEqual(first.documents);
      expect(hex(other.files[0])).toBe(hex(first.files[0]));
      expect(hex(other.files[1])).toBe(hex(first.files[1]));
    }
  });
});
