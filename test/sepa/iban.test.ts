// The file writer's IBAN check decides as ibantools' isValidIBAN (which the customer schema uses):
// on real IBANs of many countries, and on each of them with a character changed, the check digits
// moved, a character added or taken away, and in lower case.
import fc from 'fast-check';
import { composeIBAN, countrySpecs, isValidIBAN } from 'ibantools';
import { describe, expect, it } from 'vitest';
import { isValidIban } from '../../src/lib/sepa/iban.js';

const KNOWN = [
  'NL91ABNA0417164300',
  'BE68539007547034',
  'DE89370400440532013000',
  'FR1420041010050500013M02606',
  'GB29NWBK60161331926819',
  'ES9121000418450200051332',
  'IT60X0542811101000000123456',
  'CH9300762011623852957',
  'CH4431999123000889012',
  'NO9386011117947',
  'MT84MALT011000012345MTLCAST001S',
  'BA391290079401028494',
  'AT611904300234573201',
];

/** A valid IBAN of the country with this BBAN pattern's characters, made by ibantools. */
const ibanOf = (country: string, digits: string) => {
  const spec = countrySpecs[country];
  if (!spec?.chars) return undefined;
  return composeIBAN({ countryCode: country, bban: digits.padEnd(spec.chars - 4, '0').slice(0, spec.chars - 4) });
};

describe('isValidIban', () => {
  it('agrees with ibantools on known IBANs and every one-character change of them', () => {
    let checked = 0;
    for (const iban of KNOWN) {
      expect(isValidIban(iban), iban).toBe(true);
      const variants = [iban.toLowerCase(), `${iban}0`, iban.slice(0, -1), `${iban.slice(0, 2)}00${iban.slice(4)}`];
      for (let i = 0; i < iban.length; i++)
        for (const c of ['0', '7', 'A', 'Z', ' ', '-']) variants.push(`${iban.slice(0, i)}${c}${iban.slice(i + 1)}`);
      for (const variant of variants) {
        expect(isValidIban(variant), variant).toBe(isValidIBAN(variant));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1_000);
  });

  it('agrees with ibantools on generated IBANs of every country, and their check digits changed', () => {
    const countries = Object.keys(countrySpecs).filter((c) => countrySpecs[c].chars && countrySpecs[c].bban_regexp);
    let valid = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...countries),
        fc.stringMatching(/^[0-9]{30}$/),
        fc.integer({ min: 0, max: 99 }),
        (country, digits, check) => {
          const iban = ibanOf(country, digits);
          if (iban === undefined || iban === null) return;
          expect(isValidIban(iban)).toBe(isValidIBAN(iban));
          if (isValidIBAN(iban)) valid++;
          const changed = `${iban.slice(0, 2)}${String(check).padStart(2, '0')}${iban.slice(4)}`;
          expect(isValidIban(changed)).toBe(isValidIBAN(changed));
        },
      ),
      { numRuns: 3_000 },
    );
    expect(valid).toBeGreaterThan(1_000);
  });
});
