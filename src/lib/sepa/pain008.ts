// The pain.008 file (SEPA Direct Debit initiation, ISO 20022) the operator uploads to the bank.
export type Pain008Format = 'pain.008.001.02' | 'pain.008.001.08';
export type SequenceType = 'FRST' | 'RCUR' | 'OOFF' | 'FNAL';

export interface Pain008Creditor {
  name: string;
  iban: string;
  bic?: string | null;
  creditorId: string;
}

export interface Pain008Debit {
  /** ≤ 35 characters of the EPC set: the bank's reports echo it back. */
  endToEndId: string;
  /** > 0, at most the SEPA maximum (999,999,999.99 euro). */
  amountCents: number;
  /** MndtId */
  mandateId: string;
  /** DtOfSgntr, YYYY-MM-DD */
  mandateSignedOn: string;
  /** Transliterated to the EPC set and cut to 70 characters by the writer. */
  debtorName: string;
  debtorIban: string;
  debtorBic?: string | null;
  /** Ustrd: transliterated and cut to 140 characters by the writer. */
  remittance?: string | null;
  /** AmdmntInd true when given: the mandate id, the debtor's account, or the debtor's bank (SMNDA) changed since the last collection. */
  amendment?: { originalMandateId?: string; originalDebtorIban?: string; originalDebtorAgentSmnda?: boolean } | null;
}

/** One PmtInf: one requested collection date and sequence type. */
export interface Pain008Block {
  /** ≤ 35 */
  paymentInfoId: string;
  sequenceType: SequenceType;
  /** ReqdColltnDt, YYYY-MM-DD, a TARGET2 day */
  collectionDate: string;
  /** NbOfTxs of the block, known before its debits are written */
  count: number;
  /** CtrlSum of the block */
  controlSumCents: number;
  debits: AsyncIterable<Pain008Debit> | Iterable<Pain008Debit>;
}

export interface Pain008Message {
  /** MsgId, ≤ 35 */
  messageId: string;
  /** CreDtTm as given (ISO date-time): the same batch must export byte-identical, so never "now". */
  createdAt: string;
  /** NbOfTxs of the file */
  count: number;
  /** CtrlSum of the file */
  controlSumCents: number;
  initiatingPartyName: string;
  creditor: Pain008Creditor;
  blocks: AsyncIterable<Pain008Block> | Iterable<Pain008Block>;
}
