// The formats a list streams in (pageFormat): pages written one after another give exactly what
// render prints of the whole list; and the footer of a keyset page (--after).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GlobalOptions } from '../../src/lib/cli/globals.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import { footer, pageFormat, render, streams } from '../../src/lib/output/render.js';

const globals = (output: GlobalOptions['output']): GlobalOptions => ({
  output,
  outputExplicit: true,
  input: false,
  quiet: false,
  verbose: false,
  color: false,
  dryRun: false,
  yes: false,
  csvRaw: false,
});

const customer = (id: number, attributes: Record<string, unknown> = {}) => ({
  type: 'customer',
  id: String(id),
  attributes: { first_name: `F${id}`, note: `a "quoted", ${id}\nline`, tags: [id], ...attributes },
});

async function rendered(output: 'ndjson' | 'csv', data: ReturnType<typeof customer>[]): Promise<string> {
  const io = memoryIO();
  await render({ data }, globals(output), io, { type: 'customer', all: true });
  return io.stdout;
}

describe('pageFormat', () => {
  it('pages joined are what render prints of the whole list, however the list is cut into pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 12 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
        async (count, cuts) => {
          const data = Array.from({ length: count }, (_, i) => customer(i + 1));
          for (const output of ['ndjson', 'csv'] as const) {
            const format = await pageFormat(output);
            let text = '';
            let at = 0;
            for (let i = 0; at < data.length || i === 0; i++) {
              const size = cuts[i % cuts.length];
              text += format.page(data.slice(at, at + size));
              at += size;
            }
            expect(text).toBe(await rendered(output, data));
            expect(format.dropped.size).toBe(0);
          }
        },
      ),
    );
  });

  it('csv: the header is the first page’s; a column first seen later is left out and named', async () => {
    const format = await pageFormat('csv');
    expect(format.page([{ type: 'customer', id: '1', attributes: { a: 1, b: null } }])).toBe('id,a,b\r\n1,1,\r\n');
    expect(
      format.page([
        { type: 'customer', id: '2', attributes: { b: 'x', c: 'late' } },
        { type: 'customer', id: '3', attributes: {} },
      ]),
    ).toBe('2,,x\r\n3,,\r\n');
    expect([...format.dropped]).toEqual(['c']);
  });

  it('streams only ndjson and csv, and never with --query', () => {
    expect(streams({ output: 'ndjson', query: undefined })).toBe(true);
    expect(streams({ output: 'csv', query: undefined })).toBe(true);
    expect(streams({ output: 'csv', query: 'data[0]' })).toBe(false);
    expect(streams({ output: 'json', query: undefined })).toBe(false);
    expect(streams({ output: 'table', query: undefined })).toBe(false);
  });
});

describe('the footer of a keyset page', () => {
  const after = (from: number, next: number | null) => ({
    links: {
      self: `http://x/customers?page%5Bafter%5D=${from}&page%5Bsize%5D=3`,
      next: next === null ? null : `http://x/customers?page%5Bafter%5D=${next}&page%5Bsize%5D=3`,
    },
  });

  it('counts what it shows after the id, and gives the --after of the next page', () => {
    expect(footer(after(40, 52), 3, 'customer', false, 3)).toBe(
      '3 customers after id 40 (next: --after 52 --page-size 3)',
    );
    expect(footer(after(40, null), 2, 'customer')).toBe('2 customers after id 40');
    expect(footer(after(0, 3), 3, 'invoice')).toBe('3 invoices (next: --after 3)');
    expect(footer(after(6, null), 3, 'customer', true)).toBe('all 3 customers after id 6');
  });

  it('an empty keyset page says after which id', async () => {
    const io = memoryIO();
    await render({ ...after(9, null), data: [] }, globals('table'), io, { type: 'customer' });
    expect(io.stderr).toBe('no customers after id 9\n');
  });
});
