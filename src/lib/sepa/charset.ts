// The EPC's basic Latin character set, the one every SEPA bank must carry (EPC217-08):
//   a-z A-Z 0-9 / - ? : ( ) . , ' + space
// Text outside it is transliterated (any-ascii: Zoë → Zoe, Groß → Gross, Łódź → Lodz, Дмитрий →
// Dmitriy), never dropped where a transliteration exists; what has none becomes a space.
// any-ascii carries a 0.5 MB table: import this module only where files are written.
import anyAscii from 'any-ascii';

const EPC_TEXT = /^[A-Za-z0-9/\-?:().,'+ ]*$/;
const OUTSIDE = /[^A-Za-z0-9/\-?:().,'+ ]/g;
/** ASCII that the set lacks, replaced by its nearest member; anything else outside the set becomes a space. */
const NEAREST: Readonly<Record<string, string>> = {
  '&': '+',
  '"': "'",
  '`': "'",
  '[': '(',
  ']': ')',
  '{': '(',
  '}': ')',
  '<': '(',
  '>': ')',
  _: '-',
  ';': ',',
  '!': '.',
  '\\': '/',
  '|': '/',
  '~': '-',
  '=': '-',
};

/**
 * `text` in the EPC basic Latin set: transliterated, runs of spaces collapsed, trimmed, then cut to
 * `maxChars` characters (and trimmed again, so a cut never leaves a trailing space).
 */
export function toEpcLatin(text: string, maxChars?: number): string {
  let out = text;
  if (!EPC_TEXT.test(out)) {
    out = anyAscii(out.normalize('NFC')).replace(OUTSIDE, (ch) => NEAREST[ch] ?? ' ');
  }
  out = out.replace(/ {2,}/g, ' ').trim();
  if (maxChars !== undefined && out.length > maxChars) out = out.slice(0, maxChars).trimEnd();
  return out;
}

/** Whether text is made of the EPC basic Latin set only. */
export function isEpcLatin(text: string): boolean {
  return EPC_TEXT.test(text);
}

/**
 * What is wrong with an identifier the bank's reports must echo back (MsgId, PmtInfId, EndToEndId,
 * MndtId), or null when nothing is: 1 to `maxChars` characters of the EPC set, not starting or
 * ending with '/' and without '//' (EPC rule for identifiers). Identifiers are never transliterated:
 * a changed one would no longer match.
 */
export function identifierProblem(id: string, maxChars = 35): string | null {
  if (id.length === 0) return 'is empty';
  if (id.length > maxChars) return `is longer than ${maxChars} characters`;
  if (!EPC_TEXT.test(id)) return "has characters outside a-z A-Z 0-9 / - ? : ( ) . , ' + and space";
  if (id.startsWith('/') || id.endsWith('/')) return "starts or ends with '/'";
  if (id.includes('//')) return "contains '//'";
  if (id.startsWith(' ') || id.endsWith(' ')) return 'starts or ends with a space';
  return null;
}
