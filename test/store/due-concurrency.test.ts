// Due work done by four processes at once on one store (one SQLite file, or one PostgreSQL
// database): 300 subscriptions, the store's test time set seven months on with nothing done yet,
// then four processes catch up at the same moment. Every piece of work is done exactly once: each
// subscription has exactly its transactions, each history its statuses once, one event per status
// change, and only future work is left. Run once as every embedded command catches up (batches of
// 500), and once in batches of 20, so the processes claim work side by side within each day.
// Also: moving the clock in one step or in two does the same work.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../src/lib/core/store-clock.js';
import { all, run } from '../../src/lib/store/unit.js';
import { createCustomer, makePlan, minimalCustomer, send } from '../api/support.js';
import { ENGINE, freshStoreLocation } from '../helpers/engine.js';
import { startChild, within, type Child } from '../helpers/children.js';
import { tempDir, testCore, type TestCore } from '../helpers/store.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILDREN = 4;
/** The store's test time, written straight into store_clock: everything due by then is still to do. */
const STORE_TIME = '2027-06-15T12:00:00.000Z';

// The subscriptions, all on one monthly plan, made at TEST_NOW (2026-11-21T10:00Z, Europe/Amsterdam).
// What each has by STORE_TIME, worked out by hand:
//   active:    cycles on the 21st, Nov .. May collected and fulfilled (3 days on), Jun 21 scheduled.
//   cancelled: active with cancel_date 2027-02-10: Nov, Dec, Jan fulfilled; Feb 21 canceled on Feb 10.
//   resumed:   paused until 2027-01-05: then active, cycles on the 5th, Jan .. Jun fulfilled, Jul 5 scheduled.
const FULL = ['scheduled', 'succeeded', 'fulfilled'];
interface Group {
  name: string;
  count: number;
  attributes: Record<string, unknown>;
  subscriptionStatus: string;
  /** The subscription's status events, in order, and how many of them its creation made. */
  subscriptionEvents: string[];
  madeWith: number;
  /** Each transaction's history statuses, by cycle. */
  histories: string[][];
  /** Whether the first transaction was made with the subscription (not by catch-up). */
  madeAtOnce: boolean;
  /** Pieces of due work done by STORE_TIME (collections, fulfilments, a resume, a cancel, dropped work). */
  work: number;
  /** The due_at of the work left (the next collection), or null. */
  left: string | null;
}
const GROUPS: Group[] = [
  {
    name: 'active',
    count: 240,
    attributes: { status: 'active' },
    subscriptionStatus: 'active',
    subscriptionEvents: ['unverified', 'active'],
    madeWith: 2,
    histories: [...Array.from({ length: 7 }, () => FULL), ['scheduled']],
    madeAtOnce: true,
    work: 7 * 2,
    left: '2027-06-20T22:00:00.000Z',
  },
  {
    name: 'cancelled',
    count: 30,
    attributes: { status: 'active', cancel_date: '2027-02-10' },
    subscriptionStatus: 'cancelled',
    subscriptionEvents: ['unverified', 'active', 'cancelled'],
    madeWith: 2,
    histories: [FULL, FULL, FULL, ['scheduled', 'canceled']],
    madeAtOnce: true,
    // three collections and fulfilments, the cancel, and the canceled transaction's collection (dropped)
    work: 3 * 2 + 2,
    left: null,
  },
  {
    name: 'resumed',
    count: 30,
    attributes: { status: 'paused', resume_date: '2027-01-05' },
    subscriptionStatus: 'active',
    // Paused from the start: one creation event, paused.
    subscriptionEvents: ['paused', 'active'],
    madeWith: 1,
    histories: [...Array.from({ length: 6 }, () => FULL), ['scheduled']],
    madeAtOnce: false,
    work: 1 + 6 * 2,
    left: '2027-07-04T22:00:00.000Z',
  },
];
const total = (f: (g: Group) => number) => GROUPS.reduce((sum, g) => sum + g.count * f(g), 0);

/** What the catch-up reports of status changes, all processes together: only what catch-up itself did. */
function expectedChanges(): Record<string, number> {
  const changes: Record<string, number> = {};
  const add = (key: string, n: number) => (changes[key] = (changes[key] ?? 0) + n);
  for (const g of GROUPS) {
    const made = g.histories.length - (g.madeAtOnce ? 1 : 0);
    add('transaction.queued', g.count * made);
    for (const [cycle, history] of g.histories.entries()) {
      // The first transaction of a subscription made active was scheduled when it was made.
      for (const status of g.madeAtOnce && cycle === 0 ? history.slice(1) : history)
        add(`transaction.${status}`, g.count);
    }
    for (const status of g.subscriptionEvents.slice(g.madeWith)) add(`subscription.${status}`, g.count);
  }
  return changes;
}

// ---- the child processes ----

const src = (path: string) => pathToFileURL(join(ROOT, 'src', path)).href;
/**
 * A child: opens the store, says ready, waits at the barrier, then catches up as an embedded
 * command does (mode "catch-up"), or runs the due work in batches of a given size until none is
 * due. Prints its report, its time span, and whether anything due by the store's time was left
 * when it returned.
 */
const CHILD = `
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
const { openStore } = await import(${JSON.stringify(src('lib/store/store.js'))});
const { catchUp, showClock, StoreClock } = await import(${JSON.stringify(src('lib/core/store-clock.js'))});
const { earliestDue, runDue } = await import(${JSON.stringify(src('lib/core/due.js'))});
// Whether any work is due by then: the earliest due time, read in the store.
const isDue = async (store, until) => {
  const due = await store.read(() => earliestDue());
  return due !== undefined && due <= until;
};
const { systemClock } = await import(${JSON.stringify(src('lib/core/clock.js'))});
const [dbPath, goFile, mode] = process.argv.slice(1);
const store = await openStore(dbPath, { poolSize: 2, create: 'nothing' });
try {
  process.stdout.write('ready\\n');
  while (!existsSync(goFile)) await sleep(2);
  const clock = new StoreClock(systemClock);
  const started = Date.now();
  let report, now;
  if (mode === 'catch-up') {
    report = await catchUp(store, clock);
    now = clock.now().toISOString();
  } else {
    // Until nothing is due: a run may stop while others still hold the day's work (PostgreSQL).
    now = (await showClock({ store, clock })).now;
    report = { done: 0, changes: {} };
    do {
      const more = await runDue(store, now, { batchSize: Number(mode) });
      report.done += more.done;
      for (const [key, n] of Object.entries(more.changes)) report.changes[key] = (report.changes[key] ?? 0) + n;
      if (more.done === 0) await sleep(1);
    } while (await isDue(store, now));
  }
  const ended = Date.now();
  const stillDue = await isDue(store, now);
  process.stdout.write(JSON.stringify({ report: report ?? { done: 0, changes: {} }, started, ended, now, stillDue }) + '\\n');
} finally {
  await store.close();
}
`;

interface ChildReport {
  report: { done: number; changes: Record<string, number> };
  started: number;
  ended: number;
  now: string;
  stillDue: boolean;
}
const start = (args: string[]): Child =>
  startChild(['--import', 'tsx', '--input-type=module', '-e', CHILD, ...args], ROOT);

// ---- arranging and reading the store ----

interface Arranged {
  core: TestCore;
  /** Subscription id -> its group. */
  groupOf: Map<number, Group>;
}

/** The subscriptions, made through the API; then the test time, written so that nothing is done yet. */
async function arrange(): Promise<Arranged> {
  const core = await testCore({ dbPath: await freshStoreLocation() });
  const plan = await makePlan(core, { name: 'Monthly box', amount: '12.50', frequency: 'monthly' });
  const groupOf = new Map<number, Group>();
  let n = 0;
  for (const group of GROUPS) {
    for (let i = 0; i < group.count; i++) {
      const customer = await createCustomer(core, minimalCustomer(++n));
      const made = await send(core, 'POST', '/subscriptions', {
        body: {
          data: {
            type: 'subscription',
            attributes: { customer_id: Number(customer), subscription_plan_id: plan, ...group.attributes },
          },
        },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      groupOf.set(Number(made.body.data.id), group);
    }
  }
  await core.store.write(() => run((q) => q.insertInto('store_clock').values({ id: 1, test_time: STORE_TIME })));
  return { core, groupOf };
}

/** Four children catch up at once (after all have loaded); their reports, checked for a clean exit. */
async function race(dbPath: string, mode: string): Promise<ChildReport[]> {
  const goFile = join(tempDir(), 'go');
  const children = Array.from({ length: CHILDREN }, () => start([dbPath, goFile, mode]));
  await within(Promise.all(children.map((c) => c.ready)), 30_000, 'the children to load');
  writeFileSync(goFile, ''); // the barrier opens for all four at once
  const codes = await within(Promise.all(children.map((c) => c.exit)), 90_000, 'the children to finish');
  return children.map((child, n) => {
    expect(child.stderr, `child ${n} stderr`).not.toMatch(
      /SQLITE_BUSY|database is locked|could not serialize|deadlock/i,
    );
    expect(codes[n], `child ${n} stderr: ${child.stderr}`).toBe(0);
    const line = child.stdout.split('\n').find((l) => l.startsWith('{'));
    expect(line, `child ${n} output: ${child.stdout}`).toBeDefined();
    return JSON.parse(line!) as ChildReport;
  });
}

const read = async (core: TestCore) => ({
  subscriptions: await core.store.read(() =>
    all((q) => q.selectFrom('subscriptions').select(['id', 'status']).orderBy('id')),
  ),
  transactions: await core.store.read(() =>
    all((q) =>
      q
        .selectFrom('transactions')
        .select(['seq', 'id', 'subscription_id', 'cycle', 'status', 'history', 'due_date'])
        .orderBy('subscription_id')
        .orderBy('cycle')
        .orderBy('seq'),
    ),
  ),
  events: await core.store.read(() =>
    all((q) =>
      q
        .selectFrom('events')
        .select(['id', 'subscription_id', 'transaction_id', 'name', 'status', 'occurred_at'])
        .orderBy('id'),
    ),
  ),
  work: await core.store.read(() =>
    all((q) => q.selectFrom('due_work').select(['id', 'due_at', 'kind', 'subject']).orderBy('due_at').orderBy('id')),
  ),
});
type Rows = Awaited<ReturnType<typeof read>>;

const groupBy = <T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> => {
  const map = new Map<K, T[]>();
  for (const row of rows) {
    const list = map.get(key(row));
    if (list) list.push(row);
    else map.set(key(row), [row]);
  }
  return map;
};

/** Every piece of work done once: the transactions, histories, events and due work left, subscription by subscription. */
function expectDoneOnce(rows: Rows, groupOf: Map<number, Group>): void {
  const txnsOf = groupBy(rows.transactions, (t) => Number(t.subscription_id));
  const eventsOfSub = groupBy(rows.events, (e) => Number(e.subscription_id));
  const eventsOfTx = groupBy(
    rows.events.filter((e) => e.transaction_id !== null),
    (e) => e.transaction_id!,
  );
  const workOf = groupBy(rows.work, (w) => w.subject);
  expect(rows.subscriptions).toHaveLength(groupOf.size);

  let historyItems = 0;
  for (const sub of rows.subscriptions) {
    const group = groupOf.get(Number(sub.id))!;
    const what = `subscription ${sub.id} (${group.name})`;
    expect(sub.status, what).toBe(group.subscriptionStatus);
    const txns = txnsOf.get(Number(sub.id)) ?? [];
    // Exactly one transaction per cycle, each with its statuses once, in date order.
    expect(
      txns.map((t) => t.cycle),
      what,
    ).toEqual(group.histories.map((_, cycle) => cycle));
    for (const [cycle, tx] of txns.entries()) {
      const history = JSON.parse(tx.history) as { status: string; recorded_on: string }[];
      historyItems += history.length;
      expect(
        history.map((h) => h.status),
        `${what}, cycle ${cycle}`,
      ).toEqual(group.histories[cycle]);
      expect(tx.status, `${what}, cycle ${cycle}`).toBe(group.histories[cycle].at(-1));
      const times = history.map((h) => h.recorded_on);
      expect(times, `${what}, cycle ${cycle}: history in date order`).toEqual([...times].sort());
      // One event per status: its creation (queued) and each history item.
      expect(
        (eventsOfTx.get(tx.id) ?? []).map((e) => e.status),
        `${what}, cycle ${cycle}: events`,
      ).toEqual(['queued', ...group.histories[cycle]]);
    }
    const events = eventsOfSub.get(Number(sub.id)) ?? [];
    expect(
      events.filter((e) => e.name === 'subscription.status').map((e) => e.status),
      what,
    ).toEqual(group.subscriptionEvents);
    // The subscription's events were written in the order they happened.
    const times = events.map((e) => e.occurred_at);
    expect(times, `${what}: events in date order`).toEqual([...times].sort());
    // What is left is its next collection only, after the store's time.
    const open = txns.at(-1)!;
    const left = workOf.get(open.id) ?? [];
    if (group.left === null) expect(left, what).toEqual([]);
    else
      expect(
        left.map((w) => [w.kind, w.due_at]),
        what,
      ).toEqual([['transaction.collect', group.left]]);
  }

  expect(rows.transactions).toHaveLength(total((g) => g.histories.length));
  expect(new Set(rows.transactions.map((t) => `${t.subscription_id}/${t.cycle}`)).size).toBe(rows.transactions.length);
  expect(historyItems).toBe(total((g) => g.histories.flat().length));
  // Every event is a status change: a history item, a transaction's creation, or a subscription's.
  expect(rows.events).toHaveLength(historyItems + rows.transactions.length + total((g) => g.subscriptionEvents.length));
  // Only future work is left, none of it twice.
  expect(rows.work.filter((w) => w.due_at <= STORE_TIME)).toEqual([]);
  expect(rows.work).toHaveLength(total((g) => (g.left === null ? 0 : 1)));
  expect(new Set(rows.work.map((w) => `${w.kind}/${w.subject}`)).size).toBe(rows.work.length);
}

/** The reports of all children together: the status changes and pieces of work, each counted once. */
function expectReportsAddUp(reports: ChildReport[]): void {
  const changes: Record<string, number> = {};
  for (const { report } of reports)
    for (const [key, n] of Object.entries(report.changes)) changes[key] = (changes[key] ?? 0) + n;
  expect(changes).toEqual(expectedChanges());
  expect(reports.reduce((sum, r) => sum + r.report.done, 0)).toBe(total((g) => g.work));
  for (const r of reports) expect(r.now).toBe(STORE_TIME);
}

const figures = (reports: ChildReport[]) =>
  reports
    .map(
      (r, n) =>
        `child ${n}: ${r.report.done} pieces in ${r.ended - r.started} ms, ${r.stillDue ? 'work still due when it returned' : 'nothing due left'}`,
    )
    .join('; ');

describe(`four processes catch up on one store at once on ${ENGINE}`, () => {
  let arranged: Arranged;
  let reports: ChildReport[];
  beforeAll(async () => {
    arranged = await arrange();
    reports = await race(arranged.core.dbPath, 'catch-up');
  }, 180_000);

  it('does every piece of work exactly once', async () => {
    expectDoneOnce(await read(arranged.core), arranged.groupOf);
  });

  it('reports each status change once, all processes together', () => {
    expectReportsAddUp(reports);
  });

  it('each process returns from its catch-up with nothing due left (what every embedded command relies on)', () => {
    expect(
      reports.map((r) => r.stillDue),
      figures(reports),
    ).toEqual(reports.map(() => false));
  });
});

describe(`four processes claiming due work in small batches at once on ${ENGINE}`, () => {
  let arranged: Arranged;
  let reports: ChildReport[];
  beforeAll(async () => {
    arranged = await arrange();
    reports = await race(arranged.core.dbPath, '20');
  }, 180_000);

  it('does every piece of work exactly once', async () => {
    expectDoneOnce(await read(arranged.core), arranged.groupOf);
    expectReportsAddUp(reports);
  });

  it.runIf(ENGINE === 'postgres')('shares the work: every process claims some (SKIP LOCKED)', () => {
    expect(reports.filter((r) => r.report.done > 0).length, figures(reports)).toBe(CHILDREN);
  });
});

describe(`moving the clock on ${ENGINE}`, () => {
  /** A subscription paused until Jan 5 00:00 and cancelled at 12:00 that day; the clock then moved along `steps`. */
  async function transactionsAfter(steps: string[]): Promise<{ cycle: number | null; statuses: string[] }[]> {
    const core = await testCore();
    const plan = await makePlan(core, { name: 'Monthly box', amount: '12.50', frequency: 'monthly' });
    const customer = await createCustomer(core);
    const made = await send(core, 'POST', '/subscriptions', {
      body: {
        data: {
          type: 'subscription',
          attributes: {
            customer_id: Number(customer),
            subscription_plan_id: plan,
            status: 'paused',
            resume_date: '2027-01-05',
            cancel_date: '2027-01-05T12:00:00+01:00',
          },
        },
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    for (const to of steps) expect((await setClock(core, to)).ok).toBe(true);
    const rows = await core.store.read(() =>
      all((q) => q.selectFrom('transactions').select(['cycle', 'history']).orderBy('seq')),
    );
    return rows.map((r) => ({
      cycle: r.cycle,
      statuses: (JSON.parse(r.history) as { status: string }[]).map((h) => h.status),
    }));
  }

  it('in one step or in two does the same work: the collection due at the resume comes before the cancel later that day', async () => {
    const stepped = await transactionsAfter(['2027-01-05T06:00:00.000Z', '2027-01-20T00:00:00.000Z']);
    // Resumed at 00:00: cycle 0 is due at once and collected; at 12:00 the cancel cancels cycle 1.
    expect(stepped).toEqual([
      { cycle: 0, statuses: ['scheduled', 'succeeded', 'fulfilled'] },
      { cycle: 1, statuses: ['scheduled', 'canceled'] },
    ]);
    expect(await transactionsAfter(['2027-01-20T00:00:00.000Z'])).toEqual(stepped);
  });
});
