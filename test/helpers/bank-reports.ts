// The bank's side, for tests, the demo's test and benchmarks: camt.054 (001.02 and .08) and
// camt.053 reports of booked collections, returns and rejects, and pain.002 status reports of
// rejects, for given end-to-end ids and amounts. They validate against the official schemas
// (pain.002, which has none here, aside) and src/lib/sepa/reports.ts reads them back.
import xmlbuilder from 'xmlbuilder';
import { formatAmount } from '../../src/lib/schemas/money.js';
import { indentedWriter } from '../../src/lib/sepa/xml.js';

/** A collection as the bank saw it. */
export interface BankTransaction {
  endToEndId: string;
  amountCents: number;
  /** The pain.008 MsgId (Refs/MsgId), when the bank echoes it. */
  messageId?: string;
  /** The pain.008 PmtInfId (Refs/PmtInfId), when the bank echoes it. */
  paymentInfoId?: string;
}

/** A collection returned or rejected, with its SEPA reason code. */
export interface ReturnedTransaction extends BankTransaction {
  reasonCode: string;
  /** The booking date of the return; the report's `bookedOn` when not given. */
  bookedOn?: string;
}

export interface CamtInput {
  format?: 'camt.054.001.02' | 'camt.054.001.08' | 'camt.053.001.02';
  messageId?: string;
  createdAt?: string;
  /** The creditor's account the report is about. */
  accountIban?: string;
  /** Booking (and value) date of the booked entries. */
  bookedOn: string;
  /** Credited collections: one entry each, or one entry with all of them when `batchBooked`. */
  booked?: Iterable<BankTransaction>;
  batchBooked?: boolean;
  /** Returns and refunds after settlement: booked debit entries (RvslInd true) with RtrInf. */
  returns?: Iterable<ReturnedTransaction>;
  /** Rejects before settlement: entries with return information that are not booked (Sts INFO). */
  rejects?: Iterable<ReturnedTransaction>;
}

/** A camt.054 or camt.053 report, a chunk every ~64 KB (for reports of any size). */
export function* camtChunks(input: CamtInput): Generator<string> {
  const format = input.format ?? 'camt.054.001.02';
  const v08 = format === 'camt.054.001.08';
  const statement = format === 'camt.053.001.02';
  let pending: string[] = [];
  let size = 0;
  const doc = xmlbuilder.begin({ writer: xmlbuilder.stringWriter({ writer: indentedWriter() }) }, (chunk: string) => {
    pending.push(chunk);
    size += chunk.length;
  });
  /** The chunk to hand out now: what is pending once there is enough of it (or `always`). */
  const take = (always = false): string => {
    if (!always && size < 64 * 1024) return '';
    const chunk = pending.join('');
    pending = [];
    size = 0;
    return chunk;
  };
  const leaf = (tag: string, text: string, attributes?: Record<string, string>) =>
    doc
      .ele(tag, attributes ?? {})
      .txt(text)
      .up();
  const amount = (tag: string, cents: number) => leaf(tag, formatAmount(cents), { Ccy: 'EUR' });
  const createdAt = input.createdAt ?? `${input.bookedOn}T08:00:00`;

  doc
    .dec('1.0', 'UTF-8')
    .ele('Document', { xmlns: `urn:iso:std:iso:20022:tech:xsd:${format}` })
    .ele(statement ? 'BkToCstmrStmt' : 'BkToCstmrDbtCdtNtfctn');
  doc.ele('GrpHdr');
  leaf('MsgId', input.messageId ?? 'BANK-REPORT-1');
  leaf('CreDtTm', createdAt);
  doc.up();
  doc.ele(statement ? 'Stmt' : 'Ntfctn');
  leaf('Id', `${input.messageId ?? 'BANK-REPORT-1'}-1`);
  leaf('CreDtTm', createdAt);
  doc
    .ele('Acct')
    .ele('Id')
    .ele('IBAN')
    .txt(input.accountIban ?? 'NL91ABNA0417164300')
    .up()
    .up()
    .up();
  if (statement) {
    // A statement needs its balances; these tests care only for its entries.
    for (const code of ['OPBD', 'CLBD']) {
      doc.ele('Bal').ele('Tp').ele('CdOrPrtry').ele('Cd').txt(code).up().up().up();
      amount('Amt', 0);
      leaf('CdtDbtInd', 'CRDT');
      doc.ele('Dt').ele('Dt').txt(input.bookedOn).up().up();
      doc.up();
    }
  }

  const entry = (
    options: { cents: number; debit: boolean; reversal: boolean; status: 'BOOK' | 'INFO'; on: string; family: string },
    details: () => void,
  ) => {
    doc.ele('Ntry');
    amount('Amt', options.cents);
    leaf('CdtDbtInd', options.debit ? 'DBIT' : 'CRDT');
    if (options.reversal) leaf('RvslInd', 'true');
    if (v08) doc.ele('Sts').ele('Cd').txt(options.status).up().up();
    else leaf('Sts', options.status);
    doc.ele('BookgDt').ele('Dt').txt(options.on).up().up();
    doc.ele('ValDt').ele('Dt').txt(options.on).up().up();
    doc
      .ele('BkTxCd')
      .ele('Domn')
      .ele('Cd')
      .txt('PMNT')
      .up()
      .ele('Fmly')
      .ele('Cd')
      .txt('IDDT')
      .up()
      .ele('SubFmlyCd')
      .txt(options.family)
      .up()
      .up()
      .up()
      .up();
    doc.ele('NtryDtls');
    details();
    doc.up().up();
  };
  const transaction = (tx: BankTransaction, debit: boolean, reasonCode?: string) => {
    doc.ele('TxDtls').ele('Refs');
    if (tx.messageId) leaf('MsgId', tx.messageId);
    if (tx.paymentInfoId) leaf('PmtInfId', tx.paymentInfoId);
    leaf('EndToEndId', tx.endToEndId);
    doc.up();
    if (v08) {
      amount('Amt', tx.amountCents);
      leaf('CdtDbtInd', debit ? 'DBIT' : 'CRDT');
    } else {
      doc.ele('AmtDtls').ele('TxAmt');
      amount('Amt', tx.amountCents);
      doc.up().up();
    }
    if (reasonCode) doc.ele('RtrInf').ele('Rsn').ele('Cd').txt(reasonCode).up().up().up();
    doc.up();
  };

  if (input.batchBooked) {
    const booked = [...(input.booked ?? [])];
    const total = booked.reduce((sum, tx) => sum + tx.amountCents, 0);
    if (booked.length > 0)
      entry({ cents: total, debit: false, reversal: false, status: 'BOOK', on: input.bookedOn, family: 'ESDD' }, () =>
        booked.forEach((tx) => transaction(tx, false)),
      );
  } else {
    for (const tx of input.booked ?? []) {
      entry(
        { cents: tx.amountCents, debit: false, reversal: false, status: 'BOOK', on: input.bookedOn, family: 'ESDD' },
        () => transaction(tx, false),
      );
      const chunk = take();
      if (chunk) yield chunk;
    }
  }
  // Returns are booked; rejects are not (Sts INFO): refused before settlement, no money moved.
  const unpaid = [
    ...[...(input.returns ?? [])].map((tx) => ({ tx, status: 'BOOK' as const })),
    ...[...(input.rejects ?? [])].map((tx) => ({ tx, status: 'INFO' as const })),
  ];
  for (const { tx, status } of unpaid) {
    const on = tx.bookedOn ?? input.bookedOn;
    entry({ cents: tx.amountCents, debit: true, reversal: true, status, on, family: 'UPDD' }, () =>
      transaction(tx, true, tx.reasonCode),
    );
    const chunk = take();
    if (chunk) yield chunk;
  }
  doc.end();
  pending.push('\n');
  yield take(true);
}

/** Writes a camt report to `write`, awaiting each chunk. */
export async function writeCamt(input: CamtInput, write: (chunk: string) => void | Promise<void>): Promise<void> {
  for (const chunk of camtChunks(input)) await write(chunk);
}

/** A camt.054 (001.02 unless `format` says .08) as a string. */
export function camt054For(input: CamtInput): string {
  return [...camtChunks({ format: 'camt.054.001.02', ...input })].join('');
}

/** A camt.053.001.02 statement as a string. */
export function camt053For(input: Omit<CamtInput, 'format'>): string {
  return [...camtChunks({ ...input, format: 'camt.053.001.02' })].join('');
}

export interface Pain002Block {
  paymentInfoId: string;
  /** PmtInfSts; RJCT rejects every transaction of the block. */
  status?: 'RJCT' | 'PART' | 'ACCP';
  reasonCode?: string;
  rejects?: Array<{ endToEndId: string; amountCents?: number; reasonCode: string }>;
}

export interface Pain002Input {
  messageId?: string;
  createdAt?: string;
  /** The pain.008 MsgId the report answers. */
  originalMessageId: string;
  /** GrpSts; RJCT rejects the whole file. */
  groupStatus?: 'RJCT' | 'PART' | 'ACCP' | 'ACTC';
  groupReasonCode?: string;
  blocks?: Pain002Block[];
}

/** A pain.002.001.03 status report as a string. */
export function pain002For(input: Pain002Input): string {
  const chunks: string[] = [];
  const doc = xmlbuilder.begin(
    { writer: xmlbuilder.stringWriter({ writer: indentedWriter() }) },
    (chunk: string) => void chunks.push(chunk),
  );
  const leaf = (tag: string, text: string, attributes?: Record<string, string>) =>
    doc
      .ele(tag, attributes ?? {})
      .txt(text)
      .up();
  const reason = (code: string | undefined) => {
    if (code) doc.ele('StsRsnInf').ele('Rsn').ele('Cd').txt(code).up().up().up();
  };
  doc
    .dec('1.0', 'UTF-8')
    .ele('Document', { xmlns: 'urn:iso:std:iso:20022:tech:xsd:pain.002.001.03' })
    .ele('CstmrPmtStsRpt');
  doc.ele('GrpHdr');
  leaf('MsgId', input.messageId ?? 'STATUS-1');
  leaf('CreDtTm', input.createdAt ?? '2026-12-04T07:00:00');
  doc.up();
  doc.ele('OrgnlGrpInfAndSts');
  leaf('OrgnlMsgId', input.originalMessageId);
  leaf('OrgnlMsgNmId', 'pain.008.001.02');
  if (input.groupStatus) leaf('GrpSts', input.groupStatus);
  reason(input.groupReasonCode);
  doc.up();
  for (const block of input.blocks ?? []) {
    doc.ele('OrgnlPmtInfAndSts');
    leaf('OrgnlPmtInfId', block.paymentInfoId);
    if (block.status) leaf('PmtInfSts', block.status);
    reason(block.reasonCode);
    for (const reject of block.rejects ?? []) {
      doc.ele('TxInfAndSts');
      leaf('OrgnlEndToEndId', reject.endToEndId);
      leaf('TxSts', 'RJCT');
      reason(reject.reasonCode);
      if (reject.amountCents !== undefined)
        doc
          .ele('OrgnlTxRef')
          .ele('Amt')
          .ele('InstdAmt', { Ccy: 'EUR' })
          .txt(formatAmount(reject.amountCents))
          .up()
          .up()
          .up();
      doc.up();
    }
    doc.up();
  }
  doc.end();
  return `${chunks.join('')}\n`;
}
