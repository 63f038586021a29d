// Values as people read them: money, times with their zone, labels, and text made safe for a terminal.
import { describe, expect, it } from 'vitest';
import {
  formatDate,
  formatDateTime,
  formatMoney,
  formatValue,
  label,
  oneLine,
  safeText,
  timesQuantity,
} from '../../src/lib/output/format.js';
import { displayWidth, truncate, wrap } from '../../src/lib/output/text.js';
import { escapeHtml } from '../../src/lib/pages/html.js';
import { textOf } from '../../src/lib/schemas/json.js';

describe('money', () => {
  it('has a euro sign, thousands separators and two decimals, from the decimal string itself', () => {
    expect(formatMoney('1234.50')).toBe('€ 1,234.50');
    expect(formatMoney('1000000.00')).toBe('€ 1,000,000.00');
    expect(formatMoney('-12.00')).toBe('-€ 12.00');
    expect(formatMoney('-1234567.8')).toBe('-€ 1,234,567.80');
    expect(formatMoney('0.5')).toBe('€ 0.50');
    expect(formatMoney('5')).toBe('€ 5.00');
    expect(formatMoney('999.99')).toBe('€ 999.99');
    expect(formatMoney('007.10')).toBe('€ 7.10');
  });

  it('never goes through a float: digits beyond what a double holds are kept, extra decimals too', () => {
    expect(formatMoney('12345678901234567890.12')).toBe('€ 12,345,678,901,234,567,890.12');
    expect(formatMoney('0.125')).toBe('€ 0.125');
  });

  it('applies to the money attributes only, and leaves what is not a decimal as it is', () => {
    for (const name of ['amount', 'amount_excl', 'amount_incl', 'tax_amount'])
      expect(formatValue(name, '1234.50')).toBe('€ 1,234.50');
    expect(formatValue('storno_retries', '1234')).toBe('1234');
    expect(formatValue('amount', 'n/a')).toBe('n/a');
    expect(formatMoney('1e3')).toBe('1e3');
  });

  it('inside tax_rates (as the service sends them): each rate in percent with its tax in euro, one per line', () => {
    expect(
      formatValue('tax_rates', [
        { amount: '2.10', rate: '21.00' },
        { amount: '-1000.00', rate: '9.00' },
      ]),
    ).toBe('21.00%: € 2.10;\n9.00%: -€ 1,000.00');
    // Any other object: labelled pairs, money and rates formatted inside.
    expect(formatValue('tax_rates', { rate: '21', amount: '-1234.5' })).toBe('rate: 21%, amount: -€ 1,234.50');
    expect(formatValue('tax_rate', '21.00')).toBe('21.00%');
    expect(formatValue('tax_rate', 9.5)).toBe('9.5%');
    expect(formatValue('tax_rate', 'n/a')).toBe('n/a');
    expect(formatValue('tags', ['a', 'b'])).toBe('a, b');
    expect(formatValue('tags', [])).toBe('');
    expect(formatValue('amount', 50.6)).toBe('€ 50.60');
  });
});

describe('times', () => {
  it("keep the offset the service gave (the account's zone), without seconds", () => {
    expect(formatValue('created_at', '2026-12-01T14:03:00+01:00')).toBe('2026-12-01 14:03 +01:00');
    expect(formatValue('created_at', '2026-07-01T14:03:59.123-04:00')).toBe('2026-07-01 14:03 -04:00');
    expect(formatDateTime('2026-12-01T13:03:00Z')).toBe('2026-12-01 13:03 +00:00');
    expect(formatDateTime('2026-12-01')).toBeUndefined();
  });

  it('date-only fields (start, due, invoice and transaction dates) show as the day, wherever they are shown', () => {
    for (const name of ['start_date', 'due_date', 'invoice_date', 'transaction_date', 'resume_date', 'refunded_on'])
      expect(formatValue(name, '2026-12-01T00:00:00+01:00'), name).toBe('2026-12-01');
    // A cancel date is a day when one was given, the moment itself when cancelled at once.
    expect(formatValue('cancel_date', '2027-06-30T00:00:00+02:00')).toBe('2027-06-30');
    expect(formatValue('cancel_date', '2026-11-21T11:00:00+01:00')).toBe('2026-11-21 11:00 +01:00');
    expect(formatValue('mandate_accepted_date', '2026-11-20T00:00:00+01:00')).toBe('2026-11-20');
    // Times stay times.
    expect(formatValue('updated_at', '2026-12-01T00:00:00+01:00')).toBe('2026-12-01 00:00 +01:00');
    expect(formatValue('scheduled_on', '2026-12-01T11:35:00+01:00')).toBe('2026-12-01 11:35 +01:00');
  });

  it('list columns show the date only', () => {
    expect(formatDate('2026-12-01T00:30:00+01:00')).toBe('2026-12-01');
    expect(formatDate('2026-12-01')).toBe('2026-12-01');
    expect(formatDate(null)).toBe('');
  });
});

describe('timesQuantity', () => {
  it('multiplies a unit amount by a quantity on its digits: exact cents, negative too', () => {
    expect(timesQuantity('12.10', 3)).toBe('36.30');
    expect(timesQuantity('-0.05', 7)).toBe('-0.35');
    expect(timesQuantity('0.10', 0)).toBe('0.00');
    // 0.1 * 3 is 0.30000000000000004 as floats: never here.
    expect(timesQuantity('0.1', 3)).toBe('0.3');
    expect(timesQuantity('99999999.99', 100000)).toBe('9999999999000.00');
    expect(timesQuantity(12.5, '2')).toBe('25.0');
  });

  it('is undefined unless both are numbers, the quantity whole', () => {
    expect(timesQuantity('abc', 2)).toBeUndefined();
    expect(timesQuantity('1.00', 1.5)).toBeUndefined();
    expect(timesQuantity(null, 2)).toBeUndefined();
    expect(timesQuantity('1.00', undefined)).toBeUndefined();
  });
});

describe('labels and plain values', () => {
  it('labels read as words', () => {
    expect(label('first_name')).toBe('first name');
    expect(label('iban')).toBe('IBAN');
    expect(label('created_at')).toBe('created');
    expect(label('mandate_authentication_method')).toBe('mandate method');
    expect(label('subscription-plan')).toBe('plan');
  });

  it('yes/no, and nothing for null, undefined and the empty string', () => {
    expect(formatValue('archived', true)).toBe('yes');
    expect(formatValue('archived', false)).toBe('no');
    expect(formatValue('city', null)).toBe('');
    expect(formatValue('city', undefined)).toBe('');
    expect(formatValue('city', '')).toBe('');
    expect(formatValue('storno_retries', 0)).toBe('0');
  });
});

describe('safeText', () => {
  it('turns control characters into visible escapes', () => {
    expect(safeText('a\x1b[31mred\x07')).toBe('a\\x1b[31mred\\x07');
    expect(safeText('over\rwrite\b\x7f')).toBe('over\\x0dwrite\\x08\\x7f');
    expect(safeText('c1 \x9b2J \x85')).toBe('c1 \\x9b2J \\x85');
    expect(safeText('\x00')).toBe('\\x00');
  });

  it('turns bidi overrides and isolates into escapes', () => {
    expect(safeText('abc\u202Egpj.exe')).toBe('abc\\u202egpj.exe');
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(safeText(`x${String.fromCharCode(code)}y`)).toBe(`x\\u${code.toString(16)}y`);
    }
  });

  it('keeps tab, newline and ordinary text, accents and all; a CRLF is a newline', () => {
    expect(safeText('Sophie Müller\tÅsa 日本 😀\nnext')).toBe('Sophie Müller\tÅsa 日本 😀\nnext');
    expect(safeText('one\r\ntwo')).toBe('one\ntwo');
  });

  it('oneLine also puts tabs and line breaks on one line', () => {
    expect(oneLine('a\tb\nc\r\nd\re')).toBe('a b c d\\x0de');
  });
});

describe('terminal widths', () => {
  it('count wide characters twice and combining marks not at all', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('😀')).toBe(2);
  });

  it('truncate ends in … and never splits a character', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('日本語', 4)).toBe('日…');
    expect(truncate('😀😀😀', 5)).toBe('😀😀…');
  });

  it('wrap breaks at spaces and cuts words longer than a line', () => {
    expect(wrap('Gym membership, billed monthly', 12)).toEqual(['Gym', 'membership,', 'billed', 'monthly']);
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrap('one\ntwo', 10)).toEqual(['one', 'two']);
  });
});

describe('textOf', () => {
  it('writes a primitive as String does, an object or array as its JSON, never [object Object]', () => {
    const primitives = ['12,50', 42, 0.1, true, null, undefined];
    expect(primitives.map(textOf)).toEqual(['12,50', '42', '0.1', 'true', 'null', 'undefined']);
    expect(textOf({ id: 1 })).toBe('{"id":1}');
    expect(textOf(['a', 'b'])).toBe('["a","b"]');
  });

  it('is what a page shows of a value that is an object', () => {
    expect(escapeHtml({ a: '<b>' })).toBe('{&quot;a&quot;:&quot;&lt;b&gt;&quot;}');
  });
});
