// SEPA return reason codes (R-transactions) and their texts, for transactions that fail or are
// charged back. Kept free of zod: the read path shows the texts.
export const REASON_CODES: ReadonlyMap<string, string> = new Map([
  ['AC01', 'Account identifier incorrect'],
  ['AC04', 'Account closed'],
  ['AC06', 'Account blocked'],
  ['AC13', 'Debtor account is a consumer account'],
  ['AG01', 'Direct debit forbidden on this account'],
  ['AG02', 'Operation code incorrect'],
  ['AM04', 'Insufficient funds'],
  ['AM05', 'Duplicate collection'],
  ['BE05', 'Creditor identifier incorrect'],
  ['CNOR', 'Creditor bank is not registered'],
  ['DNOR', 'Debtor bank is not registered'],
  ['FF01', 'File format incorrect'],
  ['MD01', 'No valid mandate'],
  ['MD02', 'Mandate data missing or incorrect'],
  ['MD06', 'Refund requested by the debtor'],
  ['MD07', 'Debtor deceased'],
  ['MS02', 'Refused by the debtor'],
  ['MS03', 'Reason not specified'],
  ['RC01', 'Bank identifier (BIC) incorrect'],
  ['RR01', 'Debtor account or identification missing'],
  ['RR02', 'Debtor name or address missing'],
  ['RR03', 'Creditor name or address missing'],
  ['RR04', 'Regulatory reason'],
  ['SL01', 'Specific service offered by the debtor bank'],
]);

/** The code an outcome gets when the operator names none. */
export const DEFAULT_REASON: Readonly<Record<'charged_back' | 'failed', string>> = {
  charged_back: 'MD06',
  failed: 'AM04',
};
