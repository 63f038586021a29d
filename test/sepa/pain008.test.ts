import { describe, expect, it } from 'vitest';
import {
  SEPA_AMOUNT_MAX_CENTS,
  isValidBic,
  Pain008Error,
  writePain008,
  type Pain008Block,
  type Pain008Debit,
  type Pain008Format,
  type Pain008Message,
} from '../../src/lib/sepa/pain008.js';
import { toEpcLatin } from '../../src/lib/sepa/charset.js';
import { expectValid } from '../helpers/xmllint.js';

const FORMATS: Pain008Format[] = ['pain.008.001.02', 'pain.008.001.08'];

function debit(n: number, extra: Partial<Pain008Debit> = {}): Pain008Debit {
  return {
    endToEndId: `B1-${n}`,
    amountCents: 1250,
    mandateId: `MNDT-${n}`,
    mandateSignedOn: '2026-11-01',
    debtorName: `Debtor ${n}`,
    debtorIban: 'NL91ABNA0417164300',
    remittance: `Monthly box ${n}`,
    ...extra,
  };
}

function message(blocks: Pain008Block[], extra: Partial<Pain008Message> = {}): Pain008Message {
  const count = blocks.reduce((n, b) => n + b.count, 0);
  const controlSumCents = blocks.reduce((n, b) => n + b.controlSumCents, 0);
  return {
    messageId: 'BATCH-1',
    createdAt: '2026-12-01T09:30:00',
    count,
    controlSumCents,
    initiatingPartyName: 'Club Zoë',
    creditor: {
      name: 'Club Zoë Ångström',
      iban: 'NL91 ABNA 0417 1643 00',
      bic: 'ABNANL2A',
      creditorId: 'nl57 zzz 999999999999',
    },
    blocks,
    ...extra,
  };
}

function block(debits: Pain008Debit[], extra: Partial<Pain008Block> = {}): Pain008Block {
  return {
    paymentInfoId: 'B1-FRST-20261203',
    sequenceType: 'FRST',
    collectionDate: '2026-12-03',
    count: debits.length,
    controlSumCents: debits.reduce((n, d) => n + d.amountCents, 0),
    debits,
    ...extra,
  };
}

async function exported(m: Pain008Message, format: Pain008Format): Promise<string> {
  let out = '';
  await writePain008(m, format, (chunk) => {
    out += chunk;
  });
  return out;
}

/** The text of every element with this name, in file order. */
const texts = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([^<]*)</${tag}>`, 'g'))].map((m) => m[1]);

const sample = () =>
  message([
    block([
      debit(1, { debtorName: 'Zoë Ångström', remittance: 'Invoice INV-7 — Groß' }),
      debit(2, {
        amountCents: 1,
        debtorBic: 'GKCCBEBB',
        debtorIban: 'BE68 5390 0754 7034',
        amendment: { originalDebtorIban: 'NL91ABNA0417164300', originalDebtorAgentSmnda: true },
      }),
    ]),
    block(
      [debit(3, { amountCents: SEPA_AMOUNT_MAX_CENTS, amendment: { originalMandateId: 'OLD-3' }, remittance: null })],
      { paymentInfoId: 'B1-RCUR-20261207', sequenceType: 'RCUR', collectionDate: '2026-12-07' },
    ),
    block([debit(4, { amountCents: 999 })], {
      paymentInfoId: 'B1-OOFF-20261207',
      sequenceType: 'OOFF',
      collectionDate: '2026-12-07',
    }),
  ]);

describe('pain.008 writer', () => {
  it('writes files that validate against the official schema of each format', async () => {
    for (const format of FORMATS) {
      await expectValid(
        [
          await exported(sample(), format),
          await exported(
            message([block([debit(1)])], {
              creditor: { name: 'Club', iban: 'DE89370400440532013000', creditorId: 'DE98ZZZ09999999999' },
            }),
            format,
          ),
        ],
        format,
      );
    }
  });

  it('carries the group header, each block and each debit', async () => {
    const xml = await exported(sample(), 'pain.008.001.02');
    expect(texts(xml, 'MsgId')).toEqual(['BATCH-1']);
    expect(texts(xml, 'CreDtTm')).toEqual(['2026-12-01T09:30:00']);
    expect(texts(xml, 'NbOfTxs')).toEqual(['4', '2', '1', '1']);
    expect(texts(xml, 'CtrlSum')).toEqual(['1000000022.49', '12.51', '999999999.99', '9.99']);
    expect(texts(xml, 'PmtInfId')).toEqual(['B1-FRST-20261203', 'B1-RCUR-20261207', 'B1-OOFF-20261207']);
    expect(texts(xml, 'SeqTp')).toEqual(['FRST', 'RCUR', 'OOFF']);
    expect(texts(xml, 'ReqdColltnDt')).toEqual(['2026-12-03', '2026-12-07', '2026-12-07']);
    expect(texts(xml, 'PmtMtd')).toEqual(['DD', 'DD', 'DD']);
    expect(texts(xml, 'BtchBookg')).toEqual(['false', 'false', 'false']);
    expect(texts(xml, 'ChrgBr')).toEqual(['SLEV', 'SLEV', 'SLEV']);
    expect(xml.match(/<SvcLvl>\s*<Cd>SEPA<\/Cd>\s*<\/SvcLvl>\s*<LclInstrm>\s*<Cd>CORE<\/Cd>/g)).toHaveLength(3);
    // The creditor in every block: name transliterated, IBAN without spaces, BIC, identifier normalised.
    expect(texts(xml, 'Nm').slice(0, 2)).toEqual(['Club Zoe', 'Club Zoe Angstrom']);
    expect(xml.match(/<CdtrAcct>\s*<Id>\s*<IBAN>NL91ABNA0417164300<\/IBAN>/g)).toHaveLength(3);
    expect(xml.match(/<CdtrAgt>\s*<FinInstnId>\s*<BIC>ABNANL2A<\/BIC>/g)).toHaveLength(3);
    expect(
      xml.match(
        /<CdtrSchmeId>\s*<Id>\s*<PrvtId>\s*<Othr>\s*<Id>NL57ZZZ999999999999<\/Id>\s*<SchmeNm>\s*<Prtry>SEPA<\/Prtry>/g,
      ),
    ).toHaveLength(3);
    // Each debit.
    expect(texts(xml, 'EndToEndId')).toEqual(['B1-1', 'B1-2', 'B1-3', 'B1-4']);
    expect(texts(xml, 'InstdAmt')).toEqual(['12.50', '0.01', '999999999.99', '9.99']);
    expect(xml).toContain('<InstdAmt Ccy="EUR">12.50</InstdAmt>');
    expect(texts(xml, 'MndtId')).toEqual(['MNDT-1', 'MNDT-2', 'MNDT-3', 'MNDT-4']);
    expect(texts(xml, 'DtOfSgntr')).toEqual(['2026-11-01', '2026-11-01', '2026-11-01', '2026-11-01']);
    expect([...xml.matchAll(/<Dbtr>\s*<Nm>([^<]*)<\/Nm>/g)].map((m) => m[1])).toEqual([
      'Zoe Angstrom',
      'Debtor 2',
      'Debtor 3',
      'Debtor 4',
    ]);
    expect(xml).toContain('<IBAN>BE68539007547034</IBAN>');
    expect(texts(xml, 'Ustrd')).toEqual(['Invoice INV-7 - Gross', 'Monthly box 2', 'Monthly box 4']);
  });

  it('writes BIC in .02 and BICFI in .08, and NOTPROVIDED where no BIC is known', async () => {
    const m = () =>
      message([block([debit(1), debit(2, { debtorBic: 'gkcc bebb' })])], {
        creditor: { name: 'Club', iban: 'NL91ABNA0417164300', bic: null, creditorId: 'NL57ZZZ999999999999' },
      });
    const v02 = await exported(m(), 'pain.008.001.02');
    const v08 = await exported(m(), 'pain.008.001.08');
    expect(v02).toMatch(/<CdtrAgt>\s*<FinInstnId>\s*<Othr>\s*<Id>NOTPROVIDED<\/Id>/);
    expect(v02).toMatch(/<DbtrAgt>\s*<FinInstnId>\s*<Othr>\s*<Id>NOTPROVIDED<\/Id>/);
    expect(v02).toMatch(/<DbtrAgt>\s*<FinInstnId>\s*<BIC>GKCCBEBB<\/BIC>/);
    expect(v08).toMatch(/<DbtrAgt>\s*<FinInstnId>\s*<BICFI>GKCCBEBB<\/BICFI>/);
    expect(v08).not.toContain('<BIC>');
    expect(v02).not.toContain('<BICFI>');
    expect(v08).toContain('xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.08"');
  });

  it('marks an amendment with the original mandate, account and SMNDA for a new bank', async () => {
    const xml = await exported(sample(), 'pain.008.001.08');
    const blocks = xml
      .split('<MndtRltdInf>')
      .slice(1)
      .map((part) => part.slice(0, part.indexOf('</MndtRltdInf>')).replace(/\s+/g, ''));
    expect(blocks[0]).toBe('<MndtId>MNDT-1</MndtId><DtOfSgntr>2026-11-01</DtOfSgntr>');
    expect(blocks[1]).toBe(
      '<MndtId>MNDT-2</MndtId><DtOfSgntr>2026-11-01</DtOfSgntr><AmdmntInd>true</AmdmntInd><AmdmntInfDtls>' +
        '<OrgnlDbtrAcct><Id><IBAN>NL91ABNA0417164300</IBAN></Id></OrgnlDbtrAcct>' +
        '<OrgnlDbtrAgt><FinInstnId><Othr><Id>SMNDA</Id></Othr></FinInstnId></OrgnlDbtrAgt></AmdmntInfDtls>',
    );
    expect(blocks[2]).toBe(
      '<MndtId>MNDT-3</MndtId><DtOfSgntr>2026-11-01</DtOfSgntr><AmdmntInd>true</AmdmntInd>' +
        '<AmdmntInfDtls><OrgnlMndtId>OLD-3</OrgnlMndtId></AmdmntInfDtls>',
    );
  });

  it('transliterates names to the EPC set and cuts them to 70 characters, the remittance to 140', async () => {
    const long = 'Ærøskøbing Straße '.repeat(12);
    const xml = await exported(message([block([debit(1, { debtorName: long, remittance: long })])]), 'pain.008.001.02');
    const [name] = texts(xml, 'Nm').slice(-1);
    const [ustrd] = texts(xml, 'Ustrd');
    expect(name).toHaveLength(70);
    expect(name.startsWith(`${toEpcLatin('Ærøskøbing Straße')} ${toEpcLatin('Ærøskøbing')}`)).toBe(true);
    expect(ustrd.length).toBeLessThanOrEqual(140);
    expect(ustrd.length).toBeGreaterThan(135);
    expect(ustrd).toMatch(/^[A-Za-z ]+$/);
  });

  it('exports the same batch byte for byte, however its debits arrive', async () => {
    const first = await exported(sample(), 'pain.008.001.02');
    const again = await exported(sample(), 'pain.008.001.02');
    async function* slowly<T>(items: Iterable<T>) {
      for (const item of items) {
        await new Promise((r) => setImmediate(r));
        yield item;
      }
    }
    const s = sample();
    const asyncBlocks = (s.blocks as Pain008Block[]).map((b) => ({ ...b, debits: slowly(b.debits as Pain008Debit[]) }));
    const streamed = await exported({ ...s, blocks: slowly(asyncBlocks) }, 'pain.008.001.02');
    expect(again).toBe(first);
    expect(streamed).toBe(first);
    expect(first.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<Document')).toBe(true);
    expect(first.endsWith('</Document>\n')).toBe(true);
  });

  it('streams: writes in bounded chunks while debits are still being produced, and waits for each write', async () => {
    const total = 5000;
    let produced = 0;
    let producedAtFirstWrite = -1;
    let inFlight = 0;
    let maxChunk = 0;
    // Debits worked out while a write was in flight (the writer does not stand still meanwhile).
    let producedDuringWrites = 0;
    const chunks: string[] = [];
    function* debits() {
      for (let n = 1; n <= total; n++) {
        produced++;
        yield debit(n);
      }
    }
    await writePain008(
      message([block([], { count: total, controlSumCents: total * 1250, debits: debits() })]),
      'pain.008.001.08',
      async (chunk) => {
        if (producedAtFirstWrite < 0) producedAtFirstWrite = produced;
        expect(inFlight).toBe(0); // the writer awaits each write before the next
        inFlight++;
        const before = produced;
        await new Promise((r) => setImmediate(r));
        producedDuringWrites += produced - before;
        inFlight--;
        maxChunk = Math.max(maxChunk, chunk.length);
        chunks.push(chunk);
      },
    );
    expect(producedAtFirstWrite).toBeGreaterThan(0);
    expect(producedAtFirstWrite).toBeLessThan(total / 10);
    expect(chunks.length).toBeGreaterThan(20);
    expect(maxChunk).toBeLessThan(80 * 1024);
    expect(inFlight).toBe(0); // done only once the last write is
    expect(producedDuringWrites).toBeGreaterThan(total / 2);
    await expectValid([chunks.join('')], 'pain.008.001.08');
  });

  it('a write that fails fails the file, once the writer has stopped', async () => {
    const total = 2000;
    let writes = 0;
    let produced = 0;
    let producedAtFailure = -1;
    function* debits() {
      for (let n = 1; n <= total; n++) {
        produced++;
        yield debit(n);
      }
    }
    const failure = new Error('disk full');
    await expect(
      writePain008(
        message([block([], { count: total, controlSumCents: total * 1250, debits: debits() })]),
        'pain.008.001.02',
        async () => {
          if (++writes < 3) return;
          await new Promise((r) => setImmediate(r));
          producedAtFailure = produced;
          throw failure;
        },
      ),
    ).rejects.toBe(failure);
    expect(writes).toBe(3); // no write after the one that failed
    expect(produced).toBeLessThan(total); // and the debits after it never worked out
    expect(producedAtFailure).toBeGreaterThan(0);
  });

  it('a debit it cannot write fails the file after the write in flight has ended', async () => {
    let open = 0;
    let maxOpen = 0;
    const total = 2000;
    function* debits() {
      for (let n = 1; n <= total; n++) yield debit(n, n === total ? { debtorIban: 'NL00BROKEN' } : {});
    }
    const ended: string[] = [];
    await expect(
      writePain008(
        message([block([], { count: total, controlSumCents: total * 1250, debits: debits() })]),
        'pain.008.001.02',
        async () => {
          open++;
          maxOpen = Math.max(maxOpen, open);
          await new Promise((r) => setTimeout(r, 5));
          open--;
          ended.push('write');
        },
      ).finally(() => ended.push('failed')),
    ).rejects.toThrow(/debtor's IBAN "NL00BROKEN" is not a valid IBAN/);
    expect(maxOpen).toBe(1);
    expect(ended.at(-1)).toBe('failed');
    expect(open).toBe(0);
  });

  it('refuses what the message gets wrong before writing anything', async () => {
    const cases: Array<[Partial<Pain008Message>, RegExp]> = [
      [
        { creditor: { name: 'Club', iban: 'NL91ABNA0417164300', creditorId: 'NL98ZZZ999999999999' } },
        /creditor identifier "NL98ZZZ999999999999" is not valid/,
      ],
      [
        { creditor: { name: 'Club', iban: 'NL91ABNA0417164301', creditorId: 'NL57ZZZ999999999999' } },
        /creditor's IBAN "NL91ABNA0417164301" is not a valid IBAN/,
      ],
      [
        { creditor: { name: 'Club', iban: 'NL91ABNA0417164300', bic: 'ABN', creditorId: 'NL57ZZZ999999999999' } },
        /creditor's BIC "ABN" is not a valid BIC/,
      ],
      [
        { creditor: { name: ' *** ', iban: 'NL91ABNA0417164300', creditorId: 'NL57ZZZ999999999999' } },
        /creditor's name is missing/,
      ],
      [{ messageId: 'A//B' }, /MsgId "A\/\/B" contains '\/\/'/],
      [{ messageId: 'X'.repeat(36) }, /MsgId .* longer than 35/],
      [{ createdAt: 'yesterday' }, /CreDtTm "yesterday" is not a date-time/],
      [{ count: 0 }, /count must be a whole number of at least 1/],
      [{ controlSumCents: 12.5 }, /control sum must be a whole number of cents/],
    ];
    for (const [change, error] of cases) {
      let writes = 0;
      const attempt = writePain008({ ...sample(), ...change }, 'pain.008.001.02', () => void writes++);
      await expect(attempt, String(error)).rejects.toThrow(error);
      await expect(attempt).rejects.toBeInstanceOf(Pain008Error);
      expect(writes).toBe(0);
    }
    await expect(writePain008(sample(), 'pain.008.001.03' as Pain008Format, () => {})).rejects.toThrow(
      /unknown format/,
    );
  });

  it('refuses blocks and debits it cannot write, and counts or sums that disagree with the debits', async () => {
    const one = (d: Partial<Pain008Debit>, b: Partial<Pain008Block> = {}) => {
      const blk = block([debit(1, d)], { controlSumCents: 1250, ...b });
      return writePain008(
        message([blk], { count: blk.count, controlSumCents: blk.controlSumCents }),
        'pain.008.001.02',
        () => {},
      );
    };
    await expect(one({ amountCents: 0 })).rejects.toThrow(
      /amount must be a whole number of cents from 0.01 to 999999999.99, not 0/,
    );
    await expect(one({ amountCents: -5 })).rejects.toThrow(/amount must be/);
    await expect(one({ amountCents: 12.5 })).rejects.toThrow(/amount must be/);
    await expect(one({ amountCents: SEPA_AMOUNT_MAX_CENTS + 1 })).rejects.toThrow(/amount must be/);
    await expect(one({ debtorIban: 'NL00ABNA0417164300' })).rejects.toThrow(
      /debtor's IBAN "NL00ABNA0417164300" is not a valid IBAN/,
    );
    await expect(one({ debtorName: '' })).rejects.toThrow(/debtor's name is missing/);
    await expect(one({ endToEndId: '/E2E' })).rejects.toThrow(/EndToEndId "\/E2E" starts or ends with '\/'/);
    await expect(one({ mandateId: 'MANDAT-É' })).rejects.toThrow(/mandate id "MANDAT-É" has characters outside/);
    await expect(one({ mandateSignedOn: '2026-02-30' })).rejects.toThrow(
      /mandate signature date "2026-02-30" is not a date/,
    );
    await expect(one({ amendment: {} })).rejects.toThrow(/amendment names no original/);
    await expect(one({ debtorBic: 'NOTABIC!' })).rejects.toThrow(/debtor's BIC/);
    await expect(one({}, { collectionDate: '2026-12-05' })).rejects.toThrow(
      /collection date 2026-12-05 is not a TARGET2 business day/,
    );
    await expect(one({}, { collectionDate: '2026-12-25' })).rejects.toThrow(/not a TARGET2 business day/);
    await expect(one({}, { sequenceType: 'RPRE' as 'FRST' })).rejects.toThrow(/sequence type "RPRE"/);
    await expect(one({}, { paymentInfoId: '' })).rejects.toThrow(/PmtInfId .* is empty/);
    // Counts and sums: fewer or more debits than said, amounts that add up to more or less.
    await expect(one({}, { count: 2, controlSumCents: 2500 })).rejects.toThrow(/1 debits, but the block's count is 2/);
    await expect(one({}, { controlSumCents: 1249 })).rejects.toThrow(
      /add up to more than the block's control sum of 12.49/,
    );
    await expect(one({}, { controlSumCents: 1251 })).rejects.toThrow(
      /add up to 12.50, but the block's control sum is 12.51/,
    );
    const two = block([debit(1), debit(2)], { count: 1, controlSumCents: 2500 });
    await expect(writePain008(message([two], { count: 1 }), 'pain.008.001.02', () => {})).rejects.toThrow(
      /more debits than the block's count of 1/,
    );
    await expect(
      writePain008(message([block([debit(1)])], { count: 2, controlSumCents: 2500 }), 'pain.008.001.02', () => {}),
    ).rejects.toThrow(/1 debits, but the file's count is 2/);
    await expect(
      writePain008(message([block([debit(1)])], { controlSumCents: 1300 }), 'pain.008.001.02', () => {}),
    ).rejects.toThrow(/add up to 12.50, but the file's control sum is 13.00/);
    await expect(
      writePain008(message([], { count: 1, controlSumCents: 1 }), 'pain.008.001.02', () => {}),
    ).rejects.toThrow(/at least one block/);
  });

  it('knows a BIC both formats take', () => {
    for (const bic of ['ABNANL2A', 'GKCCBEBB', 'DEUTDEFF500', 'rabo nl 2u']) expect(isValidBic(bic), bic).toBe(true);
    for (const bic of ['ABNANL2', 'ABNANL2AX', '1BNANL2A', 'ABNA NL 2O', '']) expect(isValidBic(bic), bic).toBe(false);
  });
});
