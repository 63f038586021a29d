// The rows of an import file, read as a stream: NDJSON (one JSON object per line) or CSV (a header
// of attribute names, then one row per resource). Each row knows its line number and the byte
// offset just after it, so an import can record how far it got and go on from there.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { extname } from 'node:path';
import { unescapeFormula, type CsvOptions } from '../output/csv.js';
import { Utf8Stream, type Utf8Problem } from '../schemas/utf8.js';

export const IMPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The member (NDJSON) or column (CSV) a rejects file adds with the reasons; an import ignores it, so a fixed file goes back in as it is. */
export const REJECTED = '_rejected';

/** Attributes a CSV cell holds as JSON (an object or a list). */
const JSON_CELLS = new Set(['metadata', 'lines']);

export interface SourceRow {
  /** The line the row starts on (1-based, as an editor shows it). */
  line: number;
  /** The line it ends on (a CSV cell may hold line breaks). */
  lastLine: number;
  /** The row's own text, without its line end. */
  raw: string;
  /** The byte offset just after the row (its line end included). */
  end: number;
  attributes?: Record<string, unknown>;
  /** Why the row could not be read as attributes (not JSON, not an object). */
  error?: string;
  /** CSV: the cells as read (as data: a formula's leading ' dropped), for the rejects file. */
  cells?: string[];
}

const EXTENSIONS: Record<string, ImportFormat> = { '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.csv': 'csv' };

/** The format of a file, by its extension (.ndjson, .jsonl, .csv); undefined when it says none of these. */
export const formatByExtension = (path: string): ImportFormat | undefined => EXTENSIONS[extname(path).toLowerCase()];

/** What one pass over an import's bytes learns: the content's SHA-256, its size, and where it stops being UTF-8 (-1: nowhere). */
export interface Content {
  hash: string;
  size: number;
  invalidAt: number;
}

/** Hashes and checks the bytes as they go by: the one pass an import makes before it takes any row. */
function contentPass() {
  const hash = createHash('sha256');
  const utf8 = new Utf8Stream();
  let size = 0;
  return {
    take(chunk: Uint8Array) {
      hash.update(chunk);
      utf8.push(chunk);
      size += chunk.length;
    },
    done: (): Content => ({ hash: hash.digest('hex'), size, invalidAt: utf8.end() }),
  };
}

/** A file's content (hash, size, UTF-8 or not), read as a stream. */
export async function hashFile(path: string): Promise<Content> {
  const pass = contentPass();
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) pass.take(chunk as Buffer);
  return pass.done();
}

/** Standard input written to a file as it arrives (hashed and checked on the way), so it is read like any file, in constant memory. */
export async function spool(input: AsyncIterable<Uint8Array>, path: string): Promise<Content> {
  const pass = contentPass();
  const out = createWriteStream(path, { mode: 0o600 });
  try {
    for await (const chunk of input) {
      pass.take(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  return pass.done();
}

/** Where a file stops being UTF-8, from the offset its content pass found: the line is counted by reading up to it. */
export async function utf8ProblemIn(path: string, offset: number): Promise<Utf8Problem> {
  let line = 1;
  let byte = 0;
  // `end` is inclusive: the last byte read is the bad one (never a newline: a bad sequence starts above 0x7f).
  for await (const chunk of createReadStream(path, { end: offset, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) line++;
    byte = chunk[chunk.length - 1];
  }
  return { line, offset, byte };
}

/** Where a read starts: the first byte not yet committed, and the line before it. */
export interface Resume {
  offset: number;
  line: number;
}

/** The rows of the file from `from` on. `csv.raw` (--csv-raw): CSV cells as they are, a leading ' kept. */
export function readRows(
  path: string,
  format: ImportFormat,
  from: Resume,
  csv: CsvOptions = {},
): AsyncGenerator<SourceRow> {
  return format === 'ndjson' ? ndjsonRows(path, from) : csvRows(path, from, csv);
}

async function* ndjsonRows(path: string, from: Resume): AsyncGenerator<SourceRow> {
  let line = from.line;
  let offset = from.offset;
  let rest: Buffer = Buffer.alloc(0);
  const take = function* (text: Buffer): Generator<SourceRow> {
    let start = 0;
    for (let nl = text.indexOf(10); nl >= 0; nl = text.indexOf(10, start)) {
      line++;
      const row = ndjsonRow(text.subarray(start, nl), line, offset + nl + 1);
      start = nl + 1;
      if (row) yield row;
    }
    offset += start;
    rest = text.subarray(start);
  };
  for await (const chunk of createReadStream(path, { start: from.offset, highWaterMark: 1 << 20 })) {
    yield* take(rest.length ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer));
  }
  // A last line without a line end is a row all the same.
  if (rest.length) {
    line++;
    const row = ndjsonRow(rest, line, offset + rest.length);
    if (row) yield row;
  }
}

function ndjsonRow(bytes: Buffer, line: number, end: number): SourceRow | undefined {
  let raw = bytes.toString('utf8').replace(/\r$/, '');
  // A byte order mark before the first line is no part of it (a CSV file's is dropped by the parser).
  if (line === 1 && raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
  if (raw.trim() === '') return undefined; // blank lines are no rows
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { line, lastLine: line, raw, end, error: `not a JSON object: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { line, lastLine: line, raw, end, error: 'not a JSON object of attributes' };
  const attributes = value as Record<string, unknown>;
  delete attributes[REJECTED];
  return { line, lastLine: line, raw, end, attributes };
}

/**
 * A CSV record's cells as data: the ' that an export (or a rejects file) puts before a cell a
 * spreadsheet would run as a formula is dropped, so what was exported or rejected comes back as it was.
 */
const csvData = (cells: string[], csv: CsvOptions): string[] => (csv.raw ? cells : cells.map(unescapeFormula));

/** The header of a CSV file: its first record. */
export async function csvHeader(
  path: string,
  csv: CsvOptions = {},
): Promise<{ names: string[]; end: number; lines: number; error?: string } | undefined> {
  for await (const record of csvRecords(path, 0))
    return {
      names: csvData(record.cells, csv).map((n) => n.trim()),
      end: record.end,
      lines: record.lastLine,
      error: record.error,
    };
  return undefined;
}

interface CsvRecord {
  cells: string[];
  raw: string;
  /** Bytes from the start of the read to just after the record. */
  end: number;
  firstLine: number;
  lastLine: number;
  /** Why the parser could not read it: a row to reject. */
  error?: string;
}

/** What csv-parse's error codes mean, as a person fixing the row reads it. */
const CSV_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted cell is not closed before the end of the file (the rest of the file is this row)',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted cell goes on after its closing quote (write a quote inside a quoted cell as "")',
};

async function* csvRecords(path: string, start: number): AsyncGenerator<CsvRecord> {
  const { parse } = await import('csv-parse');
  // A record the parser cannot read (a quote not closed) is a row to reject, as one with a wrong
  // number of cells is (relax_column_count), not the end of the import: the rows after it go on.
  const skipped: { reason: string; raw: string }[] = [];
  const parser = createReadStream(path, { start, highWaterMark: 1 << 20 }).pipe(
    parse({
      info: true,
      raw: true,
      relax_column_count: true,
      // A quote inside a cell that does not start with one (Jan "JJ") is text, as a person wrote it.
      relax_quotes: true,
      skip_empty_lines: true,
      bom: start === 0,
      skip_records_with_error: true,
      on_skip: (error, raw) => {
        const code = (error as { code?: unknown } | undefined)?.code;
        skipped.push({
          reason: (typeof code === 'string' && CSV_PROBLEMS[code]) || (error?.message ?? 'cannot be read as CSV'),
          raw: raw ?? '',
        });
      },
    }),
  );
  let lastLine = 0;
  /** The records skipped before `upTo` (the next record's start, or the end): rows with their reason. */
  const rejected = function* (upTo: number, nextLine: number): Generator<CsvRecord> {
    for (const skip of skipped.splice(0)) {
      const lines = (skip.raw.match(/\n/g) ?? []).length;
      yield {
        cells: [],
        raw: skip.raw.replace(/\r?\n$/, ''),
        end: upTo,
        firstLine: lastLine + 1,
        lastLine: Math.max(lastLine + 1, Math.min(nextLine - 1, lastLine + lines)),
        error: skip.reason,
      };
    }
  };
  for await (const { record, raw, info } of parser as AsyncIterable<{
    record: string[];
    raw: string;
    info: { bytes: number; lines: number };
  }>) {
    const breaks = (raw.match(/\n/g) ?? []).length;
    const firstLine = info.lines - breaks + (raw.endsWith('\n') ? 1 : 0);
    if (skipped.length) yield* rejected(info.bytes - Buffer.byteLength(raw), firstLine);
    lastLine = info.lines;
    yield { cells: record, raw: raw.replace(/\r?\n$/, ''), end: info.bytes, firstLine, lastLine: info.lines };
  }
  if (skipped.length) yield* rejected((parser as unknown as { info: { bytes: number } }).info.bytes, Infinity);
}

async function* csvRows(path: string, from: Resume, csv: CsvOptions): AsyncGenerator<SourceRow> {
  const header = await csvHeader(path, csv);
  if (!header) return;
  const names = header.names;
  // A first read starts after the header; a rerun where the last one committed.
  const start = from.offset === 0 ? 0 : from.offset;
  const lineBase = from.offset === 0 ? 0 : from.line;
  let first = from.offset === 0;
  for await (const record of csvRecords(path, start)) {
    if (first) {
      first = false;
      continue; // the header itself
    }
    const line = lineBase + record.firstLine;
    const cells = csvData(record.cells, csv);
    const row: SourceRow = {
      line,
      lastLine: lineBase + record.lastLine,
      raw: record.raw,
      end: start + record.end,
      cells,
    };
    if (record.error !== undefined) {
      // No cells to go back: its text does, whole, beside the reason.
      yield { line, lastLine: row.lastLine, raw: record.raw, end: row.end, error: record.error };
      continue;
    }
    if (cells.length !== names.length) {
      row.error = `has ${cells.length} cells where the header names ${names.length}`;
      yield row;
      continue;
    }
    const attributes: Record<string, unknown> = {};
    for (const [i, name] of names.entries()) {
      const text = cells[i];
      // An empty cell is an attribute not given (a CSV cannot tell empty from absent).
      if (name === REJECTED || text === '') continue;
      if (JSON_CELLS.has(name) && /^\s*[[{]/.test(text)) {
        try {
          attributes[name] = JSON.parse(text);
        } catch {
          row.error = `${name}: not valid JSON`;
          break;
        }
      } else attributes[name] = text;
    }
    if (!row.error) row.attributes = attributes;
    yield row;
  }
}
