import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MalformedReportError,
  NotABankReportError,
  readBankReport,
  type ReportEntry,
} from '../../src/lib/sepa/reports.js';
import { camt053For, camt054For, pain002For, type CamtInput } from '../helpers/bank-reports.js';
import { expectValid } from '../helpers/xmllint.js';

const INPUT: CamtInput = {
  messageId: 'CAMT-7',
  bookedOn: '2026-12-03',
  booked: [
    { endToEndId: 'B1-1', amountCents: 1250, messageId: 'BATCH-1', paymentInfoId: 'B1-FRST' },
    { endToEndId: 'B1-2', amountCents: 1 },
  ],
  returns: [{ endToEndId: 'B1-3', amountCents: 999_999_999_99, reasonCode: 'MD06', bookedOn: '2026-12-20' }],
  rejects: [{ endToEndId: 'B1-4', amountCents: 700, reasonCode: 'AC04' }],
};

const entry = (e: Partial<ReportEntry>): ReportEntry => ({
  outcome: 'booked',
  endToEndId: '',
  originalMessageId: null,
  paymentInfoId: null,
  amountCents: null,
  reasonCode: null,
  bookedOn: null,
  where: '',
  ...e,
});

const EXPECTED = [
  entry({
    endToEndId: 'B1-1',
    originalMessageId: 'BATCH-1',
    paymentInfoId: 'B1-FRST',
    amountCents: 1250,
    bookedOn: '2026-12-03',
    where: 'entry 1, transaction 1',
  }),
  entry({ endToEndId: 'B1-2', amountCents: 1, bookedOn: '2026-12-03', where: 'entry 2, transaction 1' }),
  entry({
    outcome: 'returned',
    endToEndId: 'B1-3',
    amountCents: 999_999_999_99,
    reasonCode: 'MD06',
    bookedOn: '2026-12-20',
    where: 'entry 3, transaction 1',
  }),
  entry({
    outcome: 'rejected',
    endToEndId: 'B1-4',
    amountCents: 700,
    reasonCode: 'AC04',
    bookedOn: '2026-12-03',
    where: 'entry 4, transaction 1',
  }),
];

/** A camt.054.001.02 around the given entries (hand-written: shapes the generator does not make). */
const camt = (entries: string, root = 'Document', prefix = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>
<${prefix}${root} xmlns${prefix ? `:${prefix.slice(0, -1)}` : ''}="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02">
<${prefix}BkToCstmrDbtCdtNtfctn><${prefix}GrpHdr><${prefix}MsgId>N-1</${prefix}MsgId>
<${prefix}CreDtTm>2026-12-03T08:00:00</${prefix}CreDtTm></${prefix}GrpHdr>
<${prefix}Ntfctn><${prefix}Id>N-1</${prefix}Id>
${entries}
</${prefix}Ntfctn></${prefix}BkToCstmrDbtCdtNtfctn></${prefix}${root}>
`;

const ntry = (inner: string, { amount = '12.50', ccy = 'EUR', ind = 'CRDT', sts = 'BOOK' } = {}) =>
  `<Ntry><Amt Ccy="${ccy}">${amount}</Amt><CdtDbtInd>${ind}</CdtDbtInd><Sts>${sts}</Sts>` +
  `<BookgDt><Dt>2026-12-03</Dt></BookgDt>${inner}</Ntry>`;

describe('bank report reader', () => {
  it('reads booked, returned, rejected collections from camt.054 (.02, .08) and camt.053, which validate', async () => {
    const files = {
      'camt.054.001.02': camt054For(INPUT),
      'camt.054.001.08': camt054For({ ...INPUT, format: 'camt.054.001.08' }),
      'camt.053.001.02': camt053For(INPUT),
    } as const;
    for (const [format, xml] of Object.entries(files)) {
      await expectValid([xml], format as keyof typeof files);
      expect(await readBankReport(xml), format).toEqual({ format, messageId: 'CAMT-7', entries: EXPECTED });
    }
  });

  it('reads each transaction of a batch booking; one without details is one entry for its block', async () => {
    const xml = camt054For({
      bookedOn: '2026-12-03',
      batchBooked: true,
      booked: [
        { endToEndId: 'A', amountCents: 100 },
        { endToEndId: 'B', amountCents: 250 },
      ],
    });
    await expectValid([xml], 'camt.054.001.02');
    const { entries } = await readBankReport(xml);
    expect(entries.map((e) => [e.endToEndId, e.amountCents, e.where])).toEqual([
      ['A', 100, 'entry 1, transaction 1'],
      ['B', 250, 'entry 1, transaction 2'],
    ]);
    const batch = await readBankReport(
      camt(
        ntry(
          '<NtryDtls><Btch><MsgId>BATCH-9</MsgId><PmtInfId>B9-RCUR</PmtInfId><NbOfTxs>3</NbOfTxs></Btch></NtryDtls>',
          { amount: '37.5' },
        ),
      ),
    );
    expect(batch.entries).toEqual([
      entry({
        endToEndId: '',
        originalMessageId: 'BATCH-9',
        paymentInfoId: 'B9-RCUR',
        amountCents: 3750,
        bookedOn: '2026-12-03',
        where: 'entry 1',
      }),
    ]);
  });

  it('leaves out what is no collection: own debits, pending credits, other currencies, no end-to-end id', async () => {
    const tx = (e2e: string, extra = '') =>
      `<NtryDtls><TxDtls><Refs><EndToEndId>${e2e}</EndToEndId></Refs>${extra}</TxDtls></NtryDtls>`;
    const xml = camt(
      [
        ntry(tx('PAID-OUT'), { ind: 'DBIT' }),
        ntry(tx('PENDING'), { sts: 'PDNG' }),
        ntry(tx('DOLLARS'), { ccy: 'USD' }),
        ntry(tx('NOTPROVIDED')),
        ntry('<NtryDtls><TxDtls><Refs><AcctSvcrRef>FEE</AcctSvcrRef></Refs></TxDtls></NtryDtls>'),
        ntry(''),
        ntry(tx('KEPT')),
      ].join('\n'),
    );
    expect((await readBankReport(xml)).entries.map((e) => e.endToEndId)).toEqual(['KEPT']);
  });

  it('reads a return marked by RvslInd without RtrInf, a proprietary reason, and a prefixed namespace', async () => {
    const reversal =
      '<Ntry><Amt Ccy="EUR">5.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><RvslInd>true</RvslInd><Sts>BOOK</Sts>' +
      '<BookgDt><DtTm>2026-12-09T10:00:00+01:00</DtTm></BookgDt>' +
      '<NtryDtls><TxDtls><Refs><EndToEndId>R-1</EndToEndId></Refs></TxDtls></NtryDtls></Ntry>';
    const proprietary = ntry(
      '<NtryDtls><TxDtls><Refs><EndToEndId>R-2</EndToEndId></Refs>' +
        '<RtrInf><Rsn><Prtry>am04</Prtry></Rsn></RtrInf></TxDtls></NtryDtls>',
      { ind: 'DBIT' },
    );
    const { entries } = await readBankReport(camt(`${reversal}\n${proprietary}`));
    expect(entries).toEqual([
      entry({
        outcome: 'returned',
        endToEndId: 'R-1',
        amountCents: 500,
        bookedOn: '2026-12-09',
        where: 'entry 1, transaction 1',
      }),
      entry({
        outcome: 'returned',
        endToEndId: 'R-2',
        amountCents: 1250,
        reasonCode: 'AM04',
        bookedOn: '2026-12-03',
        where: 'entry 2, transaction 1',
      }),
    ]);
    const prefixed = camt(
      ntry('<NtryDtls><TxDtls><Refs><EndToEndId>P-1</EndToEndId></Refs></TxDtls></NtryDtls>'),
      'Document',
      'ns2:',
    ).replace(/<(\/?)(?!ns2:|\?)([A-Za-z])/g, '<$1ns2:$2');
    expect((await readBankReport(prefixed)).entries.map((e) => e.endToEndId)).toEqual(['P-1']);
  });

  it('reads pain.002 rejects per transaction, per block and for the whole file', async () => {
    const xml = pain002For({
      originalMessageId: 'BATCH-1',
      groupStatus: 'PART',
      blocks: [
        {
          paymentInfoId: 'B1-FRST',
          status: 'PART',
          rejects: [
            { endToEndId: 'B1-1', amountCents: 1250, reasonCode: 'AC01' },
            { endToEndId: 'B1-2', reasonCode: 'MD07' },
          ],
        },
        { paymentInfoId: 'B1-RCUR', status: 'RJCT', reasonCode: 'FF01' },
        { paymentInfoId: 'B1-OOFF', status: 'ACCP' },
      ],
    });
    expect(await readBankReport(xml)).toEqual({
      format: 'pain.002.001.03',
      messageId: 'STATUS-1',
      entries: [
        entry({
          outcome: 'rejected',
          endToEndId: 'B1-1',
          originalMessageId: 'BATCH-1',
          paymentInfoId: 'B1-FRST',
          amountCents: 1250,
          reasonCode: 'AC01',
          where: 'payment information 1, transaction 1',
        }),
        entry({
          outcome: 'rejected',
          endToEndId: 'B1-2',
          originalMessageId: 'BATCH-1',
          paymentInfoId: 'B1-FRST',
          reasonCode: 'MD07',
          where: 'payment information 1, transaction 2',
        }),
        entry({
          outcome: 'rejected',
          endToEndId: '',
          originalMessageId: 'BATCH-1',
          paymentInfoId: 'B1-RCUR',
          reasonCode: 'FF01',
          where: 'payment information 2',
        }),
      ],
    });
    const whole = await readBankReport(
      pain002For({ originalMessageId: 'BATCH-2', groupStatus: 'RJCT', groupReasonCode: 'BE05' }),
    );
    expect(whole.entries).toEqual([
      entry({ outcome: 'rejected', originalMessageId: 'BATCH-2', reasonCode: 'BE05', where: 'the group status' }),
    ]);
    expect((await readBankReport(pain002For({ originalMessageId: 'BATCH-3', groupStatus: 'ACCP' }))).entries).toEqual(
      [],
    );
  });

  it('refuses what is no bank report (exit 2 for the CLI), naming what it is', async () => {
    const notReport = async (input: string | Buffer, message: RegExp) => {
      const attempt = readBankReport(input);
      await expect(attempt).rejects.toBeInstanceOf(NotABankReportError);
      await expect(attempt).rejects.toThrow(message);
    };
    await notReport(
      '<?xml version="1.0"?>\n' +
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.02"><CstmrDrctDbtInitn/></Document>',
      /pain.008.001.02 file is a collection file for the bank, not a report/,
    );
    await notReport('<html><body>hello</body></html>', /<html> is no bank report/);
    await notReport(
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.02"/>',
      /ISO 20022 camt.052.001.02 is no bank report/,
    );
    await notReport(
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02"><BkToCstmrStmt/></Document>',
      /holds BkToCstmrDbtCdtNtfctn, not BkToCstmrStmt/,
    );
    await notReport('Date;Amount\n2026-12-01;12.50\n', /not an XML document/);
    await notReport('', /empty/);
    await notReport(Buffer.from('  \n'), /empty/);
    await notReport(camt('').replace(/<GrpHdr>[\s\S]*<\/GrpHdr>/, ''), /has no message id/);
    await notReport(
      camt(ntry('<NtryDtls><TxDtls><Refs><EndToEndId>X</EndToEndId></Refs></TxDtls></NtryDtls>', { amount: '12.505' })),
      /entry 1: "12.505" is not an amount in cents/,
    );
  });

  it('names the line where malformed XML stops', async () => {
    const broken = async (xml: string, line: number) => {
      const error = await readBankReport(xml).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(MalformedReportError);
      expect((error as MalformedReportError).line).toBe(line);
      expect((error as Error).message).toMatch(new RegExp(`^not well-formed XML at line ${line}: `));
    };
    const good = camt054For(INPUT).split('\n');
    await broken(good.slice(0, 30).join('\n'), 30); // cut short: unclosed at the end
    await broken([...good.slice(0, 20), '<Oops>', ...good.slice(20)].join('\n'), 23); // </Amt> closes <Oops>
    await broken([...good.slice(0, 11), '      </Mismatch>', ...good.slice(11)].join('\n'), 12);
    await broken(good.join('\n').replace('<MsgId>CAMT-7</MsgId>', '<MsgId>A < B</MsgId>'), 5);
    // No DTD, so no such entity.
    await broken(good.join('\n').replace('<MsgId>CAMT-7</MsgId>', '<MsgId>A &nbsp; B</MsgId>'), 5);
  });

  it('reads a report arriving in chunks cut anywhere, even inside a character, as the whole', async () => {
    const xml = camt054For({ ...INPUT, messageId: 'CAMT-ÅÖ-ß' });
    const whole = await readBankReport(xml);
    expect(whole.messageId).toBe('CAMT-ÅÖ-ß');
    const bytes = Buffer.from(xml);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }),
        async (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          // Each chunk a turn of its own, as a stream gives them.
          async function* chunks() {
            for (let i = 1; i < points.length; i++) {
              await Promise.resolve();
              yield bytes.subarray(points[i - 1], points[i]);
            }
          }
          expect(await readBankReport(chunks())).toEqual(whole);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('decodes the encoding the declaration names, and skips a byte order mark', async () => {
    const latin1 = Buffer.from(
      camt054For({ ...INPUT, messageId: 'CAMT-Zoë' }).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'),
      'latin1',
    );
    expect((await readBankReport(latin1)).messageId).toBe('CAMT-Zoë');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(camt054For(INPUT))]);
    expect((await readBankReport(bom)).entries).toEqual(EXPECTED);
    await expect(readBankReport(Buffer.from('<?xml version="1.0" encoding="EBCDIC-X"?><Document/>'))).rejects.toThrow(
      /encoding "EBCDIC-X" is unknown/,
    );
  });
});
