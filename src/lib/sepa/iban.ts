// IBAN validity as ibantools' isValidIBAN decides it (its country specifications: length, BBAN
// format, national check digits; then ISO 7064 MOD 97-10), for the file writer, which checks every
// debit: ibantools compiles a regular expression and builds a string of digits per call, about a
// tenth of an export of 100,000 debits. The customer schema keeps ibantools itself.
import { countrySpecs } from 'ibantools';

const CHECK_DIGITS = /^[0-9]{2}$/;
/** Each country's BBAN format, compiled once. */
const formats = new Map<string, RegExp>();

/** Whether `iban` (electronic format: no spaces, upper case) is valid: ibantools' isValidIBAN, QR-IBANs allowed. */
export function isValidIban(iban: string): boolean {
  const country = iban.slice(0, 2);
  const spec = countrySpecs[country];
  if (spec?.bban_regexp === undefined || spec.bban_regexp === null || spec.chars === undefined) return false;
  if (spec.chars !== iban.length || !CHECK_DIGITS.test(iban.slice(2, 4))) return false;
  let format = formats.get(country);
  if (format === undefined) formats.set(country, (format = new RegExp(spec.bban_regexp, '')));
  const bban = iban.slice(4);
  if (!format.test(bban)) return false;
  if (spec.bban_validation_func && !spec.bban_validation_func(bban.replace(/[\s.]+/g, ''))) return false;
  // As ibantools: the check digits are 98 less the remainder of the BBAN, the country and "00".
  return 98 - remainder(`${bban}${country}00`) === Number(iban.slice(2, 4));
}

/** MOD 97-10 of a string of digits and upper-case letters (10 to 35); NaN for anything else. */
function remainder(text: string): number {
  let rest = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) rest = (rest * 10 + code - 48) % 97;
    else if (code >= 65 && code <= 90) rest = (rest * 100 + code - 55) % 97;
    else return NaN;
  }
  return rest;
}
