// Bytes that are not UTF-8 are refused on every input path of the command line, as the API refuses
// them: --data @file, --data - and billing import (NDJSON, CSV, standard input) exit 2 naming the
// file (or standard input), the line and the byte offset, and store nothing. A leading byte order
// mark is accepted, as the API accepts it.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/store.js';
import { cli } from './harness.js';

const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));
const line = (n: number) => `{"first_name":"First${n}","last_name":"Last${n}","email":"c${n}@example.com"}\n`;
const BOM = [0xef, 0xbb, 0xbf];

async function emails(run: ReturnType<typeof cli>): Promise<string[]> {
  const out = await run.run(['customers', 'list', '--all', '--json', '--page-size', '100']);
  return (JSON.parse(out.stdout) as { data: { attributes: { email: string } }[] }).data.map((c) => c.attributes.email);
}

describe('billing import of bytes that are not UTF-8', () => {
  it('NDJSON: exit 2 naming the file, the line and the byte offset; not one row stored, no rejects file; fixed, every row goes in', async () => {
    const dir = tempDir();
    const file = join(dir, 'customers.ndjson');
    const head = line(1) + line(2);
    writeFileSync(
      file,
      bytes(head, '{"first_name":"Jan', [0xff], '","last_name":"J","email":"j@example.com"}\n', line(4)),
    );
    const run = cli(join(dir, 'billing.db'));
    const result = await run.run(['import', 'customers', file, '--batch-size', '1']);
    const offset = Buffer.byteLength(head) + '{"first_name":"Jan'.length;
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${file} is not UTF-8 text at line 3, byte offset ${offset} (0xff): save it as UTF-8 and import it again; nothing was imported\n`,
    });
    expect(await run.customerCount()).toBe(0);
    expect(existsSync(join(dir, 'customers.rejects.ndjson'))).toBe(false);
    writeFileSync(file, bytes(head, '{"first_name":"Jan","last_name":"J","email":"j@example.com"}\n', line(4)));
    expect((await run.run(['import', 'customers', file])).code).toBe(0);
    expect(await emails(run)).toEqual(['c1@example.com', 'c2@example.com', 'j@example.com', 'c4@example.com']);
  });

  it('CSV: the line is the line of the file, inside a quoted cell too; nothing stored', async () => {
    const dir = tempDir();
    const file = join(dir, 'people.csv');
    const head = 'first_name,last_name,email,street\nAnna,Vries,anna@example.com,"Keizersgracht\n';
    writeFileSync(file, bytes(head, '31', [0xe2, 0x82], '"\nBob,Bakker,bob@example.com,\n'));
    const run = cli(join(dir, 'billing.db'));
    const result = await run.run(['import', 'customers', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: ${file} is not UTF-8 text at line 3, byte offset ${Buffer.byteLength(head) + 2} (0xe2): save it as UTF-8 and import it again; nothing was imported\n`,
    );
    expect(await run.customerCount()).toBe(0);
  });

  it('standard input (-): named as such, in either format', async () => {
    const run = cli(join(tempDir(), 'billing.db'));
    const ndjson = await run.run(['import', 'customers', '-', '--format', 'ndjson'], {
      stdin: bytes(line(1), [0xc0, 0x80], '\n'),
    });
    expect(ndjson.code).toBe(2);
    expect(ndjson.stderr).toBe(
      `error: standard input (-) is not UTF-8 text at line 2, byte offset ${Buffer.byteLength(line(1))} (0xc0): save it as UTF-8 and import it again; nothing was imported\n`,
    );
    const csv = await run.run(['import', 'customers', '-', '--format', 'csv'], {
      stdin: bytes('first_name,last_name,email\nJos', [0xe9], ',Smit,jos@example.com\n'),
    });
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain('standard input (-) is not UTF-8 text at line 2, byte offset 30 (0xe9)');
    expect(await run.customerCount()).toBe(0);
  });

  it('a leading byte order mark is no part of the first row, in NDJSON and CSV', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.ndjson'), bytes(BOM, line(1)));
    writeFileSync(join(dir, 'b.csv'), bytes(BOM, 'first_name,last_name,email\nBea,Bom,bea@example.com\n'));
    const run = cli(join(dir, 'billing.db'));
    for (const file of ['a.ndjson', 'b.csv']) {
      const result = await run.run(['import', 'customers', join(dir, file)]);
      expect(result.code, result.stderr).toBe(0);
    }
    expect(await emails(run)).toEqual(['c1@example.com', 'bea@example.com']);
  });
});

describe('--data of bytes that are not UTF-8', () => {
  const BAD = bytes('{"first_name":"X', [0xc3], '","last_name":"Y","email":"x@example.com"}');

  it('@file and - (standard input): exit 2 saying where, nothing sent; for create and for billing api alike', async () => {
    const dir = tempDir();
    const file = join(dir, 'customer.json');
    writeFileSync(file, BAD);
    writeFileSync(
      join(dir, 'document.json'),
      bytes('{"data":{"type":"customer","attributes":{"first_name":"X', [0xc3], '"}}}'),
    );
    const run = cli(join(dir, 'billing.db'));
    const where = (name: string, offset: number) =>
      `error: --data: ${name} is not UTF-8 text at line 1, byte offset ${offset} (0xc3): save it as UTF-8; nothing was sent\n`;
    expect(await run.run(['customers', 'create', '--data', `@${file}`])).toEqual({
      code: 2,
      stdout: '',
      stderr: where(file, 16),
    });
    expect(await run.run(['customers', 'create', '--data', '-'], { stdin: BAD })).toEqual({
      code: 2,
      stdout: '',
      stderr: where('standard input (-)', 16),
    });
    expect(await run.run(['api', 'POST', '/customers', '--data', `@${join(dir, 'document.json')}`])).toEqual({
      code: 2,
      stdout: '',
      stderr: where(join(dir, 'document.json'), 56),
    });
    expect(await run.run(['api', 'POST', '/customers', '--data', '-'], { stdin: BAD })).toMatchObject({
      code: 2,
      stderr: where('standard input (-)', 16),
    });
    expect(await run.customerCount()).toBe(0);
  });

  it('a leading byte order mark is dropped, as the API drops it', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'customer.json'),
      bytes(BOM, '{"first_name":"Bo","last_name":"M","email":"bom@example.com"}'),
    );
    const run = cli(join(dir, 'billing.db'));
    const made = await run.run(['customers', 'create', '--data', `@${join(dir, 'customer.json')}`, '-q']);
    expect(made.code, made.stderr).toBe(0);
    expect(
      (
        await run.run(['api', 'POST', '/customers', '--data', '-'], {
          stdin: bytes(
            BOM,
            '{"data":{"type":"customer","attributes":{"first_name":"Bo","last_name":"N","email":"bon@example.com"}}}',
          ),
        })
      ).code,
    ).toBe(0);
    expect(await emails(run)).toEqual(['bom@example.com', 'bon@example.com']);
  });
});
