// Text comes in as UTF-8 or not at all: a request body, --data, an import file. Bytes that are not
// UTF-8 are refused, never decoded with replacement characters (which would store U+FFFD for them).
// Node's isUtf8 (simdutf) judges; when it says no, the first bad sequence is found for the message.
import { isUtf8 } from 'node:buffer';

/** UTF-8 bytes as text, a leading byte order mark dropped (JSON lets a parser do so, RFC 8259 8.1); undefined when they are not UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  if (!isUtf8(bytes)) return undefined;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The offset of the first byte of the first sequence that is not UTF-8, or -1 when every one is.
 * Decoded leniently, everything before it is the text it says; the first U+FFFD that the bytes
 * do not spell (EF BF BD) stands where they stop being UTF-8.
 */
export function invalidUtf8At(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let offset = 0;
  for (const char of Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) {
    const code = char.codePointAt(0)!;
    if (code === 0xfffd && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd))
      return offset;
    offset += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return offset; // not reached: isUtf8 said some sequence is not UTF-8
}

/** Where bytes stop being UTF-8, as a person finds it: the line (from 1), the byte offset (from 0) and that byte. */
export interface Utf8Problem {
  line: number;
  offset: number;
  byte: number;
}

/** Says where: "line 3, byte offset 117 (0xff)". */
export const describeUtf8Problem = (problem: Utf8Problem): string =>
  `line ${problem.line}, byte offset ${problem.offset} (0x${problem.byte.toString(16).padStart(2, '0')})`;

/** The problem of bytes held in memory, or undefined when they are UTF-8. */
export function utf8Problem(bytes: Uint8Array): Utf8Problem | undefined {
  const offset = invalidUtf8At(bytes);
  if (offset < 0) return undefined;
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return { line, offset, byte: bytes[offset] };
}

/** How many bytes from the start hold whole characters: a sequence cut at the end is left for the next chunk. */
function wholeCharacters(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = n - 1; i >= Math.max(0, n - 3); i--) {
    const b = bytes[i];
    if (b < 0x80) return n;
    if (b >= 0xc0) return i + (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) <= n ? n : i;
  }
  return n; // only continuation bytes at the end: isUtf8 judges them where they are
}

/**
 * Checks a stream's bytes chunk by chunk, in constant memory: a character cut between two chunks is
 * checked whole with the next one. `invalidAt` is the offset of the first bad sequence, or -1.
 */
export class Utf8Stream {
  invalidAt = -1;
  /** Bytes checked whole so far: the offset of the first byte carried. */
  private checked = 0;
  private carried: Buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): void {
    if (this.invalidAt >= 0) return;
    const bytes = this.carried.length
      ? Buffer.concat([this.carried, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const whole = wholeCharacters(bytes);
    const head = bytes.subarray(0, whole);
    if (!isUtf8(head)) {
      this.invalidAt = this.checked + invalidUtf8At(head);
      return;
    }
    this.checked += whole;
    // Copied: at most three bytes, and the chunk's memory is not ours to keep.
    this.carried = Buffer.from(bytes.subarray(whole));
  }

  /** The end of the stream: a character still cut there is not UTF-8. */
  end(): number {
    if (this.invalidAt < 0 && this.carried.length) this.invalidAt = this.checked;
    return this.invalidAt;
  }
}
