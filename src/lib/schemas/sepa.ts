// SEPA return reason codes (R-transactions) and their texts, for transactions that fail or are
// charged back; the codes live with the rest of the SEPA format in src/lib/sepa/.
export { REASON_CODES } from '../sepa/reasons.js';

/** The code an outcome gets when the operator names none. */
export const DEFAULT_REASON: Readonly<Record<'charged_back' | 'failed', string>> = {
  charged_back: 'MD06',
  failed: 'AM04',
};
