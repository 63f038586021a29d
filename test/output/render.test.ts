// render(): the view follows the terminal, the footer (on stderr) says how to get the next page,
// and the machine formats stay exactly as they were.
import { describe, expect, it } from 'vitest';
import type { GlobalOptions } from '../../src/lib/cli/globals.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { footer, render, type Document } from '../../src/lib/output/render.js';

const globals = (overrides: Partial<GlobalOptions> = {}): GlobalOptions => ({
  output: 'table',
  outputExplicit: false,
  input: false,
  quiet: false,
  verbose: false,
  color: false,
  dryRun: false,
  yes: false,
  csvRaw: false,
  ...overrides,
});

const link = (page: number) => `http://127.0.0.1:8080/customers?page[number]=${page}&page[size]=10`;
const resource = (id: number) => ({
  type: 'customer',
  id: String(id),
  attributes: {
    first_name: `F${id}`,
    last_name: `L${id}`,
    email: `c${id}@example.com`,
    archived: false,
    created_at: '2026-12-01T14:03:00+01:00',
  },
});
const page = (number: number, last: number, total: number, data = [resource(1)]): Document => ({
  meta: { total },
  links: {
    self: link(number),
    first: link(1),
    last: link(last),
    prev: number > 1 ? link(number - 1) : null,
    next: number < last ? link(number + 1) : null,
  },
  data,
});

describe('the footer', () => {
  it('says how to get the next page, and nothing about next on the last page', () => {
    expect(footer(page(1, 5, 47), 10, 'customer')).toBe('page 1 of 5, 47 customers (next: --page 2)');
    expect(footer(page(4, 5, 47), 10, 'customer')).toBe('page 4 of 5, 47 customers (next: --page 5)');
    expect(footer(page(5, 5, 47), 7, 'customer')).toBe('page 5 of 5, 47 customers');
    expect(footer(page(1, 1, 1), 1, 'customer')).toBe('page 1 of 1, 1 customer');
  });

  it('with --all: all of them; with a page size given, the hint repeats it', () => {
    expect(footer(page(1, 5, 47), 47, 'customer', true)).toBe('all 47 customers');
    expect(footer(page(1, 3, 12), 5, 'subscription-plan', false, 5)).toBe(
      'page 1 of 3, 12 plans (next: --page 2 --page-size 5)',
    );
  });

  it('without links: page 1 of 1; relative or broken links do not throw', () => {
    expect(footer({ data: [] }, 3, 'customer')).toBe('page 1 of 1, 3 customers');
    expect(
      footer(
        {
          meta: { total: 30 },
          links: {
            self: '/customers?page[number]=2',
            last: '/customers?page[number]=3',
            next: '/customers?page[number]=3',
          },
        },
        10,
        'customer',
      ),
    ).toBe('page 2 of 3, 30 customers (next: --page 3)');
    expect(footer({ meta: { total: 30 }, links: { self: 'http://[bad', last: 'nonsense' } }, 10, 'customer')).toBe(
      'page 1 of 1, 30 customers',
    );
  });

  it('a type from the service cannot steer the terminal', () => {
    expect(footer(page(1, 1, 2), 2, 'thing\x1b[2J')).toBe('page 1 of 1, 2 thing\\x1b[2Js');
    expect(footer({ meta: { total: '\x1b[2J' as unknown as number } }, 2, 'customer')).toBe(
      'page 1 of 1, \\x1b[2J customers',
    );
  });
});

describe('render as a table', () => {
  it('on a terminal: a table on stdout, the footer on stderr', async () => {
    const io = memoryIO({ tty: true });
    await render(page(1, 5, 47), globals(), io, { type: 'customer' });
    expect(io.stdout).toMatch(/^┌/);
    expect(io.stderr).toBe('page 1 of 5, 47 customers (next: --page 2)\n');
  });

  it('not on a terminal: TSV on stdout; the footer still on stderr, not with -q', async () => {
    const io = memoryIO();
    await render(page(1, 1, 1), globals(), io, { type: 'customer' });
    expect(io.stdout).toBe(
      'id\tname\temail\tpayment method\tcreated\tstate\n1\tF1 L1\tc1@example.com\t\t2026-12-01\t\n',
    );
    expect(io.stderr).toBe('page 1 of 1, 1 customer\n');
    const quiet = memoryIO();
    await render(page(1, 1, 1), globals({ quiet: true }), quiet, { type: 'customer' });
    expect(quiet.stderr).toBe('');
  });

  it("one resource shows its times with the offset of the account's zone", async () => {
    const io = memoryIO();
    await render({ data: resource(1) }, globals(), io);
    expect(io.stdout).toContain('created\t2026-12-01 14:03 +01:00\n');
  });

  it('colour only with colour on', async () => {
    const plain = memoryIO({ tty: true });
    await render(page(1, 1, 1), globals(), plain);
    expect(plain.stdout).not.toMatch('\u001b[');
    const coloured = memoryIO({ tty: true });
    await render(page(1, 1, 1), globals({ color: true }), coloured);
    expect(coloured.stdout).toMatch('\u001b[');
  });

  it('an empty list says so on stderr', async () => {
    const io = memoryIO({ tty: true });
    await render({ meta: { total: 0 }, data: [] }, globals(), io, { type: 'subscription' });
    expect(io).toMatchObject({ stdout: '', stderr: 'no subscriptions\n' });
  });
});

describe('machine formats are unchanged', () => {
  const document = page(1, 1, 1, [resource(1)]);
  it('json, ndjson and csv do not depend on the terminal', async () => {
    for (const output of ['json', 'ndjson', 'csv'] as const) {
      const tty = memoryIO({ tty: true, columns: 20 });
      const pipe = memoryIO();
      await render(document, globals({ output, color: true }), tty, { type: 'customer' });
      await render(document, globals({ output }), pipe, { type: 'customer' });
      expect(tty.stdout).toBe(pipe.stdout);
      expect(tty.stderr).toBe('');
    }
    const json = memoryIO({ tty: true });
    await render(document, globals({ output: 'json' }), json);
    expect(json.stdout).toBe(`${JSON.stringify(document, null, 2)}\n`);
  });
});
