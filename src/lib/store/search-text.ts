// What customers search (filter[search]) looks in: one folded text per customer, written by the core
// with the row and indexed by each engine's trigram index. It is folded here, in one function, not
// by SQL, so both engines hold and compare the same characters: lower() and LIKE fold differently
// on SQLite and PostgreSQL, and neither strips accents without an extension.

/** Letters with no decomposition to a base letter (NFD leaves them whole). */
// Escaped: the bundle must stay ASCII (scripts/build.mjs). ß ẞ æ œ ø ł đ ð þ ı.
const SPELLED: Readonly<Record<string, string>> = {
  '\u00df': 'ss',
  '\u1e9e': 'ss',
  '\u00e6': 'ae',
  '\u0153': 'oe',
  '\u00f8': 'o',
  '\u0142': 'l',
  '\u0111': 'd',
  '\u00f0': 'd',
  '\u00fe': 'th',
  '\u0131': 'i',
};

/**
 * Text as search compares it: lower case, accents off (Zoë → zoe, Groß → gross), apostrophes
 * dropped (O'Brien → obrien), and white space, quotes, brackets and list punctuation one space.
 * Other characters stay as they are (a company called 100% Echt is found by `100%`).
 */
export function foldText(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[\u00df\u1e9e\u00e6\u0153\u00f8\u0142\u0111\u00f0\u00fe\u0131]/g, (letter) => SPELLED[letter])
    .replace(/['\u2019`\u00b4]/g, '') // ' ’ ` ´
    .replace(/[\s|,;:!?"\u201c\u201d\u201e()[\]{}<>]+/g, ' ') // “ ” „
    .trim();
}

/**
 * Trunk prefixes of the countries the service collects in: +31 6 1234 5678 is also dialled
 * 06 1234 5678 at home, and support types either.
 */
const NATIONAL_ZERO = ['31', '32', '33', '41', '43', '44', '49'];

/** A telephone number's digits, and its national form (leading 0) when it was written with a country code. */
function phoneDigits(telephone: string): string {
  const trimmed = telephone.trim();
  let digits = trimmed.replace(/\D+/g, '');
  if (trimmed.startsWith('00')) digits = digits.slice(2);
  else if (!trimmed.startsWith('+')) return digits;
  const code = NATIONAL_ZERO.find((prefix) => digits.startsWith(prefix));
  return code ? `${digits} 0${digits.slice(code.length).replace(/^0/, '')}` : digits;
}

export interface SearchedFields {
  first_name: string;
  middle_name?: string | null;
  last_name: string;
  company_name?: string | null;
  email: string;
  iban?: string | null;
  telephone?: string | null;
}

/** Between the parts of a search text; fold turns `|` into a space, so no term holds it. */
export const PART = ' | ';

/**
 * A customer's search text: the full name as the name column shows it, the company, the email, the
 * IBAN without spaces and the phone's digits, folded, in that order. The name comes first so a
 * match at the start of the text is a match of the name (the ranking counts on it).
 */
export function customerSearchText(customer: SearchedFields): string {
  const name = [customer.first_name, customer.middle_name, customer.last_name].filter(Boolean).join(' ');
  return [
    foldText(name),
    foldText(customer.company_name ?? ''),
    foldText(customer.email),
    (customer.iban ?? '').replace(/\s+/g, '').toLowerCase(),
    customer.telephone ? phoneDigits(customer.telephone) : '',
  ].join(PART);
}

/**
 * The terms a typed search is made of; every one must be in a customer's text. A phone number (digits
 * with any spacing, `+` or `00` in front) is one term of its digits, and an IBAN typed in groups is
 * one term; anything else is its folded words.
 */
export function searchTerms(typed: string): string[] {
  const text = typed.trim();
  if (/^(\+|00)?[\d\s()./-]+$/.test(text) && (text.match(/\d/g)?.length ?? 0) >= 6) {
    const digits = text.replace(/\D+/g, '');
    return [text.startsWith('00') ? digits.slice(2) : digits];
  }
  const compact = text.replace(/\s+/g, '');
  if (/^[a-z]{2}\d{2}[a-z0-9]{11,30}$/i.test(compact) && /\s/.test(text)) return [compact.toLowerCase()];
  return [...new Set(foldText(text).split(' ').filter(Boolean))];
}
