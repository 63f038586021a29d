// Bytes that are not UTF-8 are found, never decoded with replacement characters: where the first bad
// sequence starts (byte offset and line), in memory and in a stream cut into chunks anywhere (a
// character split between two chunks is not a bad one); a leading byte order mark is dropped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidUtf8At, utf8Problem, Utf8Stream, utf8Text } from '../../src/lib/schemas/utf8.js';

/** Sequences that are not UTF-8 (each starts with the byte where decoding fails). */
const BAD: [string, number[]][] = [
  ['0xff', [0xff]],
  ['a lone continuation byte', [0x80]],
  ['an overlong two-byte form', [0xc0, 0x80]],
  ['a cut three-byte form', [0xe2, 0x82]],
  ['a UTF-16 surrogate', [0xed, 0xa0, 0x80]],
  ['an overlong four-byte form', [0xf0, 0x80, 0x80, 0x80]],
  ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ['Latin-1 é', [0xe9]],
];

/** Valid text with every width of character, newlines and a literal U+FFFD (EF BF BD is UTF-8 too). */
const textArb = fc
  .array(fc.constantFrom('a', 'é', '€', '𝄞', '\n', '\ufffd', ' ', '中', '\r\n'), { maxLength: 60 })
  .map((parts) => parts.join(''));

/** Bytes cut into random chunks. */
const chunked = (bytes: Buffer, cuts: number[]): Buffer[] => {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((x, y) => x - y);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const cut of [...at, bytes.length]) {
    chunks.push(bytes.subarray(start, cut));
    start = cut;
  }
  return chunks;
};
const streamed = (chunks: Buffer[]): number => {
  const stream = new Utf8Stream();
  for (const chunk of chunks) stream.push(chunk);
  return stream.end();
};

describe('utf8Text', () => {
  it('is the text of UTF-8 bytes, a leading byte order mark dropped (one elsewhere kept)', () => {
    expect(utf8Text(Buffer.from('Jan €'))).toBe('Jan €');
    expect(utf8Text(Buffer.from('\ufeff{"a":"\ufeff"}'))).toBe('{"a":"\ufeff"}');
    expect(utf8Text(Buffer.from('\ufffd'))).toBe('\ufffd');
  });

  it.each(BAD)('is undefined for %s', (_name, bad) => {
    expect(utf8Text(Buffer.from([0x4a, ...bad, 0x4a]))).toBeUndefined();
  });
});

describe('where bytes stop being UTF-8', () => {
  it('is nowhere (-1) in UTF-8 text, however it is cut into chunks', () => {
    fc.assert(
      fc.property(textArb, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const bytes = Buffer.from(text);
        expect(invalidUtf8At(bytes)).toBe(-1);
        expect(utf8Problem(bytes)).toBeUndefined();
        expect(streamed(chunked(bytes, cuts))).toBe(-1);
      }),
      { numRuns: 2000 },
    );
  });

  it('is the first byte of the first bad sequence: its offset and line, in memory and in chunks cut anywhere', () => {
    fc.assert(
      fc.property(
        textArb,
        fc.constantFrom(...BAD),
        textArb,
        fc.array(fc.nat(), { maxLength: 8 }),
        (before, [, bad], after, cuts) => {
          const head = Buffer.from(before);
          const bytes = Buffer.concat([head, Buffer.from(bad), Buffer.from(after)]);
          expect(invalidUtf8At(bytes)).toBe(head.length);
          expect(utf8Problem(bytes)).toEqual({ offset: head.length, line: before.split('\n').length, byte: bad[0] });
          expect(streamed(chunked(bytes, cuts))).toBe(head.length);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('a character cut at the very end of the stream is not UTF-8, at its first byte', () => {
    expect(streamed([Buffer.from('ab'), Buffer.from([0xe2, 0x82])])).toBe(2);
    expect(streamed([Buffer.from('ab€'), Buffer.from([0xf0])])).toBe(5);
    expect(streamed([Buffer.from('ab€'), Buffer.from([0xe2]), Buffer.from([0x82]), Buffer.from([0xac])])).toBe(-1);
  });
});
