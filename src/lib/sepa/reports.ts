// The bank's reports read back: camt.054 (debit/credit notifications), camt.053 (statements) and
// pain.002 (payment status reports).
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
