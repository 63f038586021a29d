// billing reports NAME: the flags as the request it sends (checked before anything is sent), and
// what it prints of a real report: on a terminal a table and a chart within the terminal's width,
// without one TSV and no chart, --json the report document, -o csv its rows, --html a page.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/lib/output/text.js';
import { tempDir } from '../helpers/store.js';
import { cli, type Cli } from './harness.js';
import { overlong, runDouble } from './service-double.js';

const REPORT = {
  status: 200,
  body: {
    links: { self: 'x' },
    meta: {
      report: 'mrr',
      from: '2026-01-01',
      to: '2026-03-31',
      by: 'quarter',
      time_zone: 'Europe/Amsterdam',
      as_of: '2026-11-21T11:00:00+01:00',
      rows: [],
    },
  },
};

describe('billing reports: the flags, as the request sent', () => {
  it.each([
    [['reports', 'mrr'], {}],
    [
      ['reports', 'mrr', '--from', '2026-01-01', '--to', '2026-03-31', '--by', 'quarter'],
      { 'filter[from]': '2026-01-01', 'filter[to]': '2026-03-31', 'filter[by]': 'quarter' },
    ],
    [
      ['reports', 'vat', '--quarter', '2027-Q1'],
      { 'filter[from]': '2027-01-01', 'filter[to]': '2027-03-31', 'filter[by]': 'quarter' },
    ],
    [
      ['reports', 'vat', '--quarter', '2028-q4'],
      { 'filter[from]': '2028-10-01', 'filter[to]': '2028-12-31', 'filter[by]': 'quarter' },
    ],
  ])('%j sends GET /reports/NAME with %j', async (argv, query) => {
    const result = await runDouble([...argv, '--json'], () => REPORT);
    expect(result.code, result.stderr).toBe(0);
    expect(result.requests).toHaveLength(1);
    expect(result.requests[0].method).toBe('GET');
    expect(result.requests[0].path).toBe(`/reports/${argv[1]}`);
    expect(
      Object.fromEntries(Object.entries(result.requests[0].query ?? {}).filter(([, v]) => v !== undefined)),
    ).toEqual(query);
  });

  it.each([
    [['--from', '2027-02-30'], 'error: --from must be a day, YYYY-MM-DD (2027-01-31), not "2027-02-30"\n'],
    [['--to', 'yesterday'], 'error: --to must be a day, YYYY-MM-DD (2027-01-31), not "yesterday"\n'],
    [['--by', 'week'], 'error: --by must be one of month, quarter, year, not "week"\n'],
    [
      ['--from', '2027-03-01', '--to', '2027-02-01'],
      'error: --from (2027-03-01) must be on or before --to (2027-02-01)\n',
    ],
    [['--quarter', '2027-Q5'], 'error: --quarter must be a quarter, YYYY-Qn (2027-Q1), not "2027-Q5"\n'],
    [
      ['--quarter', '2027-Q1', '--from', '2027-01-01', '--by', 'month'],
      'error: --quarter is a range of its own: give it without --from, --by\n',
    ],
  ])('%j is a usage error (exit 2) before anything is sent', async (flags, message) => {
    const result = await runDouble(['reports', 'mrr', ...flags], () => REPORT);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(message);
    expect(result.requests).toEqual([]);
  });

  it('overdue takes no range: --from is an unknown option there (exit 2)', async () => {
    const result = await runDouble(['reports', 'overdue', '--from', '2027-01-01'], () => REPORT);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--from'");
    expect(result.requests).toEqual([]);
  });

  it.each([['--json'], ['-o', 'csv'], ['--query', 'data']])(
    'all with %s is a usage error: one report for a document',
    async (...flags) => {
      const result = await runDouble(['reports', 'all', ...flags], () => REPORT);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'error: billing reports all prints tables, or one page with --html FILE; for --json, -o csv|ndjson or --query, name one report\n',
      );
      expect(result.requests).toEqual([]);
    },
  );

  it('a refusal of the service is exit 1 with its detail', async () => {
    const refused = {
      status: 400,
      body: {
        errors: [
          {
            status: '400',
            title: 'Invalid Parameter',
            detail: 'filter[from] (2099-01-01) is after today (2026-11-21): nothing is recorded for it yet',
            source: { parameter: 'filter[from]' },
          },
        ],
      },
    };
    const result = await runDouble(['reports', 'mrr', '--from', '2099-01-01'], () => refused);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: filter[from]: (2099-01-01) is after today (2026-11-21): nothing is recorded for it yet\n',
    );
  });

  it('every report has help with examples, within 80 columns', async () => {
    for (const name of ['mrr', 'subscriptions', 'collections', 'revenue', 'vat', 'overdue', 'all']) {
      const help = await runDouble(['reports', name, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`  $ billing reports ${name}`);
      expect(overlong(help.stdout), name).toEqual([]);
    }
    const group = await runDouble(['reports', '--help']);
    expect(group.stdout).toMatch(/mrr .*\n[\s\S]*overdue .*\n[\s\S]*all /);
  });
});

describe('billing reports: what it prints', () => {
  let c: Cli;
  const run = (argv: string[], options: { tty?: boolean; columns?: number } = {}) => c.run(argv, options);
  const ok = async (argv: string[], options: { tty?: boolean; columns?: number } = {}) => {
    const result = await run(argv, options);
    expect(result.code, result.stderr).toBe(0);
    return result;
  };

  beforeAll(async () => {
    // Three months of a monthly subscription and an invoice at two rates (27.76 with tax), made through the CLI.
    c = cli();
    for (const argv of [
      ['plans', 'create', '--name', 'Gold', '--amount', '12.50', '--frequency', 'monthly'],
      ['customers', 'create', '--first-name', 'Jan', '--last-name', 'Jansen', '--email', 'jan@example.com'],
      ['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1', '--status', 'active'],
      ['invoices', 'create', '--subscription-id', '1'],
      [
        'lines',
        'create',
        '--invoice-id',
        '1',
        '--description',
        'Lunchbox',
        '--amount',
        '10',
        '--tax-rate',
        '21',
        '--quantity',
        '2',
      ],
      ['lines', 'create', '--invoice-id', '1', '--description', 'Soup', '--amount', '3,27', '--tax-rate', '9'],
      ['invoices', 'finalise', '1'],
      ['clock', 'advance', 'P2M'],
    ]) {
      const result = await c.run(argv);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    }
  }, 120_000);

  it('on a terminal: a heading, the table and a chart of the main figure, every line within the width', async () => {
    for (const columns of [80, 60]) {
      const { stdout } = await ok(['reports', 'mrr', '--from', '2026-10-01', '--no-color'], { tty: true, columns });
      const lines = stdout.split('\n');
      expect(lines[0]).toMatch(/^Monthly recurring revenue: 2026-10-01 to 2027-01-21,/);
      expect(stdout).toContain('│ 2026-11 │');
      expect(stdout).toMatch(/\nMRR\n2026-10 +0\.00\n2026-11 █+ +12\.50\n/);
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    }
  });

  it('without a terminal: tab-separated rows under the names of the document, no chart; a second table after a blank line', async () => {
    const { stdout } = await ok(['reports', 'collections', '--from', '2026-11-01']);
    expect(stdout).not.toMatch(/[█│]/);
    const [main, reasons] = stdout.split('\n\n');
    expect(main.split('\n')).toEqual([
      'period\tcollected\tcollected_count\treturned\treturned_count\tfailed\tfailed_count\tnet\tsuccess_rate\trecovered\trecovered_count',
      '2026-11\t40.26\t2\t0.00\t0\t0.00\t0\t40.26\t1.0000\t0.00\t0',
      '2026-12\t12.50\t1\t0.00\t0\t0.00\t0\t12.50\t1.0000\t0.00\t0',
      '2027-01\t12.50\t1\t0.00\t0\t0.00\t0\t12.50\t1.0000\t0.00\t0',
    ]);
    expect(reasons).toBe('reason_code\treason\treturned_count\treturned\tfailed_count\tfailed\n');
  });

  it('--json: the report document; -o csv and ndjson: its rows; --query on the document', async () => {
    const json = JSON.parse((await ok(['reports', 'vat', '--quarter', '2026-Q4', '--json'])).stdout);
    expect(json).toEqual({
      meta: {
        report: 'vat',
        from: '2026-10-01',
        to: '2026-12-31',
        by: 'quarter',
        time_zone: 'Europe/Amsterdam',
        as_of: '2027-01-21T11:00:00+01:00',
      },
      data: [
        { period: '2026-Q4', rate: '21.00', base: '20.00', tax: '4.20', invoices: 1 },
        { period: '2026-Q4', rate: '9.00', base: '3.27', tax: '0.29', invoices: 1 },
      ],
    });
    expect((await ok(['reports', 'vat', '--quarter', '2026-Q4', '-o', 'csv'])).stdout).toBe(
      'period,rate,base,tax,invoices\r\n2026-Q4,21.00,20.00,4.20,1\r\n2026-Q4,9.00,3.27,0.29,1\r\n',
    );
    expect((await ok(['reports', 'vat', '--quarter', '2026-Q4', '-o', 'ndjson'])).stdout.split('\n')[0]).toBe(
      '{"period":"2026-Q4","rate":"21.00","base":"20.00","tax":"4.20","invoices":1}',
    );
    expect((await ok(['reports', 'mrr', '--json', '--query', 'data[-1].mrr'])).stdout).toBe('12.50\n');
    const overdue = JSON.parse((await ok(['reports', 'overdue', '--json'])).stdout);
    expect(Object.keys(overdue)).toEqual(['meta', 'data', 'customers']);
  });

  it('--html FILE: one self-contained page with an SVG chart and the figures of the document; all: every report', async () => {
    const dir = tempDir();
    const one = join(dir, 'mrr.html');
    const written = await ok(['reports', 'mrr', '--html', one]);
    expect(written.stdout).toBe('');
    expect(written.stderr).toBe(`wrote ${one} (mrr)\n`);
    const page = readFileSync(one, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<svg');
    expect(page).not.toMatch(/<script|<link|<img|\bsrc=|url\(/i);
    expect(page).toContain('data-column="mrr" data-value="12.50"');
    const every = join(dir, 'all.html');
    await ok(['reports', 'all', '--html', every]);
    expect(readFileSync(every, 'utf8').match(/<section data-report="(\w+)"/g)).toEqual(
      ['mrr', 'subscriptions', 'collections', 'revenue', 'vat', 'overdue'].map((n) => `<section data-report="${n}"`),
    );
    const toStdout = await ok(['reports', 'vat', '--html', '-']);
    expect(toStdout.stdout).toMatch(/^<!doctype html>[\s\S]*<\/html>\n$/);
    expect(existsSync(join(dir, '-'))).toBe(false);
  });

  it('all: every report one after the other (named, without a terminal)', async () => {
    const { stdout } = await ok(['reports', 'all']);
    expect(stdout.split('\n').filter((line) => /^[a-z]+$/.test(line))).toEqual([
      'mrr',
      'subscriptions',
      'collections',
      'revenue',
      'vat',
      'overdue',
    ]);
  });
});
