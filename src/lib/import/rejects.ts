// The rejects file: every row an import did not take, in the input's own format, with the reasons
// in one more member (NDJSON) or column (CSV) that an import ignores: fix the rows, import the file.
// It is made at the first reject only, and cut back to what a committed batch left when an import
// goes on after a kill, so no row is in it twice. A CSV one is fixed in a spreadsheet as often as
// not, so its cells are escaped as every CSV export's are (a formula gets a leading '), and the
// import drops that ' again when it reads the fixed file.
import { closeSync, existsSync, ftruncateSync, openSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { cell, type CsvOptions } from '../output/csv.js';
import { REJECTED, type ImportFormat, type SourceRow } from './source.js';

/** `customers.ndjson` → `customers.rejects.ndjson`, beside it. */
export function rejectsPathFor(input: string, format: ImportFormat): string {
  const ext = extname(input);
  return join(dirname(input), `${basename(input, ext)}.rejects${ext || `.${format}`}`);
}

export class RejectsFile {
  private fd: number | undefined;
  /** Bytes written so far (the header included). */
  size = 0;

  /** `header`: a CSV input's column names, repeated (with the reasons column) at the top; `csv`: as --csv-raw says. */
  constructor(
    readonly path: string,
    readonly format: ImportFormat,
    private readonly header?: string[],
    private readonly csv: CsvOptions = {},
  ) {}

  /** Keeps the first `bytes` of an existing file (what committed batches wrote), or none of it. */
  keep(bytes: number): void {
    if (bytes > 0 && existsSync(this.path)) {
      this.fd = openSync(this.path, 'r+');
      ftruncateSync(this.fd, bytes);
      this.size = bytes;
    } else {
      rmSync(this.path, { force: true });
      this.size = 0;
    }
  }

  /** Back to `bytes` (a batch written again). */
  truncate(bytes: number): void {
    if (this.fd !== undefined && this.size > bytes) {
      ftruncateSync(this.fd, bytes);
      this.size = bytes;
    }
  }

  write(row: SourceRow, reasons: string): void {
    if (this.fd === undefined) {
      this.fd = openSync(this.path, 'w');
      this.size = 0;
      if (this.format === 'csv' && this.header) this.append(this.csvLine(this.csvColumns()));
    }
    this.append(this.format === 'csv' ? this.csvRow(row, reasons) : this.ndjsonRow(row, reasons));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private append(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    writeSync(this.fd!, bytes, 0, bytes.length, this.size);
    this.size += bytes.length;
  }

  private csvColumns(): string[] {
    return this.header!.includes(REJECTED) ? this.header! : [...this.header!, REJECTED];
  }

  private csvRow(row: SourceRow, reasons: string): string {
    const cells = [...(row.cells ?? [row.raw])];
    const at = this.header?.indexOf(REJECTED) ?? -1;
    if (at >= 0 && at < cells.length) cells[at] = reasons;
    else cells.push(reasons);
    return this.csvLine(cells);
  }

  private csvLine(cells: string[]): string {
    return `${cells.map((text) => cell(text, this.csv)).join(',')}\r\n`;
  }

  private ndjsonRow(row: SourceRow, reasons: string): string {
    // A line that is no JSON object goes back as it was: there is nothing to add the reasons to.
    if (!row.attributes) return `${row.raw}\n`;
    return `${JSON.stringify({ ...row.attributes, [REJECTED]: reasons })}\n`;
  }
}
