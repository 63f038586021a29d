// --dry-run is honoured by every command that changes something, or refused: never ignored.
import { describe, expect, it } from 'vitest';
import { cli, JAN } from './harness.js';

const routerCount = async (c: ReturnType<typeof cli>, path: string) =>
  c.withTransport(
    async (t) => ((await t.request({ method: 'GET', path })).body as { meta: { total: number } }).meta.total,
  );

describe('--dry-run prints the request, sends nothing, exits 0', () => {
  const changes: [string, string[]][] = [
    ['customers create', ['customers', 'create', ...JAN]],
    ['customers update', ['customers', 'update', '1', '--city', 'Utrecht']],
    ['customers archive', ['customers', 'archive', '1']],
    ['customers unarchive', ['customers', 'unarchive', '1']],
    ['plans create', ['plans', 'create', '--name', 'Gold', '--amount', '12,50']],
    [
      'api POST',
      [
        'api',
        'POST',
        '/customers',
        '--data',
        '{"data":{"type":"customer","attributes":{"first_name":"A","last_name":"B","email":"a@example.com"}}}',
      ],
    ],
  ];

  it.each(changes)('%s', async (_name, argv) => {
    const c = cli();
    await c.seedCustomers(1);
    const before = await c.run(['customers', 'get', '1', '--json']);
    const result = await c.run(['--dry-run', ...argv]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(printed.method ?? printed.create).toBeDefined();
    expect(await c.run(['customers', 'get', '1', '--json'])).toEqual(before);
    expect(await c.customerCount()).toBe(1);
    expect(await routerCount(c, '/subscription-plans')).toBe(0);
  });

  it("the amount a Dutch user types (--amount 12,50) is the request's 12.50", async () => {
    const result = await cli().run(['--dry-run', 'plans', 'create', '--name', 'Gold', '--amount', '12,50']);
    expect(JSON.parse(result.stdout).attributes.amount).toBe('12.50');
    const thousands = await cli().run(['--dry-run', 'plans', 'create', '--name', 'Gold', '--amount', '1.234,50']);
    expect(JSON.parse(thousands.stdout).attributes.amount).toBe('1234.50');
    const english = await cli().run(['--dry-run', 'plans', 'create', '--name', 'Gold', '--amount', '1,234.50']);
    expect(JSON.parse(english.stdout).attributes.amount).toBe('1234.50');
    // Twelve and a half, or twelve thousand five hundred? Neither is guessed.
    const ambiguous = await cli().run(['--dry-run', 'plans', 'create', '--name', 'Gold', '--amount', '12,500']);
    expect(ambiguous).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --amount: must be an amount in euro with at most two decimals, for example 12.50\n',
    });
  });
});

describe('commands that cannot show what they would do refuse --dry-run (exit 2) before running', () => {
  it.each([
    [
      'demo',
      ['demo'],
      'billing demo cannot --dry-run: it writes a whole sample; try it on a throwaway store instead: billing --db /tmp/try.db demo',
    ],
    [
      'serve',
      ['serve', '--port', '0'],
      'billing serve cannot --dry-run: a server answers requests as they come; there is nothing to show in advance',
    ],
  ])('%s', async (_name, argv, message) => {
    const c = cli();
    const result = await c.run(['--dry-run', ...argv]);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n` });
    expect(await c.customerCount()).toBe(0);
  });
});
