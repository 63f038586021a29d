// The SEPA Creditor Identifier (EPC262-08): country code, two check digits, a three-character
// business code the check ignores (usually ZZZ), then the national identifier.
const SHAPE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{3}[A-Z0-9]{1,28}$/;

/** Upper case, without spaces: the form the file carries. */
export function normaliseCreditorId(id: string): string {
  return id.replace(/\s+/g, '').toUpperCase();
}

/**
 * ISO 7064 mod 97-10 over the national identifier followed by the country code and the check
 * digits, letters counted A=10 … Z=35; the business code (positions 5-7) is left out.
 */
export function isValidCreditorId(id: string): boolean {
  const ci = normaliseCreditorId(id);
  if (!SHAPE.test(ci)) return false;
  return mod97(ci.slice(7) + ci.slice(0, 4)) === 1;
}

/** The remainder of the number the characters spell (digits as themselves, A=10 … Z=35) divided by 97. */
export function mod97(text: string): number {
  let remainder = 0;
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    const value = code <= 57 ? code - 48 : code - 55;
    remainder = value < 10 ? (remainder * 10 + value) % 97 : (remainder * 100 + value) % 97;
  }
  return remainder;
}
