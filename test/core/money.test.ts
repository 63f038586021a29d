// Money at the edges: parsing and formatting euro amounts, and the one rounding helper.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountNumber, divideRounded, formatAmount, MONEY_MAX, parseAmount } from '../../src/lib/schemas/money.js';

describe('parseAmount', () => {
  it.each([
    ['12.50', 1250],
    ['12.5', 1250],
    ['12', 1200],
    ['0', 0],
    ['0.01', 1],
    ['-0.05', -5],
    ['-12.34', -1234],
    [' 7.10 ', 710],
    ['007', 700],
    [12.5, 1250],
    [0.1, 10],
    [-3, -300],
    [1234.56, 123456],
    ['90071992547409.91', Number.MAX_SAFE_INTEGER],
  ])('when given %j, gives %d cents', (input, cents) => {
    expect(parseAmount(input)).toBe(cents);
  });

  it.each([
    ['-0', 0],
    ['-0.00', 0],
    [-0, 0],
  ])('when given a negative zero %j, gives plain 0', (input, cents) => {
    expect(Object.is(parseAmount(input), cents)).toBe(true);
  });

  it.each([
    ['three decimals', '12.505'],
    ['a comma as decimal mark', '12,50'],
    ['no digits before the point', '.50'],
    ['no digits after the point', '12.'],
    ['a plus sign', '+5'],
    ['a currency sign', '€5'],
    ['thousands separators', '1,000.00'],
    ['an exponent', '1e3'],
    ['words', 'abc'],
    ['an empty string', ''],
    ['only spaces', '   '],
    ['a number with three decimals', 0.125],
    ['a float sum that is not two decimals', 0.1 + 0.2],
    ['a huge number written with an exponent', 1e21],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['more cents than a safe integer holds', '90071992547409.92'],
    ['null', null],
    ['undefined', undefined],
    ['a boolean', true],
    ['an object', { amount: 5 }],
    ['an array', ['5']],
  ])('when given %s, gives null', (_situation, input) => {
    expect(parseAmount(input)).toBeNull();
  });

  it('when given any whole number of cents written with two decimals, gives those cents back', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (cents) => {
        expect(parseAmount(formatAmount(cents))).toBe(cents);
      }),
    );
  });
});

describe('formatAmount', () => {
  it.each([
    [1250, '12.50'],
    [5, '0.05'],
    [-5, '-0.05'],
    [0, '0.00'],
    [-0, '0.00'],
    [-100, '-1.00'],
    [100_000, '1000.00'],
    [99, '0.99'],
    [-1234567, '-12345.67'],
  ])('when given %d cents, writes %s', (cents, text) => {
    expect(formatAmount(cents)).toBe(text);
  });

  it('always writes exactly two decimals and an optional leading minus', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (cents) => {
        expect(formatAmount(cents)).toMatch(/^-?(0|[1-9]\d*)\.\d{2}$/);
        expect(formatAmount(cents).startsWith('-')).toBe(cents < 0);
      }),
    );
  });
});

/** Cents as a decimal with two places, written here in BigInt (never through a float). */
const decimal = (cents: number): string => {
  const v = BigInt(cents);
  const abs = v < 0n ? -v : v;
  return `${v < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
};

describe('money over its whole range', () => {
  const anyCents = fc.oneof(
    fc.maxSafeInteger(),
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, MONEY_MAX, -MONEY_MAX),
  );
  const bounded = fc.oneof(
    fc.integer({ min: -MONEY_MAX, max: MONEY_MAX }),
    fc.integer({ min: MONEY_MAX - 10_000, max: MONEY_MAX }),
    fc.integer({ min: -MONEY_MAX, max: -MONEY_MAX + 10_000 }),
  );

  it('formatAmount writes any safe number of cents exactly, and parseAmount reads it back', () => {
    fc.assert(
      fc.property(anyCents, (cents) => {
        expect(formatAmount(cents)).toBe(decimal(cents) === '-0.00' ? '0.00' : decimal(cents));
        expect(parseAmount(formatAmount(cents))).toBe(cents === 0 ? 0 : cents);
      }),
      {
        numRuns: 5000,
        examples: [[Number.MAX_SAFE_INTEGER], [-Number.MAX_SAFE_INTEGER], [MONEY_MAX], [-MONEY_MAX], [99], [-1]],
      },
    );
    expect(formatAmount(Number.MAX_SAFE_INTEGER)).toBe('90071992547409.91');
  });

  it('amountNumber is a JSON number whose text is exactly the amount, for every amount up to MONEY_MAX either way', () => {
    fc.assert(
      fc.property(bounded, (cents) => {
        const json = JSON.stringify(amountNumber(cents));
        expect(json).toBe(
          decimal(cents)
            .replace(/\.?0+$/, '')
            .replace(/^-?$/, '0'),
        );
        expect(parseAmount(JSON.parse(json))).toBe(cents);
      }),
      { numRuns: 5000, examples: [[MONEY_MAX], [-MONEY_MAX], [MONEY_MAX - 1], [-MONEY_MAX + 1], [1], [0]] },
    );
    expect(JSON.stringify(amountNumber(MONEY_MAX))).toBe('10000000000');
    expect(JSON.stringify(amountNumber(MONEY_MAX - 1))).toBe('9999999999.99');
  });

  it('amountNumber past MONEY_MAX (a row stored before the bound) is the exact decimal string, never a rounded number', () => {
    expect(amountNumber(Number.MAX_SAFE_INTEGER)).toBe('90071992547409.91');
    expect(amountNumber(MONEY_MAX + 1)).toBe('10000000000.01');
    expect(amountNumber(-MONEY_MAX - 1)).toBe('-10000000000.01');
  });
});

describe('divideRounded', () => {
  it.each([
    [5, 2, 3],
    [-5, 2, -3],
    [5, -2, -3],
    [-5, -2, 3],
    [7, 2, 4],
    [-7, 2, -4],
    [4, 3, 1],
    [5, 3, 2],
    [-4, 3, -1],
    [-5, 3, -2],
    [1, 3, 0],
    [-1, 3, 0],
    [1, 2, 1],
    [-1, 2, -1],
    [10, 5, 2],
    [-10, 5, -2],
    [2205, 100, 22], // 21% tax on 1.05: 22.05 cents
    [2250, 100, 23], // a half cent rounds up
    [-2250, 100, -23], // and away from zero when negative
    [12100 * 100, 12100, 100],
  ])('when dividing %d by %d, gives %d', (numerator, denominator, quotient) => {
    expect(divideRounded(numerator, denominator)).toBe(quotient);
  });

  it.each([
    [0, 5],
    [0, -5],
    [-1, 3],
    [1, -3],
  ])('when the result is zero (%d / %d), gives plain 0, not -0', (numerator, denominator) => {
    expect(Object.is(divideRounded(numerator, denominator), 0)).toBe(true);
  });

  it('when dividing by zero, throws', () => {
    expect(() => divideRounded(5, 0)).toThrow(RangeError);
  });

  it('rounds to the nearest integer, halves away from zero, for any integers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.integer({ min: -1e6, max: 1e6 }).filter((d) => d !== 0),
        (n, d) => {
          // Exact reference in BigInt: round(|n|/|d|) half up = floor((2|n| + |d|) / 2|d|), then the sign.
          const an = BigInt(Math.abs(n));
          const ad = BigInt(Math.abs(d));
          const magnitude = Number((2n * an + ad) / (2n * ad));
          const expected = magnitude === 0 ? 0 : Math.sign(n) * Math.sign(d) * magnitude;
          expect(divideRounded(n, d)).toBe(expected);
        },
      ),
    );
  });
});
