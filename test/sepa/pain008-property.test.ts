// Random batches always validate against the official schemas, and every CtrlSum is the exact sum
// of its transactions (checked with BigInt, never through floats). The files of a run are
// validated by one xmllint call per format.
import fc from 'fast-check';
import { composeIBAN } from 'ibantools';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toEpcLatin } from '../../src/lib/sepa/charset.js';
import {
  SEPA_AMOUNT_MAX_CENTS,
  writePain008,
  type Pain008Block,
  type Pain008Debit,
  type Pain008Format,
  type Pain008Message,
} from '../../src/lib/sepa/pain008.js';
import { MONEY_MAX } from '../../src/lib/schemas/money.js';
import { schemaErrors } from '../helpers/xmllint.js';

const dir = mkdtempSync(join(tmpdir(), 'billing-pain008-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NAMES = [
  'Zoë Ångström',
  'Groß',
  'Søren Kierkegaard',
  'Łukasz Żółć',
  'Νίκος Παπαδόπουλος',
  'Дмитрий Шостакович',
  'Þóra Guðmundsdóttir',
  'İsmail Şahin',
  'José Núñez',
  '李小龍',
  'O’Brien & Sons',
  'Ærøskøbing Straße '.repeat(8),
];
const name = fc
  .oneof(fc.constantFrom(...NAMES), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 90 }))
  .filter((text) => toEpcLatin(text) !== '');
const identifier = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9\-?:().,'+ ]{0,33}[A-Za-z0-9]$/);
const iban = fc
  .tuple(fc.constantFrom('NL', 'DE'), fc.stringMatching(/^\d{18}$/), fc.constantFrom('ABNA', 'RABO', 'INGB'))
  .map(([country, digits, bank]) =>
    composeIBAN({ countryCode: country, bban: country === 'NL' ? bank + digits.slice(0, 10) : digits })!,
  );
const bic = fc.option(fc.constantFrom('ABNANL2A', 'RABONL2U', 'INGBNL2A', 'GKCCBEBB', 'DEUTDEFF500'), { nil: null });
const amount = fc.oneof(
  fc.integer({ min: 1, max: SEPA_AMOUNT_MAX_CENTS }),
  fc.integer({ min: 1, max: 100_000 }),
  fc.constantFrom(1, 99, 100, SEPA_AMOUNT_MAX_CENTS),
);
const businessDay = fc.constantFrom(
  '2026-12-01',
  '2026-12-24',
  '2026-12-28',
  '2027-01-04',
  '2027-03-25',
  '2027-03-30',
  '2028-02-29',
);
const amendment = fc.option(
  fc
    .record({
      originalMandateId: fc.option(identifier, { nil: undefined }),
      originalDebtorIban: fc.option(iban, { nil: undefined }),
      originalDebtorAgentSmnda: fc.boolean(),
    })
    .filter(
      (a) => a.originalMandateId !== undefined || a.originalDebtorIban !== undefined || a.originalDebtorAgentSmnda,
    ),
  { nil: null },
);
const debit = fc.record({
  amountCents: amount,
  mandateId: identifier,
  mandateSignedOn: fc.constantFrom('2009-11-01', '2024-02-29', '2026-11-30'),
  debtorName: name,
  debtorIban: iban,
  debtorBic: bic,
  remittance: fc.option(fc.string({ unit: 'grapheme', maxLength: 200 }), { nil: null }),
  amendment,
});
const batch = fc.record({
  creditor: fc.record({
    name,
    iban,
    bic,
    creditorId: fc.constantFrom('NL57ZZZ999999999999', 'DE98ZZZ09999999999', 'be69 zzz 050d000000008'),
  }),
  initiatingPartyName: name,
  blocks: fc.array(
    fc.record({
      sequenceType: fc.constantFrom('FRST', 'RCUR', 'OOFF', 'FNAL' as const),
      collectionDate: businessDay,
      debits: fc.array(debit, { minLength: 1, maxLength: 6 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

type Batch = typeof batch extends fc.Arbitrary<infer T> ? T : never;

function messageOf(b: Batch, n: number): Pain008Message {
  const blocks: Pain008Block[] = b.blocks.map((blk, i) => ({
    paymentInfoId: `M${n}-${i + 1}-${blk.sequenceType}`,
    sequenceType: blk.sequenceType,
    collectionDate: blk.collectionDate,
    count: blk.debits.length,
    controlSumCents: blk.debits.reduce((sum, d) => sum + d.amountCents, 0),
    debits: blk.debits.map((d, j): Pain008Debit => ({ ...d, endToEndId: `M${n}-${i + 1}-${j + 1}` })),
  }));
  return {
    messageId: `M${n}`,
    createdAt: '2026-11-30T17:45:12',
    count: blocks.reduce((sum, blk) => sum + blk.count, 0),
    controlSumCents: blocks.reduce((sum, blk) => sum + blk.controlSumCents, 0),
    initiatingPartyName: b.initiatingPartyName,
    creditor: b.creditor,
    blocks,
  };
}

const cents = (decimal: string) => BigInt(decimal.replace('.', ''));
const values = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([^<]*)</${tag}>`, 'g'))].map((m) => m[1]);

describe('pain.008 writer, random batches', () => {
  it('always writes files that validate, whose CtrlSum is the exact sum of their transactions', async () => {
    const files: Record<Pain008Format, string[]> = { 'pain.008.001.02': [], 'pain.008.001.08': [] };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        batch,
        fc.constantFrom<Pain008Format>('pain.008.001.02', 'pain.008.001.08'),
        async (b, format) => {
          const message = messageOf(b, ++n);
          let xml = '';
          await writePain008(message, format, (chunk) => {
            xml += chunk;
          });
          const file = join(dir, `${n}.xml`);
          writeFileSync(file, xml);
          files[format].push(file);

          // The file's CtrlSum and NbOfTxs, then each block's, against the amounts generated.
          const generated = b.blocks.map((blk) => blk.debits.reduce((sum, d) => sum + BigInt(d.amountCents), 0n));
          const [fileSum, ...blockSums] = values(xml, 'CtrlSum').map(cents);
          const [fileCount, ...blockCounts] = values(xml, 'NbOfTxs').map(Number);
          expect(fileSum).toBe(generated.reduce((a, c) => a + c, 0n));
          expect(blockSums).toEqual(generated);
          expect(fileCount).toBe(message.count);
          expect(blockCounts).toEqual(b.blocks.map((blk) => blk.debits.length));
          const pmtInfs = xml.split('<PmtInf>').slice(1);
          pmtInfs.forEach((part, i) =>
            expect(
              values(part, 'InstdAmt')
                .map(cents)
                .reduce((a, c) => a + c, 0n),
            ).toBe(generated[i]),
          );
        },
      ),
      { numRuns: 150 },
    );
    for (const [format, list] of Object.entries(files) as Array<[Pain008Format, string[]]>) {
      expect(list.length).toBeGreaterThan(20);
      const errors = await schemaErrors(list, format);
      expect([...errors.values()].join('\n')).toBe('');
    }
  });

  it('refuses an amount above the SEPA maximum, up to the invoice-total bound, and writes no debit', async () => {
    await fc.assert(
      fc.asyncProperty(batch, fc.integer({ min: SEPA_AMOUNT_MAX_CENTS + 1, max: MONEY_MAX }), async (b, tooMuch) => {
        b.blocks[0].debits[0].amountCents = tooMuch;
        const message = messageOf(b, 0);
        let written = '';
        await expect(
          writePain008(message, 'pain.008.001.02', (chunk) => {
            written += chunk;
          }),
        ).rejects.toThrow(/amount must be a whole number of cents from 0.01 to 999999999.99/);
        expect(written).not.toContain('<DrctDbtTxInf>');
      }),
      { numRuns: 50 },
    );
  });
});
