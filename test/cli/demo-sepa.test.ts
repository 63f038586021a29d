// `billing demo`'s second account, the club that collects by SEPA: its batch is exported, and the
// bank's camt.054 for it (three booked, two returned) is generated here and imported through the
// built CLI, as an operator would read back the bank's report the next day.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { camt054For } from '../helpers/bank-reports.js';
import { ensureBundle, runCli } from '../helpers/cli.js';
import { tempDbPath, tempDir } from '../helpers/store.js';
import { expectValid } from '../helpers/xmllint.js';

const db = tempDbPath();
const dir = tempDir('billing-demo-sepa-');
const club = (args: string[]) => runCli(['--db', db, '--account', 'club', ...args]);

beforeAll(async () => {
  ensureBundle();
  const demo = await runCli(['--db', db, 'demo']);
  expect(demo.code, demo.stderr).toBe(0);
  expect(demo.stderr).toContain(
    'account club collects by SEPA Direct Debit: 6 members; collection 1 of 5 transactions (62.50 EUR) exported, 1 left out (see docs/sepa.md)\n',
  );
}, 300_000);

describe('billing demo: the club collecting by SEPA', { timeout: 120_000 }, () => {
  it("has an exported batch whose file is valid, and takes the bank's camt.054 for it: booked, returned, retried or flagged", async () => {
    const account = JSON.parse((await runCli(['--db', db, 'accounts', 'show', 'club', '--json'])).stdout);
    expect(account).toMatchObject({ collection: 'sepa', creditor_id: 'NL57ZZZ999999999999' });
    // The default account still simulates: the demo keeps today's behaviour there.
    expect(JSON.parse((await runCli(['--db', db, 'accounts', 'show', 'default', '--json'])).stdout)).not.toHaveProperty(
      'collection',
    );
    const batch = JSON.parse((await club(['collections', 'get', '1', '--json'])).stdout);
    expect(batch.data.attributes).toMatchObject({ status: 'exported', transactions: 5, control_sum: '62.50' });

    const exported = await club(['collections', 'export', '1']);
    expect(exported.code, exported.stderr).toBe(0);
    const xml = exported.stdout;
    await expectValid([xml], 'pain.008.001.02');
    expect(xml).toContain('<Nm>Zoe Angstrom</Nm>'); // Zoë Ångström, transliterated
    expect(xml).toContain('<Nm>Familie Gross</Nm>'); // Groß
    const ids = [...xml.matchAll(/<EndToEndId>([^<]+)<\/EndToEndId>/g)].map((m) => m[1]);
    expect(ids).toHaveLength(5);
    expect((await club(['collections', 'export', '1'])).stdout).toBe(xml); // the same bytes

    const report = join(dir, 'camt054.xml');
    writeFileSync(
      report,
      camt054For({
        messageId: 'BANK-CAMT-1',
        bookedOn: '2026-11-30',
        booked: ids.slice(0, 3).map((endToEndId) => ({ endToEndId, amountCents: 1250 })),
        returns: [
          { endToEndId: ids[3], amountCents: 1250, reasonCode: 'AM04' }, // insufficient funds: retried
          { endToEndId: ids[4], amountCents: 1250, reasonCode: 'MD01' }, // no mandate: failed, flagged
        ],
      }),
    );
    await expectValid([readFileSync(report, 'utf8')], 'camt.054.001.02');
    const imported = await club(['collections', 'import', report]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toBe(
      `${report}: camt.054.001.02 BANK-CAMT-1: 3 booked, 0 rejected, 2 returned, 0 unchanged (settled so before), 0 unmatched\n`,
    );
    const again = await club(['collections', 'import', report]);
    expect(again.code).toBe(0);
    expect(again.stderr.split('\n')[0]).toBe(
      `${report}: camt.054.001.02 BANK-CAMT-1: imported before as bank report 1: nothing changed`,
    );

    const outcomes = JSON.parse((await club(['collections', 'get', '1', '--json'])).stdout);
    expect(outcomes.data.attributes.outcomes).toEqual({ pending: 0, booked: 3, rejected: 0, returned: 2 });
    // The transactions as the bank's word left them: three succeeded, AM04 retried (the plan allows
    // one storno retry), MD01 failed at once, and the member without an IBAN still waiting.
    const subscriptions = JSON.parse((await club(['subscriptions', 'list', '--json', '--all'])).stdout);
    const statuses = async () => {
      const found: string[] = [];
      for (const subscription of subscriptions.data) {
        const txs = JSON.parse(
          (await club(['transactions', 'list', '--subscription-id', subscription.id, '--json', '--all'])).stdout,
        );
        for (const tx of txs.data) found.push(tx.attributes.status);
      }
      return found.sort();
    };
    expect(await statuses()).toEqual(['failed', 'rescheduled', 'scheduled', 'succeeded', 'succeeded', 'succeeded']);
    // The next month's five are scheduled on the batch's collection date, as the clock schedules a
    // simulated plan's next cycle on its collection's due date.
    const moved = await runCli(['--db', db, 'clock', 'set', batch.data.attributes.blocks[0].collection_date]);
    expect(moved.code, moved.stderr).toBe(0);
    expect((await statuses()).filter((status) => status === 'scheduled')).toHaveLength(6);
    const flagged = JSON.parse((await club(['subscriptions', 'get', subscriptions.data[4].id, '--json'])).stdout);
    expect(flagged.data.meta.mandate_attention.reason_code).toBe('MD01');
  });
});
