// --data: attributes or a document as JSON text, inline, from a file (@file) or from standard input (-).
import { readFile } from 'node:fs/promises';
import { describeUtf8Problem, utf8Problem, utf8Text } from '../schemas/utf8.js';
import { UsageError } from '../cli/errors.js';
import type { IO } from '../cli/io.js';

/**
 * The text --data names. A file's or standard input's bytes must be UTF-8, as the API requires of a
 * body (a leading byte order mark is dropped): anything else is exit 2 saying where, nothing sent.
 */
export async function dataText(source: string, io: IO): Promise<string> {
  if (source !== '-' && !source.startsWith('@')) return source;
  let bytes: Uint8Array;
  if (source === '-') bytes = await io.readStdin();
  else {
    try {
      bytes = await readFile(source.slice(1));
    } catch (error) {
      throw new UsageError(
        `--data ${source}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  const text = utf8Text(bytes);
  if (text !== undefined) return text;
  const name = source === '-' ? 'standard input (-)' : source.slice(1);
  throw new UsageError(
    `--data: ${name} is not UTF-8 text at ${describeUtf8Problem(utf8Problem(bytes)!)}: save it as UTF-8; nothing was sent`,
  );
}
