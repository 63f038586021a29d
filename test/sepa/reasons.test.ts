import { describe, expect, it } from 'vitest';
import { REASON_CODES as SCHEMA_CODES } from '../../src/lib/schemas/sepa.js';
import { REASON_CODES, reasonText, retryable } from '../../src/lib/sepa/reasons.js';

describe('SEPA reason codes', () => {
  it('has a text for every code of SDD R-transactions, the ones simulate took before included', () => {
    const before = [
      'AC01 AC04 AC06 AC13 AG01 AG02 AM04 AM05 BE05 CNOR DNOR FF01',
      'MD01 MD02 MD06 MD07 MS02 MS03 RC01 RR01 RR02 RR03 RR04 SL01',
    ]
      .join(' ')
      .split(' ');
    for (const code of [...before, 'ED05', 'FF05']) expect(reasonText(code), code).toMatch(/^[A-Z]/);
    expect(reasonText('AM04')).toBe('Insufficient funds');
    expect(reasonText('MD06')).toBe('Refund requested by the debtor');
    expect(reasonText('XX99')).toBeUndefined();
    expect(SCHEMA_CODES).toBe(REASON_CODES);
    expect([...SCHEMA_CODES.keys()]).toEqual(expect.arrayContaining(before));
  });

  it('retries only what a later collection can cure', () => {
    for (const code of ['AM04', 'MS02', 'MS03', 'MD06', 'ED05']) expect(retryable(code), code).toBe(true);
    const final =
      'AC01 AC04 AC06 AC13 AG01 AG02 AM05 BE05 CNOR DNOR FF01 FF05 MD01 MD02 MD07 RC01 RR01 RR02 RR03 RR04 SL01'.split(
        ' ',
      );
    for (const code of final) expect(retryable(code), code).toBe(false);
    expect(retryable('XX99')).toBe(false);
    expect(retryable('')).toBe(false);
  });
});
