// SEPA Direct Debit reason codes of R-transactions (rejects, returns, refunds; EPC SDD Core
// rulebook and implementation guidelines, ISO external code sets), with their texts and whether
// presenting the collection again can cure them.

interface Reason {
  text: string;
  /** Whether a later collection under the same mandate and account can succeed without anyone acting first. */
  retry: boolean;
}

const REASONS: ReadonlyMap<string, Reason> = new Map<string, Reason>([
  ['AC01', { text: 'Account identifier incorrect', retry: false }],
  ['AC04', { text: 'Account closed', retry: false }],
  ['AC06', { text: 'Account blocked', retry: false }],
  ['AC13', { text: 'Debtor account is a consumer account', retry: false }],
  ['AG01', { text: 'Direct debit forbidden on this account', retry: false }],
  ['AG02', { text: 'Operation code incorrect', retry: false }],
  ['AM04', { text: 'Insufficient funds', retry: true }],
  ['AM05', { text: 'Duplicate collection', retry: false }],
  ['BE05', { text: 'Creditor identifier incorrect', retry: false }],
  ['CNOR', { text: 'Creditor bank is not registered', retry: false }],
  ['DNOR', { text: 'Debtor bank is not registered', retry: false }],
  ['ED05', { text: 'Settlement failed', retry: true }],
  ['FF01', { text: 'File format incorrect', retry: false }],
  ['FF05', { text: 'Direct debit type incorrect', retry: false }],
  ['MD01', { text: 'No valid mandate', retry: false }],
  ['MD02', { text: 'Mandate data missing or incorrect', retry: false }],
  // The debtor's unconditional refund right on an authorised collection: the mandate stays valid
  // (unlike MD01), the service follows chargebacks up with storno retries, and the debtor keeps
  // the same right on the retry, so a retry never takes money against their will.
  ['MD06', { text: 'Refund requested by the debtor', retry: true }],
  ['MD07', { text: 'Debtor deceased', retry: false }],
  ['MS02', { text: 'Refused by the debtor', retry: true }],
  ['MS03', { text: 'Reason not specified', retry: true }],
  ['RC01', { text: 'Bank identifier (BIC) incorrect', retry: false }],
  ['RR01', { text: 'Debtor account or identification missing', retry: false }],
  ['RR02', { text: 'Debtor name or address missing', retry: false }],
  ['RR03', { text: 'Creditor name or address missing', retry: false }],
  ['RR04', { text: 'Regulatory reason', retry: false }],
  ['SL01', { text: 'Specific service offered by the debtor bank', retry: false }],
]);

/** Every code and its text, in code order: what `transactions simulate` accepts and shows. */
export const REASON_CODES: ReadonlyMap<string, string> = new Map(
  [...REASONS].map(([code, reason]) => [code, reason.text]),
);

/** The text of a SEPA reason code, or undefined when it is none of the EPC's. */
export function reasonText(code: string): string | undefined {
  return REASONS.get(code)?.text;
}

/**
 * Whether a storno retry can cure what the code says: insufficient funds (AM04), an unexplained
 * refusal (MS02, MS03), a refund of an authorised collection (MD06) or a failed settlement (ED05).
 * A wrong or closed account, a missing or revoked mandate, a deceased debtor, a blocked account,
 * wrong creditor or file data, a duplicate, and any code not listed are not.
 */
export function retryable(code: string): boolean {
  return REASONS.get(code)?.retry ?? false;
}
