// billing demo: the sample it makes on a fresh store (read back through the CLI's --json and the
// core's reads), the clock it leaves as it was, a second run that adds nothing, --size, and the
// commands it suggests, each working on the store it made.
import { existsSync } from 'node:fs';
import { isValidIBAN } from 'ibantools';
import { beforeAll, describe, expect, it } from 'vitest';
import { earliestDue } from '../../src/lib/core/due.js';
import { FREQUENCIES, INVOICE_STATUSES, SUBSCRIPTION_STATUSES } from '../../src/lib/schemas/vocabulary.js';
import { openRuntime } from '../../src/lib/runtime/runtime.js';
import { embeddedTransport } from '../../src/lib/transport/embedded.js';
import { ensureBundle, runCli, type CliResult } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/store.js';
import { runDouble } from './service-double.js';

const billing = (db: string, args: string[]): Promise<CliResult> =>
  runCli(['--db', db, ...args], { timeoutMs: 60_000 });
const ok = (result: CliResult): CliResult => {
  expect(result.code, result.stderr).toBe(0);
  return result;
};

type Resource = {
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data?: { id: string } | null }>;
};
type History = { status: string; reason_code: string | null; attempt: number }[];

/** Everything the demo made, read in process through the API's reads (every page). */
async function readBack(db: string) {
  const core = await openRuntime({ location: db, create: 'nothing' });
  try {
    const transport = embeddedTransport(core);
    const all = async (path: string): Promise<Resource[]> => {
      const rows: Resource[] = [];
      for (let page = 1; ; page++) {
        const answer = await transport.request({
          method: 'GET',
          path,
          query: { 'page[size]': 100, 'page[number]': page },
        });
        expect(answer.status).toBe(200);
        const data = (answer.body as { data: Resource[] }).data;
        rows.push(...data);
        if (data.length < 100) return rows;
      }
    };
    const subscriptions = await all('/subscriptions');
    const transactions = (
      await Promise.all(subscriptions.map((s) => all(`/subscriptions/${s.id}/transactions`)))
    ).flat();
    return {
      plans: await all('/subscription-plans'),
      customers: await all('/customers'),
      subscriptions,
      transactions,
      invoices: await all('/invoices'),
      notifications: await all('/notifications'),
      earliestDue: await core.store.read(earliestDue),
    };
  } finally {
    await core.store.close();
  }
}

const statuses = (rows: Resource[]) => new Set(rows.map((r) => r.attributes.status));
const history = (tx: Resource) => (tx.attributes.history as History).map((h) => h.status);
const counts = async (db: string) =>
  JSON.parse(ok(await billing(db, ['store', 'info', '--json'])).stdout).counts as Record<string, number>;

beforeAll(() => ensureBundle(), 120_000);

describe('billing demo on a fresh store', () => {
  const db = tempDbPath();
  let first: CliResult;
  let sample: Awaited<ReturnType<typeof readBack>>;
  let startedAt: number;

  beforeAll(async () => {
    startedAt = Date.now();
    first = ok(await billing(db, ['demo', '--json']));
    sample = await readBack(db);
  }, 60_000);

  it('prints one document, the customers, and says what it added on stderr', () => {
    const document = JSON.parse(first.stdout);
    expect(document.meta.total).toBe(20);
    expect(document.data).toHaveLength(20);
    expect(first.stderr).toMatch(
      /^added 6 plans, 20 customers, 20 subscriptions and 7 invoices, with their history since (\d{4}-\d\d-\d\d), to .*\naccount club collects by SEPA Direct Debit: 6 members; collection 1 of 5 transactions \(62\.50 EUR\) exported, 1 left out \(see docs\/sepa\.md\)\n$/,
    );
    // About half a year of history.
    const since = Date.parse(/since (\S+),/.exec(first.stderr)![1]);
    expect((startedAt - since) / 86_400_000).toBeGreaterThan(180);
    expect((startedAt - since) / 86_400_000).toBeLessThan(215);
  });

  it('has plans of every frequency', () => {
    expect(new Set(sample.plans.map((p) => p.attributes.frequency))).toEqual(new Set(FREQUENCIES));
  });

  it('has twenty Dutch and Belgian customers with addresses, four languages and valid IBANs of both countries', () => {
    expect(sample.customers).toHaveLength(20);
    for (const { attributes: c } of sample.customers) {
      expect(isValidIBAN(c.iban as string), c.iban as string).toBe(true);
      expect(c.bank_holder).toBeTruthy();
      expect(c.street).toBeTruthy();
      expect(c.house_number).toMatch(/^\d+$/);
      expect(c.city).toBeTruthy();
      expect(c.iban).toMatch(new RegExp(`^${c.country_iso2 as string}`));
      if (c.country_iso2 === 'NL') expect(c.postalcode).toMatch(/^[1-9]\d{3} [A-Z]{2}$/);
      else {
        expect(c.country_iso2).toBe('BE');
        expect(c.postalcode).toMatch(/^[1-9]\d{3}$/);
      }
    }
    expect(new Set(sample.customers.map((c) => c.attributes.country_iso2))).toEqual(new Set(['NL', 'BE']));
    expect(new Set(sample.customers.map((c) => c.attributes.language))).toEqual(new Set(['nl', 'nl-be', 'fr', 'en']));
  });

  it('has subscriptions in every status', () => {
    expect(sample.subscriptions).toHaveLength(20);
    expect(statuses(sample.subscriptions)).toEqual(new Set(SUBSCRIPTION_STATUSES));
  });

  it('has invoices draft, open, paid and credited (a credit invoice pointing at its paid original), and the rest of the statuses', () => {
    expect(statuses(sample.invoices)).toEqual(new Set(INVOICE_STATUSES));
    const credits = sample.invoices.filter((i) => i.relationships?.['original-invoice']?.data);
    expect(credits).toHaveLength(1);
    const [credit] = credits;
    const original = sample.invoices.find((i) => i.id === credit.relationships!['original-invoice'].data!.id)!;
    expect(original.attributes.status).toBe('paid');
    expect(credit.attributes).toMatchObject({
      status: 'completed',
      amount_incl: `-${original.attributes.amount_incl as string}`,
    });
  });

  it('has collections fulfilled, charged back and retried, rescheduled, and failed after their retries', () => {
    const txs = sample.transactions;
    for (const status of ['fulfilled', 'succeeded', 'scheduled', 'canceled', 'rescheduled', 'failed'])
      expect(statuses(txs), status).toContain(status);
    // Charged back, then collected at the storno retry.
    expect(
      txs.some(
        (tx) =>
          tx.attributes.status === 'fulfilled' &&
          history(tx).join() === 'scheduled,succeeded,charged_back,rescheduled,succeeded,fulfilled',
      ),
    ).toBe(true);
    // Charged back (after its funds were in) and waiting for its retry.
    const waiting = txs.find((tx) => tx.attributes.status === 'rescheduled')!;
    expect(history(waiting).slice(-2)).toEqual(['charged_back', 'rescheduled']);
    // Charged back, then failed at both retries: failed for good, on a plan and on an invoice.
    const failed = txs.filter((tx) => tx.attributes.status === 'failed');
    expect(failed).toHaveLength(2);
    for (const tx of failed) {
      expect(history(tx)).toEqual([
        'scheduled',
        'succeeded',
        'charged_back',
        'rescheduled',
        'failed',
        'rescheduled',
        'failed',
      ]);
      expect((tx.attributes.history as History).at(-1)).toMatchObject({ reason_code: 'AM04', attempt: 3 });
    }
    expect(sample.invoices.find((i) => i.attributes.status === 'charged_back')).toBeDefined();
  });

  it('sent what goes with it: mandate requests to those who have not accepted, invoice emails', () => {
    const kinds = new Set(sample.notifications.map((n) => n.attributes.kind));
    expect(kinds).toEqual(new Set(['mandate_confirmation', 'invoice']));
  });

  it('leaves the clock on real time, and nothing due undone', async () => {
    const clock = JSON.parse(ok(await billing(db, ['clock', 'show', '--json'])).stdout);
    expect(clock.test).toBe(false);
    expect(Math.abs(Date.parse(clock.now) - Date.now())).toBeLessThan(60_000);
    expect(sample.earliestDue! > new Date().toISOString()).toBe(true);
  });

  it('a second run adds nothing and shows the customers', async () => {
    const before = await counts(db);
    const again = ok(await billing(db, ['demo', '--json']));
    expect(again.stderr).toBe(`the store already has 20 customers; showing them (store: ${db})\n`);
    expect(JSON.parse(again.stdout).meta.total).toBe(20);
    expect(await counts(db)).toEqual(before);
  });
});

describe('billing demo on a store with a test time', () => {
  it('tells its history up to that time and leaves the clock there', async () => {
    const db = tempDbPath();
    ok(await billing(db, ['clock', 'set', '2099-03-31', '-q']));
    const shown = ok(await billing(db, ['clock', 'show', '--json'])).stdout;
    ok(await billing(db, ['demo', '-q']));
    expect(ok(await billing(db, ['clock', 'show', '--json'])).stdout).toBe(shown);
    const { subscriptions, earliestDue: due } = await readBack(db);
    // The last to sign up did so at the store's time.
    expect(
      subscriptions
        .map((s) => s.attributes.created_at)
        .sort()
        .at(-1),
    ).toBe(JSON.parse(shown).now);
    expect(Date.parse(due!)).toBeGreaterThan(Date.parse(JSON.parse(shown).now));
  });
});

describe('the commands the demo suggests', () => {
  it('each works on the store it made', async () => {
    const db = tempDbPath();
    const shown = ok(await billing(db, ['demo']));
    const next = /^next: (.*)$/m.exec(shown.stderr)![1].split(' · ');
    expect(next).toHaveLength(6);
    for (const command of next) {
      const [program, ...args] = command.split(' ');
      expect(program).toBe('billing');
      ok(await billing(db, args));
    }
  }, 60_000);
});

describe('billing demo --size', () => {
  it('--size 50 makes fifty customers with every status still present', async () => {
    const db = tempDbPath();
    const result = ok(await billing(db, ['demo', '--size', '50', '--json']));
    expect(result.stderr).toMatch(/^added 6 plans, 50 customers, 50 subscriptions and 19 invoices/);
    const sample = await readBack(db);
    expect(sample.customers).toHaveLength(50);
    expect(new Set(sample.customers.map((c) => c.attributes.email)).size).toBe(50);
    for (const c of sample.customers) expect(isValidIBAN(c.attributes.iban as string)).toBe(true);
    expect(statuses(sample.subscriptions)).toEqual(new Set(SUBSCRIPTION_STATUSES));
    expect(statuses(sample.invoices)).toEqual(new Set(INVOICE_STATUSES));
    for (const status of ['fulfilled', 'rescheduled', 'failed'])
      expect(statuses(sample.transactions)).toContain(status);
  }, 60_000);

  it.each(['0', '-1', '1.5', 'many', '1000001', ''])(
    '--size "%s" is refused (exit 2) before a store is made',
    async (size) => {
      const db = tempDbPath();
      const result = await runDouble(['--db', db, 'demo', '--size', size]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`error: --size must be a whole number from 1 to 1000000, not "${size}"\n`);
      expect(existsSync(db)).toBe(false);
    },
  );

  it('help describes the sample and shows --size', async () => {
    const help = await runDouble(['demo', '--help']);
    expect(help.stdout).toContain('--size <n>');
    expect(help.stdout).toContain('  $ billing demo --size 10000\n');
    expect(help.stdout.replace(/\s+/g, ' ')).toContain("The store's clock is left as it was.");
  });
});
