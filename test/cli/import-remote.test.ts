// billing import against billing serve (the built CLI on both ends): every row a POST with an
// Idempotency-Key made from the file and the row, so an import killed at any point and run again
// makes every row exactly once, and so does one whose server was killed (SIGKILL) mid-import, on
// either engine; the CLI's own POST is sent again after a lost answer only to a server that
// honours keys.
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/lib/core/accounts.js';
import { systemClock } from '../../src/lib/core/clock.js';
import { openStore } from '../../src/lib/store/store.js';
import { BIN, ensureBundle, runCli, TEST_CONFIG_DIR, watchServe } from '../helpers/cli.js';
import { freshStoreLocation } from '../helpers/engine.js';
import { storeWithAccount, tempDir } from '../helpers/store.js';
import { cli } from './harness.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function serve(prepare?: (dbPath: string) => Promise<void>): Promise<{ url: string; key: string }> {
  ensureBundle('idempotency_keys');
  const { dbPath, key } = await storeWithAccount();
  await prepare?.(dbPath);
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', dbPath], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return { url: `http://127.0.0.1:${await watchServe(child).port}`, key };
}

const total = async (url: string, key: string): Promise<{ total: number; emails: string[] }> => {
  const emails: string[] = [];
  let next: string | null = `${url}/customers?page[size]=100`;
  let count = 0;
  while (next) {
    const page = (await (await fetch(next, { headers: { 'x-authorization': key } })).json()) as {
      data: { attributes: { email: string } }[];
      meta: { total: number };
      links: { next: string | null };
    };
    emails.push(...page.data.map((c) => c.attributes.email));
    count = page.meta.total;
    next = page.links.next;
  }
  return { total: count, emails };
};

describe('billing import, remote', () => {
  it('imports through billing serve; killed half-way and run again, every row is made exactly once', async () => {
    const { url, key } = await serve();
    const dir = tempDir();
    const file = join(dir, 'customers.ndjson');
    const rows = 400;
    writeFileSync(
      file,
      Array.from({ length: rows }, (_, i) =>
        JSON.stringify({ first_name: 'Jan', last_name: `Row ${i + 1}`, email: `row${i + 1}@example.com` }),
      ).join('\n') + '\n',
    );
    const remote = ['--base-url', url, '--api-key', key, 'import', 'customers', file];
    const child = spawn(process.execPath, [BIN, ...remote, '--quiet'], {
      env: { PATH: process.env.PATH, BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
      stdio: 'ignore',
    });
    children.push(child);
    // Killed once some rows are in, with requests in flight.
    const deadline = Date.now() + 20_000;
    let before = 0;
    while (Date.now() < deadline && child.exitCode === null && before < 40) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      before = (await total(url, key)).total;
    }
    child.kill('SIGKILL');
    expect(before, 'rows were in when the import was killed').toBeGreaterThan(0);
    expect(before).toBeLessThan(rows);

    const rerun = await runCli([...remote, '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = JSON.parse(rerun.stdout) as { imported: number; already: number; rejected: number };
    expect(summary.rejected).toBe(0);
    // Rows the killed run had sent are answered again from their keys, not made again.
    expect(summary.already).toBeGreaterThanOrEqual(before);
    expect(summary.imported + summary.already).toBe(rows);
    const after = await total(url, key);
    expect(after.total).toBe(rows);
    expect(new Set(after.emails).size).toBe(rows);

    const again = await runCli([...remote, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 0, already: rows });
    expect((await total(url, key)).total).toBe(rows);
  }, 60_000);

  it("rejects what the server refuses, with the line and the server's reasons; a 401 stops the import (exit 4)", async () => {
    const { url, key } = await serve();
    const dir = tempDir();
    const file = join(dir, 'c.csv');
    writeFileSync(file, 'first_name,last_name,email\nAnna,Ansen,anna@example.com\nBob,Bos,not-an-email\n');
    const result = await runCli(['--base-url', url, '--api-key', key, 'import', 'customers', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 3: email: must be a valid email address');
    expect((await total(url, key)).total).toBe(1);
    const unauthorised = await runCli(['--base-url', url, '--api-key', 'wrong', 'import', 'customers', file]);
    expect(unauthorised.code).toBe(4);
    expect(unauthorised.stderr).toContain('stopped at line 2');
  }, 30_000);

  it("reads a decimal comma in an amount as the flags do, and counts an invoice's lines from 1", async () => {
    const { url, key } = await serve(async (dbPath) => {
      const plan = ['plans', 'create', '--name', 'Box', '--amount', '10', '--frequency', 'monthly'];
      expect((await runCli(['--db', dbPath, '--account', 'alpha', ...plan])).code).toBe(0);
    });
    const dir = tempDir();
    const remote = ['--base-url', url, '--api-key', key];
    const customer = join(dir, 'c.ndjson');
    writeFileSync(
      customer,
      JSON.stringify({ first_name: 'Anna', last_name: 'Ansen', email: 'anna@example.com' }) + '\n',
    );
    expect((await runCli([...remote, 'import', 'customers', customer])).code).toBe(0);
    const subscription = await fetch(`${url}/subscriptions`, {
      method: 'POST',
      headers: { 'x-authorization': key, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'subscription', attributes: { customer_id: 1, subscription_plan_id: 1 } } }),
    });
    expect(subscription.status).toBe(201);
    const invoices = join(dir, 'i.ndjson');
    writeFileSync(
      invoices,
      [
        { subscription_id: 1, lines: [{ description: 'Box', amount: '12,50', tax_rate: '21', quantity: 2 }] },
        { subscription_id: 1, lines: [{ description: 'Bad', amount: '1,001', tax_rate: '21' }] },
      ]
        .map((row) => JSON.stringify(row))
        .join('\n') + '\n',
    );
    const made = await runCli([...remote, 'import', 'invoices', invoices]);
    expect(made.code).toBe(1);
    expect(made.stderr).toMatch(/line 2: .*its line 1 was refused: amount: /);
    const listed = (await (await fetch(`${url}/invoices`, { headers: { 'x-authorization': key } })).json()) as {
      data: { attributes: { amount_excl: string } }[];
    };
    expect(listed.data[0].attributes.amount_excl).toBe('25.00');
  }, 30_000);

  it('refuses a file that is not UTF-8 before it sends a row (exit 2, the line and byte offset named), NDJSON and CSV', async () => {
    const { url, key } = await serve();
    const dir = tempDir();
    const ndjson = join(dir, 'c.ndjson');
    writeFileSync(
      ndjson,
      Buffer.concat([
        Buffer.from('{"first_name":"Anna","last_name":"Ansen","email":"anna@example.com"}\n{"first_name":"B'),
        Buffer.from([0xff]),
        Buffer.from('b","last_name":"Bos","email":"bob@example.com"}\n'),
      ]),
    );
    const csv = join(dir, 'c.csv');
    writeFileSync(
      csv,
      Buffer.concat([
        Buffer.from('first_name,last_name,email\nAnna,Ansen,anna@example.com\nB'),
        Buffer.from([0xe9]),
        Buffer.from('b,Bos,bob@example.com\n'),
      ]),
    );
    for (const [file, at] of [
      [ndjson, 'line 2, byte offset 85 (0xff)'],
      [csv, 'line 3, byte offset 56 (0xe9)'],
    ] as const) {
      const result = await runCli(['--base-url', url, '--api-key', key, 'import', 'customers', file]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${file} is not UTF-8 text at ${at}`);
    }
    expect((await total(url, key)).total).toBe(0);
  }, 30_000);

  it('imports a CSV and an NDJSON export as new customers, leaving out its ids and read-only attributes', async () => {
    const { url, key } = await serve();
    const dir = tempDir();
    const from = cli(join(dir, 'from.db'));
    await from.seedCustomers(2);
    const note = "(an export's ids and read-only attributes; an import makes new resources)";
    const left =
      'id, payment_method, bank_verification_method, card_holder, card_number, archived, created_at, updated_at';
    for (const [format, ignored] of [
      ['csv', 'columns'],
      ['ndjson', 'members'],
    ] as const) {
      const file = join(dir, `customers.${format}`);
      writeFileSync(file, (await from.run(['customers', 'list', '--all', '-o', format])).stdout);
      const result = await runCli(['--base-url', url, '--api-key', key, 'import', 'customers', file]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`ignored ${ignored}: ${left} ${note}\n`);
    }
    expect((await total(url, key)).emails).toEqual([
      'c1@example.com',
      'c2@example.com',
      'c1@example.com',
      'c2@example.com',
    ]);
  }, 30_000);
});

/**
 * SQL run straight on a store of either engine, beside billing serve (better-sqlite3, or a pg
 * client): statements separated by `;;`, the rows of the last.
 */
async function onStore<T = Record<string, unknown>>(location: string, statements: string): Promise<T[]> {
  const parts = statements
    .split(';;')
    .map((part) => part.trim())
    .filter(Boolean);
  if (!location.startsWith('postgres')) {
    const db = new Database(location);
    try {
      db.pragma('busy_timeout = 10000');
      for (const part of parts.slice(0, -1)) db.exec(part);
      const last = db.prepare(parts.at(-1)!);
      return last.reader ? (last.all() as T[]) : (last.run(), []);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    let rows: T[] = [];
    for (const part of parts) rows = (await client.query(part)).rows as T[];
    return rows;
  } finally {
    await client.end();
  }
}

/**
 * Makes storing an answer slow (seconds), as a trigger on the key's row: a server killed while
 * requests are in flight is then almost surely killed between a write's commit and the storing of
 * its answer, the moment a crash is hardest on. SQLite has no sleep: its trigger counts a join.
 */
const SLOW_ANSWERS = {
  sqlite: `CREATE TABLE slow (x INTEGER);;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO slow SELECT i FROM n;;
    CREATE TRIGGER slow_answer AFTER UPDATE OF status ON idempotency_keys WHEN NEW.status IS NOT NULL BEGIN
      SELECT count(*) FROM slow a, slow b, slow c;
    END`,
  postgres: `CREATE FUNCTION slow_answer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.status IS NOT NULL THEN PERFORM pg_sleep(2); END IF; RETURN NEW; END
    $$;;
    CREATE TRIGGER slow_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION slow_answer()`,
};
const FAST_ANSWERS = { sqlite: 'DROP TRIGGER slow_answer', postgres: 'DROP TRIGGER slow_answer ON idempotency_keys' };

describe.each(['sqlite', 'postgres'] as const)('billing import, remote, its server killed (SIGKILL) (%s)', (engine) => {
  it('started again, the same import makes exactly the rows of the file: none twice, none missing', async () => {
    ensureBundle('cannot be made again');
    const location = await freshStoreLocation(engine);
    const store = await openStore(location);
    const made = await createAccount(store, systemClock, 'alpha').finally(() => store.close());
    if (!made.ok) throw new Error('no account');
    const key = made.value.apiKey;
    await onStore(location, SLOW_ANSWERS[engine]);

    const rows = 120;
    const file = join(tempDir(), 'customers.ndjson');
    const row = (n: number) => JSON.stringify({ first_name: 'Jan', last_name: `Row ${n}`, email: `r${n}@example.com` });
    writeFileSync(file, Array.from({ length: rows }, (_, i) => `${row(i + 1)}\n`).join(''));
    const env = { PATH: process.env.PATH, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR };
    const start = async () => {
      const args = [BIN, 'serve', '--port', '0', '--db', location];
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      const watched = watchServe(child);
      return { child, url: `http://127.0.0.1:${await watched.port}`, exited: watched.exited };
    };
    const count = async (from: string) => {
      const [{ n }] = await onStore<{ n: number | string }>(location, `SELECT count(*) AS n FROM ${from}`);
      return Number(n);
    };
    const importing = (url: string) => [
      '--base-url',
      url,
      '--api-key',
      key,
      'import',
      'customers',
      file,
      '--concurrency=8',
    ];

    const first = await start();
    const killed = spawn(process.execPath, [BIN, ...importing(first.url), '--quiet'], { env, stdio: 'ignore' });
    children.push(killed);
    const stopped = new Promise((resolve) => killed.once('exit', resolve));
    const deadline = Date.now() + 40_000;
    while (Date.now() < deadline && (await count('customers')) < 8) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    first.child.kill('SIGKILL');
    await first.exited;
    await stopped;

    // What the kill left: every customer committed with its key, and keys whose answer was lost.
    const customers = await count('customers');
    expect(customers, 'rows were in when the server was killed').toBeGreaterThanOrEqual(8);
    expect(customers).toBeLessThan(rows);
    expect(await count('idempotency_keys'), 'every committed row has its key').toBe(customers);
    const unanswered = await count('idempotency_keys WHERE status IS NULL');
    expect(unanswered, 'keys of a committed write without an answer').toBeGreaterThan(0);

    await onStore(location, FAST_ANSWERS[engine]);
    const second = await start();
    const rerun = await runCli([...importing(second.url), '--json'], { timeoutMs: 90_000 });
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = JSON.parse(rerun.stdout) as { imported: number; already: number; rejected: number };
    expect(summary.imported + summary.already).toBe(rows);
    expect(summary.already).toBeGreaterThanOrEqual(customers);
    expect(await count('customers')).toBe(rows);
    expect(await count('(SELECT DISTINCT email FROM customers) AS e')).toBe(rows);
  }, 180_000);
});

describe('a POST whose answer was lost', () => {
  /** A server that drops the first POST's connection after reading it; `honours` says whether its answers name the key. */
  async function flaky(honours: boolean) {
    const posts: (string | undefined)[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      const key = req.headers['idempotency-key'] as string | undefined;
      req.resume();
      req.on('end', () => {
        if (req.method === 'POST') {
          posts.push(key);
          if (posts.length === 1) return void req.socket.destroy();
        }
        const headers: Record<string, string> = { 'content-type': 'application/vnd.api+json' };
        if (honours && key) headers['idempotency-key'] = key;
        res.writeHead(req.method === 'POST' ? 201 : 200, headers);
        res.end(
          JSON.stringify(
            req.method === 'POST'
              ? {
                  data: {
                    type: 'customer',
                    id: '1',
                    attributes: { first_name: 'Jan', last_name: 'Jansen', email: 'jan@example.com' },
                  },
                }
              : { data: [], meta: { total: 0 }, links: {} },
          ),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      posts,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  it('is sent again, with the same key, to a server that honours keys', async () => {
    ensureBundle();
    const server = await flaky(true);
    try {
      const result = await runCli([
        '--base-url',
        server.url,
        '--api-key',
        'k',
        'customers',
        'create',
        '--first-name',
        'Jan',
        '--last-name',
        'Jansen',
        '--email',
        'jan@example.com',
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(server.posts).toHaveLength(2);
      expect(server.posts[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(server.posts[1]).toBe(server.posts[0]);
    } finally {
      await server.close();
    }
  });

  it('is never sent again to a server that does not say it honours keys (exit 3, sent once)', async () => {
    ensureBundle();
    const server = await flaky(false);
    try {
      const result = await runCli([
        '--base-url',
        server.url,
        '--api-key',
        'k',
        'customers',
        'create',
        '--first-name',
        'Jan',
        '--last-name',
        'Jansen',
        '--email',
        'jan@example.com',
      ]);
      expect(result.code).toBe(3);
      expect(server.posts).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
