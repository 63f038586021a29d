// Invoice references under concurrent finalising: gapless and unique. 200 drafts (one line each)
// on one active subscription, finalised all at once: by four processes on one SQLite file, and
// through two `billing serve` instances on one PostgreSQL database. Every draft answers 200 once,
// the references are exactly INV-1..INV-200, accounts.next_invoice_number is 201 and each invoice
// has its own transaction. A few drafts are finalised twice at the same moment (two processes, or
// both instances): one succeeds, the other is Invalid State, and only one number is used.
// Each describe runs on its own engine's project (SQLite in `sqlite`, PostgreSQL in `postgres`).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKey } from '../../src/lib/core/accounts.js';
import { all, run } from '../../src/lib/store/unit.js';
import { createCustomer, makePlan, send } from '../api/support.js';
import { startChild, within, type Child } from '../helpers/children.js';
import { BIN, ensureBundle, TEST_CONFIG_DIR, watchServe, type ServeChild } from '../helpers/cli.js';
import { ENGINE, freshPostgresUrl, postgresAdminUrl } from '../helpers/engine.js';
import { TEST_NOW, tempDbPath, tempDir, testCore, type TestCore } from '../helpers/store.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INVOICES = 200;
const PLAN = 'Gold';
/** Each invoice's one line: 2 x 10.00 + 21% = 24.20. */
const LINE = { description: 'lunchbox', amount: '10.00', tax_rate: '21', tax_included: false, quantity: 2 };
const TOTAL_CENTS = 2420;
const EXPECTED_REFERENCES = Array.from({ length: INVOICES }, (_, n) => `INV-${n + 1}`);

// ---- arranging and reading the store (the same on both engines) ----

interface Arranged {
  core: TestCore;
  subscription: number;
  /** The drafts' ids, ascending. */
  ids: number[];
}

/**
 * On a fresh store: the store's test time set to TEST_NOW (so every process on it, `billing serve`
 * included, works at the same time as this one), a plan, a customer, one active subscription
 * starting later (nothing of its own falls due), and the drafts, each with one line, through the router.
 */
async function arrange(dbPath: string): Promise<Arranged> {
  const core = await testCore({ dbPath });
  await core.store.write(() => run((q) => q.insertInto('store_clock').values({ id: 1, test_time: TEST_NOW })));
  const plan = await makePlan(core, { name: PLAN, amount: '12.50', send_invoice: false });
  const customer = await createCustomer(core);
  const made = await send(core, 'POST', '/subscriptions', {
    body: {
      data: {
        type: 'subscription',
        attributes: {
          customer_id: Number(customer),
          subscription_plan_id: plan,
          status: 'active',
          start_date: '2026-12-01',
          confirmation_sent: true,
        },
      },
    },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const subscription = Number(made.body.data.id);
  const ids: number[] = [];
  for (let n = 0; n < INVOICES; n++) {
    const invoice = await send(core, 'POST', '/invoices', {
      body: { data: { type: 'invoice', attributes: { subscription_id: subscription } } },
    });
    expect(invoice.status, JSON.stringify(invoice.body)).toBe(201);
    const id = Number(invoice.body.data.id);
    const line = await send(core, 'POST', '/invoice-lines', {
      body: { data: { type: 'invoice-line', attributes: { invoice_id: id, ...LINE } } },
    });
    expect(line.status, JSON.stringify(line.body)).toBe(201);
    ids.push(id);
  }
  const state = await readState(core);
  expect(state.invoices.map((i) => i.status)).toEqual(ids.map(() => 'draft'));
  expect(state.nextNumber).toBe(1);
  return { core, subscription, ids };
}

async function readState(core: TestCore) {
  const account = await core.account();
  const invoices = await core.store.read(() =>
    all((q) =>
      q
        .selectFrom('invoices')
        .select([
          'id',
          'status',
          'number',
          'reference',
          'transaction_id',
          'hosted_token',
          'finalised_at',
          'updated_at',
          'invoice_date',
          'transaction_date',
          'amount_excl_cents',
          'tax_amount_cents',
        ])
        .where('account_id', '=', account.id)
        .orderBy('id'),
    ),
  );
  const transactions = await core.store.read(() =>
    all((q) =>
      q
        .selectFrom('transactions')
        .select(['id', 'invoice_id', 'origin', 'subscription_id', 'amount_cents', 'description'])
        .where('account_id', '=', account.id)
        .where('invoice_id', 'is not', null)
        // In a stated order: PostgreSQL returns a table's rows as they lie, and a transaction the
        // instances' due work changed meanwhile lies elsewhere.
        .orderBy('id'),
    ),
  );
  const [counter] = await core.store.read(() =>
    all((q) => q.selectFrom('accounts').select('next_invoice_number').where('id', '=', account.id)),
  );
  return { invoices, transactions, nextNumber: Number(counter.next_invoice_number) };
}
type State = Awaited<ReturnType<typeof readState>>;

/** One PATCH /invoices/{id}/finalise, as its caller saw the answer. */
interface Attempt {
  id: number;
  /** Which process or instance sent it. */
  via: string;
  status: number;
  state?: string;
  reference?: string;
  transaction?: string | null;
  title?: string;
  detail?: string;
}

/** An answer's document reduced to what the checks need (the same shape in the children). */
const attemptOf = (id: number, via: string, status: number, body: any): Attempt => ({
  id,
  via,
  status,
  state: body?.data?.attributes?.status,
  reference: body?.data?.attributes?.reference,
  transaction: body?.data?.relationships?.transaction?.data?.id ?? null,
  title: body?.errors?.[0]?.title,
  detail: body?.errors?.[0]?.detail,
});

/**
 * The answers: every draft answered 200 (open, with a reference and a transaction) exactly once;
 * each doubled draft answered twice, once 200 and once 400 Invalid State; nothing else.
 */
function expectAnswers(attempts: Attempt[], ids: number[], doubled: Set<number>): void {
  const byId = new Map<number, Attempt[]>();
  for (const a of attempts) byId.set(a.id, [...(byId.get(a.id) ?? []), a]);
  expect([...byId.keys()].sort((x, y) => x - y)).toEqual(ids);
  const unexpected: string[] = [];
  for (const id of ids) {
    const answers = byId.get(id)!;
    const wins = answers.filter((a) => a.status === 200);
    const refusals = answers.filter((a) => a.status !== 200);
    if (wins.length !== 1) unexpected.push(`invoice ${id}: ${wins.length} answers 200: ${JSON.stringify(answers)}`);
    for (const w of wins)
      if (w.state !== 'open' || !w.reference || !w.transaction)
        unexpected.push(`invoice ${id}: 200 but ${JSON.stringify(w)}`);
    if (doubled.has(id)) {
      if (answers.length !== 2) unexpected.push(`invoice ${id} (doubled): ${answers.length} answers`);
      for (const r of refusals)
        if (r.status !== 400 || r.title !== 'Invalid State')
          unexpected.push(`invoice ${id} (doubled): the loser answered ${JSON.stringify(r)}`);
    } else if (answers.length !== 1) {
      unexpected.push(`invoice ${id}: ${answers.length} answers: ${JSON.stringify(answers)}`);
    }
  }
  expect(unexpected).toEqual([]);
  const references = attempts.filter((a) => a.status === 200).map((a) => a.reference!);
  expect(sortReferences(references), 'the references answered: INV-1..INV-200, no gap, none twice').toEqual(
    EXPECTED_REFERENCES,
  );
}

const sortReferences = (references: string[]) =>
  [...references].sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)) || a.localeCompare(b));

/**
 * The store after the race: every draft open with number n and reference INV-n, n exactly 1..200,
 * the counter at 201, and each invoice linked to its own transaction (and it back), of its total,
 * on the subscription. The answers agree with the rows.
 */
function expectGapless(state: State, arranged: Arranged, attempts: Attempt[]): void {
  const { invoices, transactions, nextNumber } = state;
  expect(invoices.map((i) => i.id)).toEqual(arranged.ids);
  expect(invoices.filter((i) => i.status !== 'open')).toEqual([]);
  const numbers = invoices.map((i) => Number(i.number)).sort((a, b) => a - b);
  expect(numbers, 'invoice numbers 1..200, no gap, none twice').toEqual(EXPECTED_REFERENCES.map((_, n) => n + 1));
  expect(invoices.filter((i) => i.reference !== `INV-${i.number}`)).toEqual([]);
  expect(nextNumber, 'accounts.next_invoice_number').toBe(INVOICES + 1);

  // Each invoice its own transaction, linked both ways.
  const txById = new Map(transactions.map((t) => [t.id, t]));
  expect(transactions).toHaveLength(INVOICES);
  expect(new Set(invoices.map((i) => i.transaction_id)).size).toBe(INVOICES);
  const badLinks: string[] = [];
  for (const invoice of invoices) {
    const tx = invoice.transaction_id === null ? undefined : txById.get(invoice.transaction_id);
    if (!tx) badLinks.push(`invoice ${invoice.id}: transaction ${invoice.transaction_id} not found`);
    else if (
      Number(tx.invoice_id) !== invoice.id ||
      tx.origin !== 'invoice' ||
      Number(tx.subscription_id) !== arranged.subscription ||
      Number(tx.amount_cents) !== TOTAL_CENTS ||
      tx.description !== `${invoice.reference} ${PLAN}`
    ) {
      badLinks.push(`invoice ${invoice.id} (${invoice.reference}): ${JSON.stringify(tx)}`);
    }
  }
  expect(badLinks).toEqual([]);

  // What each caller was told is what the store has.
  const row = new Map(invoices.map((i) => [i.id, i]));
  const disagreements = attempts
    .filter((a) => a.status === 200)
    .filter((a) => a.reference !== row.get(a.id)!.reference || a.transaction !== row.get(a.id)!.transaction_id)
    .map((a) => `${JSON.stringify(a)} vs ${JSON.stringify(row.get(a.id))}`);
  expect(disagreements).toEqual([]);
}

// ---- shuffling, reproducibly ----

/** A small seeded generator (mulberry32), so a failing order can be told. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// ---- SQLite: four processes on one file ----

const CHILDREN = 4;
const src = (path: string) => pathToFileURL(join(ROOT, 'src', path)).href;

/**
 * A child: opens the store as every embedded command does (openRuntime), loads its account and the
 * router's finalising (imported lazily on first use), says ready, waits for the go file, then
 * finalises its invoices one after another through the router, in the order given. Prints every
 * answer and when it started and ended.
 */
const CHILD = `
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
const { openRuntime } = await import(${JSON.stringify(src('lib/runtime/runtime.js'))});
const [dbPath, goFile, via, idList] = process.argv.slice(1);
const ids = JSON.parse(idList);
const core = await openRuntime({ location: dbPath, create: 'nothing' });
try {
  const account = await core.account();
  // The router loads its invoice writes on first use: loaded now, before the race (no invoice 0).
  const warm = await core.router.handle({ method: 'PATCH', path: '/invoices/0/finalise' }, account);
  if (warm.status !== 404) throw new Error('warming up: ' + warm.status + ' ' + JSON.stringify(warm.body));
  process.stdout.write('ready\\n');
  while (!existsSync(goFile)) await sleep(1);
  const started = Date.now();
  const attempts = [];
  for (const id of ids) {
    const answer = await core.router.handle({ method: 'PATCH', path: '/invoices/' + id + '/finalise' }, account);
    const body = answer.body;
    attempts.push({
      id, via, status: answer.status,
      state: body?.data?.attributes?.status,
      reference: body?.data?.attributes?.reference,
      transaction: body?.data?.relationships?.transaction?.data?.id ?? null,
      title: body?.errors?.[0]?.title,
      detail: body?.errors?.[0]?.detail,
    });
  }
  process.stdout.write(JSON.stringify({ attempts, started, ended: Date.now() }) + '\\n');
} finally {
  await core.store.close();
}
`;

interface ChildReport {
  attempts: Attempt[];
  started: number;
  ended: number;
}

describe.runIf(ENGINE === 'sqlite')(
  'finalising 200 invoices from four processes at once on one SQLite file (SQLite only)',
  () => {
    const seed = Date.now();
    let arranged: Arranged;
    let doubled: Set<number>;
    let reports: ChildReport[];
    let lists: number[][];
    let raceMs: number;

    beforeAll(async () => {
      arranged = await arrange(tempDbPath());
      const next = random(seed);
      // Eight consecutive drafts (each residue mod 4 twice) are finalised by two processes: draft d by
      // process d % 4 and by process (d + 1) % 4. Each process finalises those first, in id order, so
      // both of a pair reach them at the same moment; then its own drafts (id % 4 == k), shuffled.
      const doubles = arranged.ids.slice(40, 48);
      doubled = new Set(doubles);
      lists = Array.from({ length: CHILDREN }, (_, k) => {
        const first = doubles.filter((d) => d % CHILDREN === k || (d + 1) % CHILDREN === k);
        const own = arranged.ids.filter((id) => id % CHILDREN === k && !doubled.has(id));
        return [...first, ...shuffle(own, next)];
      });
      expect(lists.flat()).toHaveLength(INVOICES + doubles.length);

      const goFile = join(tempDir(), 'go');
      const children: Child[] = lists.map((ids, k) =>
        startChild(
          [
            '--import',
            'tsx',
            '--input-type=module',
            '-e',
            CHILD,
            arranged.core.dbPath,
            goFile,
            `process ${k}`,
            JSON.stringify(ids),
          ],
          ROOT,
        ),
      );
      try {
        await within(Promise.all(children.map((c) => c.ready)), 30_000, 'the children to open the store');
        const go = Date.now();
        writeFileSync(goFile, ''); // the barrier opens for all four at once
        const codes = await within(Promise.all(children.map((c) => c.exit)), 60_000, 'the children to finish');
        raceMs = Date.now() - go;
        reports = children.map((child, k) => {
          expect(child.stderr, `process ${k} stderr`).not.toMatch(/SQLITE_BUSY|database is locked|UNIQUE constraint/i);
          expect(codes[k], `process ${k} stderr: ${child.stderr}`).toBe(0);
          const line = child.stdout.split('\n').find((l) => l.startsWith('{'));
          expect(line, `process ${k} output: ${child.stdout}`).toBeDefined();
          return JSON.parse(line!) as ChildReport;
        });
      } finally {
        // Bounded: whatever happened, no child outlives the race.
        for (const c of children)
          if (c.process.exitCode === null && c.process.signalCode === null) c.process.kill('SIGKILL');
      }
    }, 120_000);

    it('answers 200 open exactly once per invoice, with the references INV-1..INV-200: no gap, none twice', () => {
      const attempts = reports.flatMap((r) => r.attempts);
      expect(attempts, `seed ${seed}`).toHaveLength(INVOICES + doubled.size);
      expectAnswers(attempts, arranged.ids, doubled);
    });

    it('leaves every invoice open with its number, the counter at 201, and each invoice linked to its own transaction', async () => {
      expectGapless(
        await readState(arranged.core),
        arranged,
        reports.flatMap((r) => r.attempts),
      );
    });

    it('finalises a draft sent by two processes at the same moment once: the other is Invalid State, and one number is used', () => {
      const attempts = reports.flatMap((r) => r.attempts);
      for (const id of doubled) {
        const answers = attempts.filter((a) => a.id === id);
        expect(answers.map((a) => a.via).sort(), `invoice ${id}`).toEqual(
          [`process ${id % CHILDREN}`, `process ${(id + 1) % CHILDREN}`].sort(),
        );
        expect(answers.map((a) => a.status).sort(), `invoice ${id}: ${JSON.stringify(answers)}`).toEqual([200, 400]);
        const loser = answers.find((a) => a.status === 400)!;
        expect(loser.title).toBe('Invalid State');
        expect(loser.detail).toMatch(/is open/);
      }
      // The numbers the doubled drafts took are among the 200, each once (checked whole above): none lost to the losers.
      const won = attempts.filter((a) => doubled.has(a.id) && a.status === 200).map((a) => a.reference);
      expect(new Set(won).size).toBe(doubled.size);
    });

    it('gives numbers in the order each process finalised, and the processes really interleaved', () => {
      const spans: string[] = [];
      for (const [k, report] of reports.entries()) {
        const numbers = report.attempts.filter((a) => a.status === 200).map((a) => Number(a.reference!.slice(4)));
        // One process finalises one after another: each number it gets is above the one before.
        expect(
          numbers.every((n, i) => i === 0 || n > numbers[i - 1]),
          `process ${k}: ${numbers.join(',')}`,
        ).toBe(true);
        spans.push(
          `process ${k}: ${numbers.length} finalised in ${report.ended - report.started} ms, numbers ${Math.min(...numbers)}..${Math.max(...numbers)}`,
        );
      }
      // Every process got numbers from all over the range, not one block each: they ran side by side.
      const ranges = reports.map((r) =>
        r.attempts.filter((a) => a.status === 200).map((a) => Number(a.reference!.slice(4))),
      );
      const interleaved = ranges.every((mine, k) =>
        ranges.some(
          (theirs, m) => m !== k && Math.min(...theirs) < Math.max(...mine) && Math.min(...mine) < Math.max(...theirs),
        ),
      );
      expect(interleaved, `${spans.join('; ')}; race ${raceMs} ms; seed ${seed}`).toBe(true);
      console.info(`[invoice-concurrency sqlite] race ${raceMs} ms; ${spans.join('; ')}`);
    });
  },
);

// ---- PostgreSQL: two `billing serve` instances on one database ----

const IN_FLIGHT = 12;
const TWICE = 6;
/** No request is sent after this, and those in flight are given up: a stuck race fails in bounded time. */
const RACE_DEADLINE_MS = 25_000;
const REQUEST_TIMEOUT_MS = 15_000;

interface Instance {
  name: string;
  serve: ServeChild;
  url: string;
}

function startInstance(name: string, db: string): Promise<Instance> {
  const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--host', '127.0.0.1', '--port', '0'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const serve = watchServe(child);
  return serve.port.then(
    (port) => ({ name, serve, url: `http://127.0.0.1:${port}` }),
    (error: Error) => {
      child.kill('SIGKILL');
      throw new Error(`instance ${name}: ${error.message}`);
    },
  );
}

/** SIGTERM, then SIGKILL after 15 s; the exit code. */
async function stopInstance(instance: Instance): Promise<number | null> {
  const { child, exited } = instance.serve;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  child.kill('SIGTERM');
  try {
    return await exited;
  } finally {
    clearTimeout(killer);
  }
}

async function call(
  instance: Instance,
  method: string,
  path: string,
  key: string,
  stop?: AbortSignal,
): Promise<{ status: number; body: any }> {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const response = await fetch(`${instance.url}${path}`, {
    method,
    headers: { 'x-authorization': key },
    signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** One finalise through an instance; no answer (timed out, given up at the deadline) is status 0. */
async function finaliseVia(
  instance: Instance,
  id: number,
  key: string,
  stop?: AbortSignal,
): Promise<Attempt & { ms: number }> {
  const started = Date.now();
  try {
    const answer = await call(instance, 'PATCH', `/invoices/${id}/finalise`, key, stop);
    return { ...attemptOf(id, instance.name, answer.status, answer.body), ms: Date.now() - started };
  } catch (error) {
    return {
      id,
      via: instance.name,
      status: 0,
      detail: `no answer: ${(error as Error).message}`,
      ms: Date.now() - started,
    };
  }
}

/** Deadlocks the server detected in the database so far (pg_stat_database). */
async function deadlocks(database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: postgresAdminUrl() });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ deadlocks: number }>(
      'SELECT deadlocks::int AS deadlocks FROM pg_stat_database WHERE datname = $1',
      [database],
    );
    return rows[0]?.deadlocks ?? 0;
  } finally {
    await admin.end();
  }
}

describe.runIf(ENGINE === 'postgres')(
  'finalising 200 invoices through two billing serve instances at once on one PostgreSQL database (PostgreSQL only)',
  () => {
    const seed = Date.now();
    let arranged: Arranged;
    let database: string;
    let key: string;
    const instances: Instance[] = [];
    let doubled: Set<number>;
    let attempts: (Attempt & { ms: number })[];
    let raceMs: number;
    let deadlocksInRace: number;

    beforeAll(async () => {
      ensureBundle('only a draft can be finalised');
      // A server that cannot be reached fails here, loudly.
      const db = await freshPostgresUrl();
      database = new URL(db).pathname.slice(1);
      arranged = await arrange(db);
      const rotated = await rotateKey(arranged.core.store, arranged.core.clock, 'default');
      if (!rotated.ok) throw new Error(`rotateKey failed: ${JSON.stringify(rotated.failure)}`);
      key = rotated.value.apiKey;

      const started = await Promise.allSettled([startInstance('A', db), startInstance('B', db)]);
      for (const result of started) if (result.status === 'fulfilled') instances.push(result.value);
      for (const result of started) if (result.status === 'rejected') throw result.reason;
      const [a, b] = instances;

      // Six drafts are sent to both instances at the same moment; the others to one, alternating;
      // all in a shuffled order, twelve requests in flight at a time.
      const next = random(seed);
      doubled = new Set(shuffle(arranged.ids, next).slice(0, TWICE));
      const tasks = shuffle(arranged.ids, next).map((id, n) => ({
        id,
        via: doubled.has(id) ? [a, b] : [n % 2 === 0 ? a : b],
      }));
      const deadlocksBefore = await deadlocks(database);
      const deadline = AbortSignal.timeout(RACE_DEADLINE_MS);
      const went = Date.now();
      attempts = [];
      let taken = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (taken < tasks.length) {
            const task = tasks[taken++];
            if (deadline.aborted)
              attempts.push(
                ...task.via.map((i) => ({
                  id: task.id,
                  via: i.name,
                  status: -1,
                  detail: 'not sent: the race passed its deadline',
                  ms: 0,
                })),
              );
            else
              attempts.push(
                ...(await Promise.all(task.via.map((instance) => finaliseVia(instance, task.id, key, deadline)))),
              );
          }
        }),
      );
      raceMs = Date.now() - went;
      deadlocksInRace = (await deadlocks(database)) - deadlocksBefore;
    }, 120_000);

    afterAll(async () => {
      const codes = await Promise.all(instances.map(stopInstance));
      for (const [i, instance] of instances.entries()) {
        const { stderr } = instance.serve.output();
        expect(codes[i], `instance ${instance.name} exit code; stderr: ${stderr.slice(-2000)}`).toBe(0);
      }
      instances.splice(0);
    }, 60_000);

    /** What the race looked like: for a failure message. */
    const figures = () => {
      const slowest = [...attempts].sort((x, y) => y.ms - x.ms).slice(0, 5);
      const errors = instances.flatMap((i) =>
        i.serve
          .output()
          .stderr.split('\n')
          .filter((line) => /internal error|failed/.test(line))
          .map((line) => `${i.name}: ${line}`),
      );
      return `race ${raceMs} ms, seed ${seed}; deadlocks detected in the database: ${deadlocksInRace}; slowest: ${slowest.map((x) => `${x.id} via ${x.via} ${x.status} in ${x.ms} ms`).join(', ')}; server errors: ${errors.slice(0, 5).join(' | ') || 'none'}`;
    };

    it('answers 200 open exactly once per invoice, with the references INV-1..INV-200: no gap, none twice', () => {
      const statuses: Record<number, number> = {};
      for (const x of attempts) statuses[x.status] = (statuses[x.status] ?? 0) + 1;
      expect(statuses, figures()).toEqual({ 200: INVOICES, 400: TWICE });
      expectAnswers(attempts, arranged.ids, doubled);
      // Both instances did part of the work.
      for (const name of ['A', 'B'])
        expect(
          attempts.filter((x) => x.via === name && x.status === 200).length,
          `200s through ${name}`,
        ).toBeGreaterThan(INVOICES / 4);
      console.info(
        `[invoice-concurrency postgres] ${attempts.length} finalise requests, ${IN_FLIGHT} in flight: ${figures()}`,
      );
    });

    it('leaves every invoice open with its number, the counter at 201, and each invoice linked to its own transaction', async () => {
      expectGapless(await readState(arranged.core), arranged, attempts);
    });

    it('finalises a draft sent to both instances at the same moment once: the other is Invalid State, and one number is used', () => {
      for (const id of doubled) {
        const answers = attempts.filter((x) => x.id === id);
        expect(answers.map((x) => x.via).sort(), `invoice ${id}`).toEqual(['A', 'B']);
        expect(answers.map((x) => x.status).sort(), `invoice ${id}: ${JSON.stringify(answers)}`).toEqual([200, 400]);
        const loser = answers.find((x) => x.status === 400)!;
        expect(loser.title).toBe('Invalid State');
        expect(loser.detail).toMatch(/is open/);
      }
    });

    it('refuses a second finalise through the other instance as Invalid State and changes nothing', async () => {
      // Only meaningful (and only quick) once the race itself went through.
      expect(attempts.filter((x) => x.status === 200).length, `the race did not finish: ${figures()}`).toBe(INVOICES);
      const before = await readState(arranged.core);
      const [a, b] = instances;
      const again = shuffle(
        attempts.filter((x) => x.status === 200),
        random(seed + 1),
      ).slice(0, 10);
      expect(again).toHaveLength(10);
      const answers = await Promise.all(again.map((won) => finaliseVia(won.via === 'A' ? b : a, won.id, key)));
      for (const [i, answer] of answers.entries()) {
        expect(answer.status, JSON.stringify(answer)).toBe(400);
        expect(answer.title).toBe('Invalid State');
        expect(answer.via).not.toBe(again[i].via);
      }
      // Nothing changed: the rows (reference, number, token, dates, transaction) and the counter.
      expect(await readState(arranged.core)).toEqual(before);
      // Both instances show the reference given when it was finalised.
      for (const won of again) {
        for (const instance of [a, b]) {
          const seen = await call(instance, 'GET', `/invoices/${won.id}`, key);
          expect(seen.status).toBe(200);
          expect(seen.body.data.attributes).toMatchObject({ status: 'open', reference: won.reference });
        }
      }
    });
  },
);
