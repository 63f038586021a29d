// The built CLI in remote mode against a `billing serve` it talks to over loopback, side by side
// with the same commands on an embedded store: the same output, the same exit codes.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, TEST_CONFIG_DIR, type CliResult } from '../helpers/cli.js';
import { tempDbPath, tempDir } from '../helpers/store.js';

const EMBEDDED_BASE = 'http://127.0.0.1:8080'; // where the embedded store's links point
let server: ChildProcess | undefined;
let url = '';
let key = '';
const embeddedDb = tempDbPath();
const servedDb = tempDbPath();

/** Times and the base of links differ between the two runs; everything else must not. */
const normalise = (text: string) =>
  text
    .split(url)
    .join('BASE')
    .split(EMBEDDED_BASE)
    .join('BASE')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d/g, 'TIME')
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d/g, 'TIME');

/** Waits (at most 10 s) until billing serve's due work has taken a transaction it queued. */
async function settled(transaction: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const read = await runCli([
      'transactions',
      'get',
      transaction,
      '--base-url',
      url,
      '--api-key',
      key,
      '--query',
      'data.attributes.status',
    ]);
    expect(read.code, read.stderr).toBe(0);
    if (read.stdout.trim() !== 'queued') return;
    if (Date.now() > deadline) throw new Error(`billing serve left transaction ${transaction} queued for 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function both(args: string[]): Promise<{ remote: CliResult; embedded: CliResult }> {
  const remote = await runCli([...args, '--base-url', url, '--api-key', key]);
  const embedded = await runCli([...args, '--db', embeddedDb, '--account', 'alpha']);
  return { remote, embedded };
}

beforeAll(async () => {
  for (const db of [servedDb, embeddedDb]) {
    const made = await runCli(['accounts', 'create', 'alpha', '--json', '--db', db]);
    expect(made.code).toBe(0);
    if (db === servedDb) key = JSON.parse(made.stdout).api_key;
  }
  server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', servedDb], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${seen}`)), 10_000);
    server!.stderr!.on('data', (chunk) => {
      seen += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
}, 60_000);

afterAll(async () => {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
  server.kill('SIGTERM');
  expect(await exited).toBe(0);
});

describe('remote mode against billing serve, beside embedded mode', () => {
  const cases: [string, string[], number][] = [
    ['an empty list', ['customers', 'list'], 0],
    [
      'create',
      [
        'customers',
        'create',
        '--first-name',
        'Jan',
        '--last-name',
        'Jansen',
        '--email',
        'jan@example.com',
        '--iban',
        'NL91 ABNA 0417 1643 00',
        '--bank-holder',
        'J. Jansen',
      ],
      0,
    ],
    [
      'create, --json',
      ['customers', 'create', '--first-name', 'Els', '--last-name', 'Peters', '--email', 'els@example.com', '--json'],
      0,
    ],
    ['get as a table', ['customers', 'get', '1'], 0],
    ['get --json with sparse fields', ['customers', 'get', '2', '--json', '--fields', 'customer=email,first_name'], 0],
    ['update', ['customers', 'update', '1', '--city', 'Utrecht', '--json'], 0],
    ['list with a footer', ['customers', 'list', '--page-size', '1'], 0],
    ['list --all --json', ['customers', 'list', '--all', '--page-size', '1', '--json'], 0],
    [
      'a refused create: every problem, exit 1',
      [
        'customers',
        'create',
        '--first-name',
        'X',
        '--last-name',
        'Y',
        '--data',
        '{"email":"not-an-email","iban":"NL00BANK0000000000"}',
      ],
      1,
    ],
    [
      'a refused create with --json: the error document on stdout',
      ['customers', 'create', '--first-name', 'X', '--last-name', 'Y', '--data', '{"email":"nope"}', '--json'],
      1,
    ],
    [
      'bad flag values, refused before anything is sent: exit 2',
      ['customers', 'create', '--first-name', 'X', '--last-name', 'Y', '--email', 'nope', '--language', 'xx'],
      2,
    ],
    ['an unknown id', ['customers', 'get', '99'], 1],
    ['a bad page size from the service', ['api', 'GET', '/customers?page[size]=500'], 1],
    ['plans, none yet', ['plans', 'list', '--json'], 0],
    ['the raw api command', ['api', 'GET', '/customers/1'], 0],
    ['405 through the api command', ['api', 'DELETE', '/customers/1', '--json'], 1],
  ];
  for (const [name, args, code] of cases) {
    it(`${name}: ${args.join(' ')}`, async () => {
      const { remote, embedded } = await both(args);
      expect(embedded.code).toBe(code);
      expect(remote.code).toBe(code);
      expect(normalise(remote.stdout)).toBe(normalise(embedded.stdout));
      expect(normalise(remote.stderr)).toBe(normalise(embedded.stderr));
    });
  }

  it('a wrong key exits 4 and names the failure, without echoing the key', async () => {
    const result = await runCli(['customers', 'list', '--base-url', url, '--api-key', 'bk_wrong_key_123']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('authentication failed');
    expect(result.stdout + result.stderr).not.toContain('bk_wrong_key_123');
  });

  it('no key exits 4', async () => {
    const result = await runCli(['customers', 'list', '--base-url', url]);
    expect(result.code).toBe(4);
  });

  it('embedded-only commands exit 2 in remote mode', async () => {
    const result = await runCli([
      'plans',
      'create',
      '--name',
      'Box',
      '--amount',
      '10',
      '--base-url',
      url,
      '--api-key',
      key,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('works only on the embedded store');
  });
});

describe('amounts at their bound and CSV cells, the same in both modes', () => {
  const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  const same = ({ remote, embedded }: { remote: CliResult; embedded: CliResult }, code: number) => {
    expect(embedded.code, embedded.stderr).toBe(code);
    expect(remote.code, remote.stderr).toBe(code);
    expect(normalise(remote.stdout).replace(UUID, 'UUID')).toBe(normalise(embedded.stdout).replace(UUID, 'UUID'));
    expect(normalise(remote.stderr).replace(UUID, 'UUID')).toBe(normalise(embedded.stderr).replace(UUID, 'UUID'));
    return { remote, embedded };
  };

  it(
    'a transaction of 9,999,999,999.99 and one of the bound print exactly; one cent more is refused before sending (2) and by the service (1)',
    { timeout: 180_000 },
    async () => {
      // Plans are made by an operator, on each store (the served one while it is served).
      for (const db of [servedDb, embeddedDb])
        expect(
          (
            await runCli([
              'plans',
              'create',
              '--name',
              'Largest',
              '--amount',
              '10.000.000.000,00',
              '--db',
              db,
              '--account',
              'alpha',
              '-q',
            ])
          ).code,
        ).toBe(0);
      const customer = same(
        await both([
          'customers',
          'create',
          '--first-name',
          'Rich',
          '--last-name',
          'Client',
          '--email',
          'rich@example.com',
          '--query',
          'data.id',
        ]),
        0,
      ).embedded.stdout.trim();
      const plan = same(await both(['plans', 'list', '--query', 'data[-1].id']), 0).embedded.stdout.trim();
      const subscription = same(
        await both([
          'subscriptions',
          'create',
          '--customer-id',
          customer,
          '--subscription-plan-id',
          plan,
          '--status',
          'active',
          '--query',
          'data.id',
        ]),
        0,
      ).embedded.stdout.trim();
      for (const [amount, shown] of [
        ['9.999.999.999,99', '€ 9,999,999,999.99'],
        ['10000000000', '€ 10,000,000,000.00'],
      ]) {
        const made = same(
          await both([
            'transactions',
            'create',
            '--subscription-id',
            subscription,
            '--amount',
            amount,
            '--query',
            'data.id',
          ]),
          0,
        );
        // Each mode reads its own transaction (their ids differ): the same table, the amount exact.
        // The embedded command before this read did the new transaction's due work (scheduled and
        // collected it); billing serve does it on its timer, within a second: read it once done.
        await settled(made.remote.stdout.trim());
        const got = {
          remote: await runCli(['transactions', 'get', made.remote.stdout.trim(), '--base-url', url, '--api-key', key]),
          embedded: await runCli([
            'transactions',
            'get',
            made.embedded.stdout.trim(),
            '--db',
            embeddedDb,
            '--account',
            'alpha',
          ]),
        };
        same(got, 0);
        expect(got.embedded.stdout).toContain(`amount\t${shown}\n`);
      }
      const flag = same(
        await both(['transactions', 'create', '--subscription-id', subscription, '--amount', '10000000000.01']),
        2,
      );
      expect(flag.embedded.stderr).toBe('error: --amount: must be at most 10000000000.00\n');
      const data = same(
        await both([
          'transactions',
          'create',
          '--data',
          `{"subscription_id": ${subscription}, "amount": "10000000000.01"}`,
        ]),
        1,
      );
      expect(data.embedded.stderr).toContain('amount: must be at most 10000000000.00');
      same(
        await both([
          'transactions',
          'create',
          '--data',
          `{"subscription_id": ${subscription}, "amount": 90071992547409.91}`,
        ]),
        1,
      );
    },
  );

  it(
    '--data of bytes that are not UTF-8 is exit 2 before anything is sent, the same in both modes',
    { timeout: 60_000 },
    async () => {
      const file = join(tempDir(), 'customer.json');
      writeFileSync(
        file,
        Buffer.concat([
          Buffer.from('{"first_name":"'),
          Buffer.from([0xe9]),
          Buffer.from('","last_name":"X","email":"latin1@example.com"}'),
        ]),
      );
      const refused = same(await both(['customers', 'create', '--data', `@${file}`]), 2);
      expect(refused.embedded.stderr).toBe(
        `error: --data: ${file} is not UTF-8 text at line 1, byte offset 15 (0xe9): save it as UTF-8; nothing was sent\n`,
      );
      expect(same(await both(['customers', 'list', '--search', 'latin1', '-o', 'ndjson']), 0).embedded.stdout).toBe('');
    },
  );

  it(
    "CSV cells a spreadsheet would run get a leading ', the same in both modes; --csv-raw writes them as they are",
    { timeout: 120_000 },
    async () => {
      same(
        await both([
          'customers',
          'create',
          '--first-name',
          '=HYPERLINK("http://x")',
          '--last-name',
          '@SUM(1)',
          '--email',
          'hostile@example.com',
          '--telephone',
          '+31612345678',
          '-q',
        ]),
        0,
      );
      const fields = ['--fields', 'customer=first_name,last_name,telephone', '--search', 'hostile'];
      const escaped = same(await both(['customers', 'list', '-o', 'csv', ...fields]), 0);
      expect(escaped.embedded.stdout).toMatch(
        /^id,first_name,last_name,telephone\r\n\d+,"'=HYPERLINK\(""http:\/\/x""\)",'@SUM\(1\),'\+31612345678\r\n$/,
      );
      same(await both(['customers', 'list', '--all', '-o', 'csv', ...fields]), 0);
      const raw = same(await both(['--csv-raw', 'customers', 'list', '--all', '-o', 'csv', ...fields]), 0);
      expect(raw.embedded.stdout).toMatch(
        /^id,first_name,last_name,telephone\r\n\d+,"=HYPERLINK\(""http:\/\/x""\)",@SUM\(1\),\+31612345678\r\n$/,
      );
    },
  );
});
