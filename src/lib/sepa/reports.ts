// The bank's reports read back: camt.054 (debit/credit notifications), camt.053 (statements) and
// pain.002 (payment status reports), parsed as a stream with saxes (strict XML, line numbers):
// only the entries are kept, never the document.
//
// What an entry says (the core matches it by EndToEndId and, when given, the batch's MsgId):
// - camt, a transaction of a booked (Sts BOOK) entry, credited, without return information:
//   `booked`.
// - camt, a transaction with return information (TxDtls/RtrInf) or of a reversal (RvslInd true):
//   `returned` when its entry is booked, `rejected` when it is not (Sts PDNG or INFO: the bank
//   refused it before settlement, so no money moved). A debit entry without either is a payment
//   of the operator's own, never a collection: it is left out, like pending credits.
// - camt, a booked entry without transaction details but naming its batch (NtryDtls/Btch with
//   PmtInfId or MsgId): one entry with endToEndId '' standing for every transaction of that block
//   (or message); its amount is the entry's.
// - pain.002: a transaction whose status (TxSts, else that of its block, else the group's) is
//   RJCT: `rejected`. A block (PmtInfSts) or group (GrpSts) RJCT is also one entry with
//   endToEndId '' and the block's PmtInfId (null for the group) and its control sum when given:
//   it rejects every transaction of the block or message, listed or not.
// Transactions in a currency other than euro, and without any EndToEndId (or 'NOTPROVIDED'), are
// not collections of this service and are left out.
export type ReportFormat = 'camt.054.001.02' | 'camt.054.001.08' | 'camt.053.001.02' | 'pain.002.001.03';

export interface ReportEntry {
  /** booked collection; reject before settlement; return or refund after settlement */
  outcome: 'booked' | 'rejected' | 'returned';
  /** '' when the entry stands for a whole payment information block or message (see paymentInfoId). */
  endToEndId: string;
  /** The pain.008 MsgId the entry refers to, when the report carries it. */
  originalMessageId: string | null;
  /** The pain.008 PmtInfId the entry refers to, when the report carries it. */
  paymentInfoId: string | null;
  /** null when the report does not state the amount of this transaction. */
  amountCents: number | null;
  /** RtrInf/Rsn/Cd or StsRsnInf/Rsn/Cd */
  reasonCode: string | null;
  /** YYYY-MM-DD (booking or value date) when given */
  bookedOn: string | null;
  /** Where in the file, for messages: e.g. "entry 12, transaction 3" */
  where: string;
}

export interface BankReport {
  format: ReportFormat;
  messageId: string;
  entries: ReportEntry[];
}

/** Well-formed XML that is no report of these formats. */
export class NotABankReportError extends Error {
  override name = 'NotABankReportError';
}

/** Not well-formed XML: `line` is where the parser stopped, from 1. */
export class MalformedReportError extends Error {
  override name = 'MalformedReportError';
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:';
/** The message element under Document of each format this reader knows. */
const MESSAGES: Readonly<Record<ReportFormat, string>> = {
  'camt.054.001.02': 'BkToCstmrDbtCdtNtfctn',
  'camt.054.001.08': 'BkToCstmrDbtCdtNtfctn',
  'camt.053.001.02': 'BkToCstmrStmt',
  'pain.002.001.03': 'CstmrPmtStsRpt',
};

/**
 * Reads one report, streaming; throws NotABankReportError, or MalformedReportError with the line,
 * for what it cannot read.
 */
export async function readBankReport(input: AsyncIterable<Buffer | string> | Buffer | string): Promise<BankReport> {
  const reading = (await reportReader())();
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    reading.write(input);
  } else {
    for await (const chunk of input) reading.write(chunk);
  }
  const head = reading.end();
  return { ...head, entries: reading.take() };
}

/** What a report says of itself, before its entries. */
export type ReportHead = Pick<BankReport, 'format' | 'messageId'>;

/**
 * A report read a piece at a time, so that what it says can be applied while the rest is read. Each
 * call throws NotABankReportError, or MalformedReportError with the line, for what it cannot read.
 */
export interface ReportReading {
  write(chunk: Buffer | string): void;
  /** Its format and message id, once read. */
  head(): ReportHead | null;
  /** The entries read whole since the last call. */
  take(): ReportEntry[];
  /** The file has been given whole: what it says of itself, or why it is no report. */
  end(): ReportHead;
}

/** Makes readings of reports (the XML parser is loaded once, here). */
export async function reportReader(): Promise<() => ReportReading> {
  const { SaxesParser } = await import('saxes');
  return () => {
    const parser = new SaxesParser({ xmlns: false, position: true });
    const reader = new Reader();
    parser.on('error', (error) => {
      const text = error.message.replace(/^\d+:\d+: /, '');
      throw new MalformedReportError(`not well-formed XML at line ${parser.line}: ${text}`, parser.line);
    });
    parser.on('opentag', (tag) => reader.open(tag.name, tag.attributes as Record<string, string>));
    parser.on('text', (text) => reader.text(text));
    parser.on('closetag', (tag) => reader.close(tag.name));

    let decoder: TextDecoder | null = null;
    let started = false;
    const feed = (chunk: Buffer | string) => {
      let text: string;
      if (typeof chunk === 'string') {
        text = chunk;
      } else {
        decoder ??= decoderFor(chunk);
        text = decoder.decode(chunk, { stream: true });
      }
      if (!started) {
        text = text.replace(/^\uFEFF/, '');
        const first = text.trimStart();
        if (first === '') return;
        started = true;
        if (!first.startsWith('<')) throw new NotABankReportError('not an XML document, so no ISO 20022 bank report');
        text = first;
      }
      parser.write(text);
    };
    return {
      write: feed,
      head: () => reader.head(),
      take: () => reader.take(),
      end: () => {
        if (decoder) feed(decoder.decode());
        if (!started) throw new NotABankReportError('the file is empty');
        parser.close();
        return reader.report();
      },
    };
  };
}

/** UTF-8 unless the XML declaration at the start names another encoding. */
function decoderFor(first: Buffer): TextDecoder {
  const head = first.subarray(0, 200).toString('latin1');
  const declared = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head)?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8');
  } catch {
    throw new NotABankReportError(`the file's encoding "${declared}" is unknown`);
  }
}

interface Txn {
  endToEndId: string | null;
  messageId: string | null;
  paymentInfoId: string | null;
  amount: number | null;
  currency: string | null;
  debit: boolean | null;
  returnInfo: boolean;
  reason: string | null;
}

const newTxn = (): Txn => ({
  endToEndId: null,
  messageId: null,
  paymentInfoId: null,
  amount: null,
  currency: null,
  debit: null,
  returnInfo: false,
  reason: null,
});

class Reader {
  private format: ReportFormat | null = null;
  private messageId: string | null = null;
  private readonly entries: ReportEntry[] = [];
  private depth = 0;
  private path = '';
  private readonly lengths: number[] = [];
  private textBuffer = '';
  private currency: string | null = null;
  /** Where the current camt entry (Ntry), transaction (TxDtls), pain.002 block or transaction starts in `path`. */
  private entryAt = -1;
  private txAt = -1;
  private entryNumber = 0;
  private txNumber = 0;
  // camt entry
  private entry = {
    amount: null as number | null,
    currency: null as string | null,
    debit: false,
    reversal: false,
    status: null as string | null,
    bookedOn: null as string | null,
    valueOn: null as string | null,
    batchMessageId: null as string | null,
    batchPaymentInfoId: null as string | null,
  };
  private txns: Txn[] = [];
  private tx: Txn = newTxn();
  // pain.002
  private group = {
    originalMessageId: null as string | null,
    status: null as string | null,
    reason: null as string | null,
    sum: null as number | null,
  };
  private block = {
    paymentInfoId: null as string | null,
    status: null as string | null,
    reason: null as string | null,
    sum: null as number | null,
  };
  private txStatus: string | null = null;

  open(name: string, attributes: Record<string, string>): void {
    const local = localName(name);
    this.depth++;
    if (this.depth === 1) this.root(local, name, attributes);
    else if (this.depth === 2) this.message(local);
    this.lengths.push(this.path.length);
    this.path += `/${local}`;
    this.textBuffer = '';
    if (attributes.Ccy !== undefined) this.currency = attributes.Ccy;
    if (this.format === 'pain.002.001.03') this.openPain002(local);
    else this.openCamt(local);
  }

  text(text: string): void {
    this.textBuffer += text;
  }

  close(_name: string): void {
    const text = this.textBuffer.trim();
    if (this.format === 'pain.002.001.03') this.closePain002(text);
    else this.closeCamt(text);
    this.path = this.path.slice(0, this.lengths.pop());
    this.depth--;
    this.textBuffer = '';
  }

  report(): ReportHead {
    if (this.format === null) throw new NotABankReportError('no ISO 20022 bank report');
    if (this.messageId === null)
      throw new NotABankReportError(`the ${this.format} report has no message id (GrpHdr/MsgId)`);
    return { format: this.format, messageId: this.messageId };
  }

  head(): ReportHead | null {
    return this.format === null || this.messageId === null ? null : { format: this.format, messageId: this.messageId };
  }

  take(): ReportEntry[] {
    return this.entries.splice(0);
  }

  private root(local: string, name: string, attributes: Record<string, string>): void {
    const colon = name.indexOf(':');
    const namespace = (colon < 0 ? attributes.xmlns : attributes[`xmlns:${name.slice(0, colon)}`]) ?? '';
    const version = namespace.startsWith(NAMESPACE) ? namespace.slice(NAMESPACE.length) : '';
    if (local === 'Document' && version in MESSAGES) {
      this.format = version as ReportFormat;
      return;
    }
    if (local === 'Document' && version.startsWith('pain.008.')) {
      throw new NotABankReportError(
        `a ${version} file is a collection file for the bank, not a report from it (camt.054, camt.053 or pain.002)`,
      );
    }
    const what = version ? `ISO 20022 ${version}` : `<${name}>${namespace ? ` in ${namespace}` : ''}`;
    throw new NotABankReportError(
      `${what} is no bank report this reads (camt.054.001.02 or .08, camt.053.001.02, pain.002.001.03)`,
    );
  }

  private message(local: string): void {
    const expected = MESSAGES[this.format!];
    if (local !== expected) throw new NotABankReportError(`a ${this.format} document holds ${expected}, not ${local}`);
  }

  // camt.053 and camt.054: Document/<message>/<Stmt|Ntfctn>/Ntry/NtryDtls/TxDtls

  private openCamt(local: string): void {
    if (local === 'Ntry' && this.depth === 4) {
      this.entryAt = this.path.length;
      this.entryNumber++;
      this.entry = {
        amount: null,
        currency: null,
        debit: false,
        reversal: false,
        status: null,
        bookedOn: null,
        valueOn: null,
        batchMessageId: null,
        batchPaymentInfoId: null,
      };
      this.txns = [];
      this.txNumber = 0;
    } else if (local === 'TxDtls' && this.entryAt >= 0 && this.depth === 6) {
      this.txAt = this.path.length;
      this.tx = newTxn();
    }
  }

  private closeCamt(text: string): void {
    if (this.depth === 4 && this.path.endsWith('/GrpHdr/MsgId')) {
      this.messageId = text;
      return;
    }
    if (this.entryAt < 0) return;
    if (this.txAt >= 0) {
      const rel = this.path.slice(this.txAt);
      if (rel === '') {
        this.txns.push(this.tx);
        this.txAt = -1;
        return;
      }
      const tx = this.tx;
      switch (rel) {
        case '/Refs/EndToEndId':
          tx.endToEndId = text;
          break;
        case '/Refs/MsgId':
          tx.messageId = text;
          break;
        case '/Refs/PmtInfId':
          tx.paymentInfoId = text;
          break;
        case '/Amt':
        case '/AmtDtls/TxAmt/Amt':
        case '/AmtDtls/InstdAmt/Amt':
          // TxDtls/Amt (.08) or the transaction amount first, else the instructed amount.
          if (tx.amount === null || rel !== '/AmtDtls/InstdAmt/Amt') {
            tx.amount = this.cents(text, this.where());
            tx.currency = this.currency;
          }
          break;
        case '/CdtDbtInd':
          tx.debit = text === 'DBIT';
          break;
        case '/RtrInf':
          tx.returnInfo = true;
          break;
        case '/RtrInf/Rsn/Cd':
        case '/RtrInf/Rsn/Prtry':
          tx.reason ??= text.toUpperCase();
          break;
      }
      return;
    }
    const rel = this.path.slice(this.entryAt);
    const entry = this.entry;
    switch (rel) {
      case '':
        this.finishCamtEntry();
        this.entryAt = -1;
        break;
      case '/Amt':
        entry.amount = this.cents(text, `entry ${this.entryNumber}`);
        entry.currency = this.currency;
        break;
      case '/CdtDbtInd':
        entry.debit = text === 'DBIT';
        break;
      case '/RvslInd':
        entry.reversal = text === 'true' || text === '1';
        break;
      case '/Sts':
        if (text !== '') entry.status = text;
        break;
      case '/Sts/Cd':
      case '/Sts/Prtry':
        entry.status = text;
        break;
      case '/BookgDt/Dt':
      case '/BookgDt/DtTm':
        entry.bookedOn = text.slice(0, 10);
        break;
      case '/ValDt/Dt':
      case '/ValDt/DtTm':
        entry.valueOn = text.slice(0, 10);
        break;
      case '/NtryDtls/Btch/MsgId':
        entry.batchMessageId = text;
        break;
      case '/NtryDtls/Btch/PmtInfId':
        entry.batchPaymentInfoId = text;
        break;
    }
  }

  private finishCamtEntry(): void {
    const entry = this.entry;
    const booked = entry.status === 'BOOK';
    const bookedOn = entry.bookedOn ?? entry.valueOn;
    if (this.txns.length === 0) {
      // A batch booking without transaction details: one entry for its whole block or message.
      if (
        booked &&
        !entry.debit &&
        !entry.reversal &&
        entry.currency === 'EUR' &&
        (entry.batchPaymentInfoId || entry.batchMessageId)
      ) {
        this.entries.push({
          outcome: 'booked',
          endToEndId: '',
          originalMessageId: entry.batchMessageId,
          paymentInfoId: entry.batchPaymentInfoId,
          amountCents: entry.amount,
          reasonCode: null,
          bookedOn,
          where: `entry ${this.entryNumber}`,
        });
      }
      return;
    }
    const single = this.txns.length === 1;
    this.txns.forEach((tx, i) => {
      if (tx.endToEndId === null || tx.endToEndId === '' || tx.endToEndId === 'NOTPROVIDED') return;
      const currency = tx.amount !== null ? tx.currency : entry.currency;
      if (currency !== 'EUR') return;
      const returned = tx.returnInfo || entry.reversal;
      const debit = tx.debit ?? entry.debit;
      if (!returned && (debit || !booked)) return;
      this.entries.push({
        outcome: returned ? (booked ? 'returned' : 'rejected') : 'booked',
        endToEndId: tx.endToEndId,
        originalMessageId: tx.messageId ?? entry.batchMessageId,
        paymentInfoId: tx.paymentInfoId ?? entry.batchPaymentInfoId,
        amountCents: tx.amount ?? (single ? entry.amount : null),
        reasonCode: returned ? tx.reason : null,
        bookedOn,
        where: `entry ${this.entryNumber}, transaction ${i + 1}`,
      });
    });
  }

  // pain.002.001.03: Document/CstmrPmtStsRpt/{GrpHdr, OrgnlGrpInfAndSts, OrgnlPmtInfAndSts/TxInfAndSts}

  private openPain002(local: string): void {
    if (this.depth === 3 && local === 'OrgnlPmtInfAndSts') {
      this.entryAt = this.path.length;
      this.entryNumber++;
      this.txNumber = 0;
      this.block = { paymentInfoId: null, status: null, reason: null, sum: null };
    } else if (this.depth === 4 && local === 'TxInfAndSts' && this.entryAt >= 0) {
      this.txAt = this.path.length;
      this.txNumber++;
      this.tx = newTxn();
      this.txStatus = null;
    }
  }

  private closePain002(text: string): void {
    const path = this.path;
    if (this.depth === 4 && path.endsWith('/GrpHdr/MsgId')) {
      this.messageId = text;
      return;
    }
    if (this.depth >= 3 && path.includes('/OrgnlGrpInfAndSts')) {
      const group = this.group;
      const rel = path.slice(path.indexOf('/OrgnlGrpInfAndSts') + '/OrgnlGrpInfAndSts'.length);
      if (rel === '/OrgnlMsgId') group.originalMessageId = text;
      else if (rel === '/GrpSts') group.status = text;
      else if (rel === '/OrgnlCtrlSum') group.sum = this.cents(text, 'the group status');
      else if (rel === '/StsRsnInf/Rsn/Cd' || rel === '/StsRsnInf/Rsn/Prtry') group.reason ??= text.toUpperCase();
      else if (rel === '' && group.status === 'RJCT')
        this.reject('', null, group.sum, group.reason, 'the group status');
      return;
    }
    if (this.entryAt < 0) return;
    const block = this.block;
    if (this.txAt >= 0) {
      const rel = path.slice(this.txAt);
      const tx = this.tx;
      if (rel === '') {
        const status = this.txStatus ?? block.status ?? this.group.status;
        const where = `payment information ${this.entryNumber}, transaction ${this.txNumber}`;
        if (status === 'RJCT' && tx.endToEndId)
          this.reject(
            tx.endToEndId,
            block.paymentInfoId,
            tx.currency === 'EUR' ? tx.amount : null,
            tx.reason ?? block.reason ?? this.group.reason,
            where,
          );
        this.txAt = -1;
      } else if (rel === '/OrgnlEndToEndId') tx.endToEndId = text;
      else if (rel === '/TxSts') this.txStatus = text;
      else if (rel === '/StsRsnInf/Rsn/Cd' || rel === '/StsRsnInf/Rsn/Prtry') tx.reason ??= text.toUpperCase();
      else if (rel === '/OrgnlTxRef/Amt/InstdAmt') {
        tx.amount = this.cents(text, `payment information ${this.entryNumber}, transaction ${this.txNumber}`);
        tx.currency = this.currency;
      }
      return;
    }
    const rel = path.slice(this.entryAt);
    if (rel === '') {
      if (block.status === 'RJCT')
        this.reject(
          '',
          block.paymentInfoId,
          block.sum,
          block.reason ?? this.group.reason,
          `payment information ${this.entryNumber}`,
        );
      this.entryAt = -1;
    } else if (rel === '/OrgnlPmtInfId') block.paymentInfoId = text;
    else if (rel === '/PmtInfSts') block.status = text;
    else if (rel === '/OrgnlCtrlSum') block.sum = this.cents(text, `payment information ${this.entryNumber}`);
    else if (rel === '/StsRsnInf/Rsn/Cd' || rel === '/StsRsnInf/Rsn/Prtry') block.reason ??= text.toUpperCase();
  }

  private reject(
    endToEndId: string,
    paymentInfoId: string | null,
    amountCents: number | null,
    reasonCode: string | null,
    where: string,
  ): void {
    this.entries.push({
      outcome: 'rejected',
      endToEndId,
      originalMessageId: this.group.originalMessageId,
      paymentInfoId,
      amountCents,
      reasonCode,
      bookedOn: null,
      where,
    });
  }

  private where(): string {
    return `entry ${this.entryNumber}, transaction ${this.txns.length + 1}`;
  }

  /** Whole cents of an ISO amount ("12.5", "12.50", "12.50000"); a fraction of a cent is no euro amount. */
  private cents(text: string, where: string): number {
    const match = /^(\d{1,15})(?:\.(\d{1,5}))?$/.exec(text);
    const fraction = match?.[2] ?? '';
    if (!match || /[1-9]/.test(fraction.slice(2)))
      throw new NotABankReportError(`${where}: "${text}" is not an amount in cents`);
    return Number(match[1]) * 100 + Number(fraction.slice(0, 2).padEnd(2, '0'));
  }
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}
