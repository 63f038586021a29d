import { describe, expect, it } from 'vitest';
import { isValidCreditorId, normaliseCreditorId } from '../../src/lib/sepa/creditor.js';

describe('SEPA creditor identifier (ISO 7064 mod 97-10)', () => {
  it('accepts published identifiers of several countries', () => {
    // The example, the Bundesbank's test identifier and the EPC's examples per country.
    for (const id of [
      'NL57ZZZ999999999999',
      'DE98ZZZ09999999999',
      'AT61ZZZ01234567890',
      'BE69ZZZ050D000000008',
      'IT66ZZZA1B2C3D4E5F6G7H8',
      'FR72ZZZ123456',
      'ES50ZZZM23456789',
    ]) {
      expect(isValidCreditorId(id), id).toBe(true);
    }
  });

  it('refuses wrong check digits, a changed or swapped digit, and malformed shapes', () => {
    for (const id of [
      'NL98ZZZ999999999999',
      'DE97ZZZ09999999999',
      'DE98ZZZ09999999998',
      'DE98ZZZ90999999999',
      'NL57ZZZ99999999999',
      'NL5ZZZ999999999999',
      '57NLZZZ999999999999',
      'NL57ZZZ',
      'NL57ZZZ99999999999-',
      '',
      'DE98ZZZ0999999999912345678901234567890',
    ]) {
      expect(isValidCreditorId(id), id).toBe(false);
    }
  });

  it('ignores the business code (positions 5-7), spaces and case', () => {
    expect(isValidCreditorId('DE98ABC09999999999')).toBe(true);
    expect(isValidCreditorId('de98 zzz 0999 9999 999')).toBe(true);
    expect(isValidCreditorId(' nl57zzz999999999999 ')).toBe(true);
    expect(normaliseCreditorId(' nl57 zzz 9999 9999 9999 ')).toBe('NL57ZZZ999999999999');
  });
});
