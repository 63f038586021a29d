// Collection batches (SEPA) at scale, through the router (as `billing serve` and the embedded CLI
// run them), on each engine:
//   batching and exporting N due transactions: POST /collections, then GET /collections/{id}/file
//   streamed into a file (each chunk written as it comes, awaiting drain)
//                                                   target >= 20,000 transactions/s (both together)
//   peak RSS of the process that batches and exports        target <= 200 MB
//   importing a camt.054 of N booked entries: POST /bank-reports, the file streamed from disk (its
//   hash, parse and every entry applied, in one transaction) target >= 10,000 entries/s
// Each part runs in a child process of its own that opens the store and does nothing else, with the
// heap limits the built CLI gives its command (bin/heap.js), so its RSS high-water mark
// (process.resourceUsage().maxRSS) is the part's, not the seeding's; its baseline (tsx and its loader thread loaded, store open, before the part: about 120 MB, where the
// built CLI starts at about 60) is printed beside it, and the JS heap still in use at the end once
// a full GC has run (what the part kept, as against the garbage V8 let pile up before collecting).
// Rates are by wall clock (against the targets) and by the CPU time of the part's process (what a
// machine busy with other work hides; on PostgreSQL the server's CPU is not in it); the load
// average is printed with them.
// Seeding: the account set to SEPA (a day's notice) and a monthly plan by the use cases, then in
// bulk into SQLite (one prepared INSERT per row): N customers with IBANs on accepted mandates, each
// with one scheduled transaction due today; 9 in 10 collected once before (last month's batch,
// exported and booked), so they go as RCUR, some with an amendment (another IBAN at the same bank,
// another mandate id, another bank: SMNDA, FRST again); the rest are new (FRST). PostgreSQL gets a
// copy (a server of its own, durable settings) made before SQLite's run, vacuumed and analysed
// before its own. The camt.054 is made from
// the exported file (every EndToEndId and amount in it, booked), streamed by the tests' generator.
// Run: npm run bench:collections [-- --transactions 100000] [-- --profile: CPU profiles to .prof/]
//      (ENGINES=sqlite,postgres; BENCH_STRICT=1 exits 1 when a figure misses its target)
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { composeIBAN } from 'ibantools';
import { updateAccount } from '../src/lib/core/accounts.js';
import { createPlan } from '../src/lib/core/plan-writes.js';
import { addDays, addMonths, dayAt, midnight } from '../src/lib/core/schedule.js';
import { openRuntime } from '../src/lib/runtime/runtime.js';
import type { Engine } from '../src/lib/store/store.js';
import { writeCamt, type BankTransaction } from '../test/helpers/bank-reports.js';
import { figure, info, mb, onEachEngine, pgStatement, start } from './advance.js';
import { memoryTouch } from './lib.js';

const SELF = fileURLToPath(import.meta.url);
const { heapFlagsFor } = createRequire(import.meta.url)('../bin/heap.js') as {
  heapFlagsFor: (argv: string[]) => string[] | undefined;
};
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGETS = { batchAndExportPerSecond: 20_000, peakMb: 200, importPerSecond: 10_000 };
const CREDITOR = {
  creditor_id: 'NL57ZZZ999999999999',
  creditor_name: 'Sportclub Zuid',
  creditor_iban: 'NL91ABNA0417164300',
};
const NAMES = ['Jan Jansen', 'Zoë Ångström', 'Jürgen Groß', 'Søren Ærø', 'Łukasz Żółć', 'Marie-Claire Dubois'];
/** Rows per transaction of the seeding. */
const SEED_CHUNK = 10_000;
/** A child still running after this long is killed: the bench never waits for ever. */
const CHILD_LIMIT_MS = 30 * 60_000;

const nlIban = (bank: string, n: number): string =>
  composeIBAN({ countryCode: 'NL', bban: `${bank}${String(n).padStart(10, '0')}` })!;

// ---- seeding ----

/**
 * A SQLite store whose default account collects by SEPA, with `count` transactions due today, each
 * of its own subscription and customer (see the head of this file). Returns a line saying how.
 */
async function seed(path: string, count: number): Promise<string> {
  const started = performance.now();
  const core = await openRuntime({ location: path });
  let planId: number;
  let accountId: number;
  let tz: string;
  try {
    const updated = await updateAccount(core.store, core.clock, 'default', {
      collection: 'sepa',
      ...CREDITOR,
      prenotification_days: 1,
    });
    if (!updated.ok) throw new Error(`updateAccount failed: ${JSON.stringify(updated.failure)}`);
    const account = await core.account();
    const plan = await createPlan(
      { store: core.store, clock: core.clock, account },
      { name: 'Monthly box', amount: '12.50', frequency: 'monthly', storno_retries: 2 },
    );
    if (!plan.ok) throw new Error(`createPlan failed: ${JSON.stringify(plan.failure)}`);
    [planId, accountId, tz] = [plan.value.id, account.id, account.time_zone];
  } finally {
    await core.store.close();
  }

  const now = new Date().toISOString();
  const today = dayAt(now, tz);
  const lastMonth = addMonths(today, -1);
  const db = new Database(path);
  try {
    const insert = (table: string, columns: string[]) =>
      db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    const customer = insert('customers', [
      'account_id',
      'first_name',
      'last_name',
      'bank_holder',
      'iban',
      'payment_method',
      'language',
      'email',
      'archived',
      'created_at',
      'updated_at',
    ]);
    const subscription = insert('subscriptions', [
      'account_id',
      'customer_id',
      'subscription_plan_id',
      'mandate_code',
      'mandate_accepted',
      'mandate_accepted_date',
      'start_date',
      'status',
      'confirmation_sent',
      'archived',
      'created_at',
      'updated_at',
      'cycle_anchor',
      'next_cycle',
      'confirmation_token',
    ]);
    const transaction = insert('transactions', [
      'id',
      'account_id',
      'subscription_id',
      'origin',
      'cycle',
      'status',
      'scheduled_on',
      'due_date',
      'amount_cents',
      'payment_method',
      'description',
      'attempt',
      'history',
      'created_at',
      'updated_at',
    ]);
    const item = insert('collection_items', [
      'account_id',
      'collection_id',
      'transaction_id',
      'transaction_seq',
      'subscription_id',
      'attempt',
      'state',
      'end_to_end_id',
      'sequence_type',
      'collection_date',
      'amount_cents',
      'mandate_id',
      'mandate_signed_on',
      'debtor_name',
      'debtor_iban',
      'remittance',
      'settled_at',
      'created_at',
      'updated_at',
    ]);
    // Last month's batch, exported and booked: what makes this month's RCUR.
    const before = midnight(lastMonth, tz);
    const prior = Number(
      db
        .prepare(
          `INSERT INTO collections (account_id, status, message_id, due_until, transaction_count, control_sum_cents,
             creditor_id, creditor_name, creditor_iban, exported_at, created_at, updated_at)
           VALUES (?, 'exported', 'BILLING-BENCH-PRIOR', ?, 0, 0, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          accountId,
          lastMonth,
          CREDITOR.creditor_id,
          CREDITOR.creditor_name,
          CREDITOR.creditor_iban,
          before,
          before,
          before,
        ).lastInsertRowid,
    );
    let priorCount = 0;
    let priorSum = 0;
    const history = (on: string, due: string) =>
      JSON.stringify([
        {
          attempt: 1,
          reason: `pre-notified on ${dayAt(on, tz)}: collected no sooner than 1 day after the notice`,
          reason_code: null,
          recorded_on: on,
          status: 'scheduled',
          new_due_date: due,
        },
      ]);
    const rows = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const name = `${NAMES[i % NAMES.length]} ${i}`;
        const [first, ...last] = name.split(' ');
        const iban = nlIban('ABNA', 100_000_000 + i);
        const customerId = Number(
          customer.run(
            accountId,
            first,
            last.join(' '),
            name,
            iban,
            'directdebit',
            'nl',
            `member${i}@example.com`,
            0,
            now,
            now,
          ).lastInsertRowid,
        );
        const collectedBefore = i % 10 !== 0;
        const anchor = collectedBefore ? lastMonth : today;
        // Each mandate signed at an instant of its own, as people sign (a day read from each costs
        // what it costs, never one answer for all): over 19 days from two months ago, or a day from 3 days ago.
        const signed = new Date(
          Date.parse(midnight(collectedBefore ? addMonths(today, -2) : addDays(today, -3), tz)) +
            i * (collectedBefore ? 16_411 : 863),
        ).toISOString();
        const mandate = `MNDT-BENCH-${i}`;
        const subscriptionId = Number(
          subscription.run(
            accountId,
            customerId,
            planId,
            mandate,
            1,
            signed,
            midnight(anchor, tz),
            'active',
            1,
            0,
            signed,
            signed,
            anchor,
            collectedBefore ? 1 : 0,
            randomBytes(32).toString('hex'),
          ).lastInsertRowid,
        );
        const amount = 1250 + (i % 7) * 100;
        if (collectedBefore) {
          const id = randomUUID();
          const seq = transaction.run(
            id,
            accountId,
            subscriptionId,
            'plan',
            0,
            'fulfilled',
            before,
            before,
            amount,
            'directdebit',
            'Monthly box',
            1,
            '[]',
            before,
            before,
          ).lastInsertRowid;
          // Some debtors moved since: another account at the same bank (an amendment), another
          // mandate id, or another bank (SMNDA: a first collection again).
          const priorIban =
            i % 200 === 3 ? nlIban('RABO', 300_000_000 + i) : i % 50 === 1 ? nlIban('ABNA', 200_000_000 + i) : iban;
          item.run(
            accountId,
            prior,
            id,
            seq,
            subscriptionId,
            1,
            'booked',
            `${id.replace(/-/g, '')}-1`,
            'RCUR',
            lastMonth,
            amount,
            i % 100 === 7 ? `OLD-${mandate}` : mandate,
            dayAt(signed, tz),
            name,
            priorIban,
            'Monthly box',
            before,
            before,
            before,
          );
          priorCount++;
          priorSum += amount;
        }
        const scheduledOn = midnight(addDays(today, -2), tz);
        const due = midnight(today, tz);
        transaction.run(
          randomUUID(),
          accountId,
          subscriptionId,
          'plan',
          collectedBefore ? 1 : 0,
          'scheduled',
          scheduledOn,
          due,
          amount,
          'directdebit',
          'Monthly box',
          1,
          history(scheduledOn, due),
          scheduledOn,
          scheduledOn,
        );
      }
    });
    for (let from = 0; from < count; from += SEED_CHUNK) rows(from, Math.min(count, from + SEED_CHUNK));
    db.prepare('UPDATE collections SET transaction_count = ?, control_sum_cents = ? WHERE id = ?').run(
      priorCount,
      priorSum,
      prior,
    );
  } finally {
    db.close();
  }
  return `${((performance.now() - started) / 1000).toFixed(1)} s (account and plan by use case, rows in bulk)`;
}

// ---- the children: each part in a process of its own ----

interface Collected {
  collectionId: string;
  messageId: string;
  transactions: number;
  leftOut: number;
  blocks: string;
  batchMs: number;
  batchCpuMs: number;
  exportMs: number;
  exportCpuMs: number;
  bytes: number;
  /** RSS high-water marks in KB: store open (before the batch), after the batch, after the export. */
  baseRssKb: number;
  batchRssKb: number;
  peakRssKb: number;
  /** The JS heap in use once a full GC has run at the end: what the part kept, not its garbage. */
  liveHeapMb: number;
}

interface Imported {
  importMs: number;
  importCpuMs: number;
  booked: number;
  unmatched: number;
  baseRssKb: number;
  peakRssKb: number;
  liveHeapMb: number;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const maxRss = () => process.resourceUsage().maxRSS;
/** MB of JS heap in use after a full GC (the children run with --expose-gc). */
const liveHeapMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

/** POST /collections (everything due by the default until), then its file streamed into `file`. */
async function collectChild(location: string, file: string): Promise<Collected> {
  const core = await openRuntime({ location, create: 'nothing' });
  try {
    const account = await core.account();
    const baseRssKb = maxRss();
    let cpu = process.cpuUsage();
    let started = performance.now();
    const made = await core.router.handle(
      { method: 'POST', path: '/collections', body: JSON.stringify({ data: { type: 'collection', attributes: {} } }) },
      account,
    );
    const batchMs = performance.now() - started;
    const batchCpuMs = cpuMs(cpu);
    const batchRssKb = maxRss();
    if (made.status !== 201) throw new Error(`POST /collections answered ${made.status}: ${JSON.stringify(made.body)}`);
    const { data, meta } = made.body as {
      data: {
        id: string;
        attributes: {
          message_id: string;
          transactions: number;
          blocks: { sequence_type: string; transactions: number }[];
        };
      };
      meta: { left_out: unknown[] };
    };

    cpu = process.cpuUsage();
    started = performance.now();
    const answer = await core.router.handle({ method: 'GET', path: `/collections/${data.id}/file` }, account);
    if (answer.status !== 200 || !answer.pipe)
      throw new Error(`GET /collections/${data.id}/file answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const out = createWriteStream(file);
    let bytes = 0;
    await answer.pipe((chunk) => {
      bytes += Buffer.byteLength(chunk);
      return out.write(chunk) ? undefined : once(out, 'drain').then(() => undefined);
    });
    out.end();
    await once(out, 'close');
    const exportMs = performance.now() - started;
    const exportCpuMs = cpuMs(cpu);
    return {
      collectionId: data.id,
      messageId: data.attributes.message_id,
      transactions: data.attributes.transactions,
      leftOut: meta.left_out.length,
      blocks: data.attributes.blocks.map((b) => `${b.sequence_type} ${b.transactions}`).join(', '),
      batchMs,
      batchCpuMs,
      exportMs,
      exportCpuMs,
      bytes,
      baseRssKb,
      batchRssKb,
      peakRssKb: maxRss(),
      liveHeapMb: liveHeapMb(),
    };
  } finally {
    await core.store.close();
  }
}

/** POST /bank-reports with the file, streamed from disk as `billing collections import` sends it. */
async function importChild(location: string, file: string): Promise<Imported> {
  const core = await openRuntime({ location, create: 'nothing' });
  try {
    const account = await core.account();
    const baseRssKb = maxRss();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const answer = await core.router.handle(
      {
        method: 'POST',
        path: '/bank-reports',
        upload: { contentType: 'application/xml', body: createReadStream(file) as AsyncIterable<Buffer> },
      },
      account,
    );
    const importMs = performance.now() - started;
    const importCpuMs = cpuMs(cpu);
    if (answer.status !== 201)
      throw new Error(`POST /bank-reports answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const { attributes } = (answer.body as { data: { attributes: { booked: number; unmatched: number } } }).data;
    return {
      importMs,
      importCpuMs,
      booked: attributes.booked,
      unmatched: attributes.unmatched,
      baseRssKb,
      peakRssKb: maxRss(),
      liveHeapMb: liveHeapMb(),
    };
  } finally {
    await core.store.close();
  }
}

/**
 * Runs a part in a child process (`node --import tsx` this file); its JSON report from stdout. With
 * the heap limits the built CLI runs the part's command with (bin/heap.js), so its memory is the
 * command's: `billing collections create|export` starts node again with them (import runs without).
 */
function child<T>(args: string[], name: string, profile: boolean, command: string[]): Promise<T> {
  const flags = [...(heapFlagsFor(command) ?? []), '--import', 'tsx', '--expose-gc'];
  if (profile) {
    mkdirSync(join(ROOT, '.prof'), { recursive: true });
    flags.push(
      '--cpu-prof',
      `--cpu-prof-dir=${join(ROOT, '.prof')}`,
      `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`,
    );
  }
  return new Promise((resolve, reject) => {
    const running = spawn(process.execPath, [...flags, SELF, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    running.stdout.on('data', (d) => (out += d));
    running.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => running.kill('SIGKILL'), CHILD_LIMIT_MS);
    running.on('error', reject);
    running.on('close', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || !line) return reject(new Error(`${name} exited ${code}: ${err}`));
      resolve(JSON.parse(line) as T);
    });
  });
}

// ---- the bank's report, made from the exported file ----

/** Every debit of a pain.008 file (one element a line): its EndToEndId and amount, in file order. */
async function debitsOf(file: string, messageId: string): Promise<BankTransaction[]> {
  const debits: BankTransaction[] = [];
  let endToEndId: string | undefined;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const id = /<EndToEndId>([^<]*)</.exec(line);
    if (id) endToEndId = id[1];
    const amount = /<InstdAmt Ccy="EUR">([^<]*)</.exec(line);
    if (amount && endToEndId !== undefined) {
      debits.push({ endToEndId, amountCents: Math.round(Number(amount[1]) * 100), messageId });
      endToEndId = undefined;
    }
  }
  return debits;
}

/** A camt.054 booking every debit, one entry each, written to `file` as it is made. */
async function writeReport(file: string, booked: BankTransaction[], bookedOn: string): Promise<void> {
  const out = createWriteStream(file);
  await writeCamt({ bookedOn, booked, messageId: 'BENCH-CAMT054-1' }, (chunk) =>
    out.write(chunk) ? undefined : once(out, 'drain').then(() => undefined),
  );
  out.end();
  await once(out, 'close');
}

// ---- the run ----

async function benchEngine(
  engine: Engine,
  location: string,
  seeding: string,
  count: number,
  profile: boolean,
): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-collections-'));
  try {
    const pain = join(dir, 'pain008.xml');
    const camt = join(dir, 'camt054.xml');
    // As autovacuum leaves a store in use (the reports and search benches do the same): a copy never
    // read has no planner statistics, and its first reader sets every row's hint bits (a write of each page).
    if (engine === 'postgres') await pgStatement(location, 'VACUUM ANALYZE');
    // Another process busy on the machine takes CPU from the parts: their wall times say so.
    const load = [loadavg()[0]];
    const touch = memoryTouch();
    const c = await child<Collected>(['collect', location, pain], `collections-${engine}`, profile, [
      'collections',
      'create',
    ]);
    const debits = await debitsOf(pain, c.messageId);
    await writeReport(camt, debits, new Date().toISOString().slice(0, 10));
    load.push(loadavg()[0]);
    const r = await child<Imported>(['import', location, camt], `bank-report-${engine}`, profile, [
      'collections',
      'import',
    ]);
    load.push(loadavg()[0]);

    const perSecond = (ms: number) => count / (ms / 1000);
    const rate = (ms: number) => `${Math.round(perSecond(ms)).toLocaleString('en')}/s`;
    const both = c.batchMs + c.exportMs;
    const seconds = (wall: number, cpu: number) => `${(wall / 1000).toFixed(2)} s (${(cpu / 1000).toFixed(2)} s)`;
    console.log(`\ncollections on ${engine}: ${count.toLocaleString('en')} due transactions`);
    info('seeding', seeding);
    info('load average: before batch, import, after', load.map((l) => l.toFixed(1)).join(', '));
    info('this hour of the machine, before the batch', touch);
    info('batched / left out', `${c.transactions} / ${c.leftOut}`);
    info('blocks', c.blocks);
    info('debits in the file / file size', `${debits.length} / ${(c.bytes / 1e6).toFixed(1)} MB`);
    info('batch: POST /collections, wall (CPU)', seconds(c.batchMs, c.batchCpuMs));
    info('  transactions/s by wall (by CPU)', `${rate(c.batchMs)} (${rate(c.batchCpuMs)})`);
    info('export: GET .../file, wall (CPU)', seconds(c.exportMs, c.exportCpuMs));
    info('  transactions/s by wall (by CPU)', `${rate(c.exportMs)} (${rate(c.exportCpuMs)})`);
    const ok = [
      c.transactions === count && debits.length === count,
      figure(
        'batch + export, transactions/s',
        rate(both),
        `>= ${TARGETS.batchAndExportPerSecond.toLocaleString('en')}/s`,
        perSecond(both) >= TARGETS.batchAndExportPerSecond,
      ),
    ];
    info('  ratio to target', `${(perSecond(both) / TARGETS.batchAndExportPerSecond).toFixed(2)}x`);
    info('  by CPU', rate(c.batchCpuMs + c.exportCpuMs));
    ok.push(
      figure(
        'peak RSS of the batching + exporting process',
        `${mb(c.peakRssKb).toFixed(0)} MB`,
        `<= ${TARGETS.peakMb} MB`,
        mb(c.peakRssKb) <= TARGETS.peakMb,
      ),
    );
    info('  ratio to target', `${(mb(c.peakRssKb) / TARGETS.peakMb).toFixed(2)}x`);
    info('  its RSS before the batch (tsx, store open)', `${mb(c.baseRssKb).toFixed(0)} MB`);
    info('  its RSS high-water after the batch', `${mb(c.batchRssKb).toFixed(0)} MB`);
    info('  its JS heap in use after, once collected', `${c.liveHeapMb.toFixed(0)} MB`);
    info('camt.054: entries / size', `${debits.length} / ${(statSync(camt).size / 1e6).toFixed(1)} MB`);
    info('import: booked / unmatched', `${r.booked} / ${r.unmatched}`);
    info('import: POST /bank-reports, wall (CPU)', seconds(r.importMs, r.importCpuMs));
    ok.push(
      r.booked === count,
      figure(
        'import, entries/s',
        rate(r.importMs),
        `>= ${TARGETS.importPerSecond.toLocaleString('en')}/s`,
        perSecond(r.importMs) >= TARGETS.importPerSecond,
      ),
    );
    info('  ratio to target', `${(perSecond(r.importMs) / TARGETS.importPerSecond).toFixed(2)}x`);
    info('  by CPU', rate(r.importCpuMs));
    info('peak RSS of the importing process (no target)', `${mb(r.peakRssKb).toFixed(0)} MB`);
    info('  its RSS before the import (tsx, store open)', `${mb(r.baseRssKb).toFixed(0)} MB`);
    info('  its JS heap in use after, once collected', `${r.liveHeapMb.toFixed(0)} MB`);
    if (c.transactions !== count || debits.length !== count || r.booked !== count)
      console.log(
        `  INCOMPLETE: ${count} due, ${c.transactions} batched, ${debits.length} in the file, ${r.booked} booked`,
      );
    return ok.every(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { transactions: { type: 'string', short: 'n', default: '100000' }, profile: { type: 'boolean' } },
  });
  const count = Number(values.transactions);
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`--transactions takes a whole number above 0, not ${values.transactions}`);
  const profile = values.profile === true;
  await onEachEngine(
    (path) => seed(path, count),
    (engine, location, seeding) => benchEngine(engine, location, seeding, count, profile),
  );
}

const [mode, location, file] = process.argv.slice(2);
if (mode === 'collect') start(async () => console.log(JSON.stringify(await collectChild(location, file))));
else if (mode === 'import') start(async () => console.log(JSON.stringify(await importChild(location, file))));
else start(main);
