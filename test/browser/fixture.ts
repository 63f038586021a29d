// A real `billing serve` on 127.0.0.1 over a fresh store of the run's engine, with one account and
// its API key, for the customers' pages: data is made through the API over HTTP (plans through the
// core, as an operator makes them), and the pages are fetched or browsed like a customer would.
import { afterEach } from 'vitest';
import { createAccount } from '../../src/lib/core/accounts.js';
import { fixedClock } from '../../src/lib/core/clock.js';
import type { Account, CoreContext } from '../../src/lib/core/context.js';
import { createPlan } from '../../src/lib/core/plan-writes.js';
import { StoreClock } from '../../src/lib/core/store-clock.js';
import type { GuessLimits } from '../../src/lib/pages/guesses.js';
import { startServer, type RunningServer } from '../../src/lib/runtime/serve.js';
import { openStore, type Engine, type Store } from '../../src/lib/store/store.js';
import { all } from '../../src/lib/store/unit.js';
import { ENGINE, freshStoreLocation } from '../helpers/engine.js';
import { TEST_NOW, TEST_POOL_SIZE } from '../helpers/store.js';

export const VALID_IBAN = 'NL91ABNA0417164300';

/** `busyMs`: how long a write waits for another process's SQLite lock (default 5 s). */
export interface PagesOptions {
  now?: string;
  engine?: Engine;
  guesses?: GuessLimits;
  busyMs?: number;
}

export interface PagesFixture {
  store: Store;
  clock: StoreClock;
  server: RunningServer;
  account: Account;
  key: string;
  lines: string[];
  /** The name of every read the server made of the store (store.read's second argument). */
  reads: string[];
  ctx: CoreContext;
  /** A request to the API with the account's key; the JSON answer. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  plan(attributes?: Record<string, unknown>): Promise<number>;
  customer(attributes?: Record<string, unknown>): Promise<string>;
  subscription(attributes: Record<string, unknown>): Promise<{ id: string; confirmationPage: string }>;
  /** Every row of a table (to show that a refused request changed nothing). */
  rows(
    table: 'subscriptions' | 'events' | 'transactions' | 'webhook_deliveries' | 'notifications',
    subscriptionId?: number,
  ): Promise<any[]>;
}

const open: PagesFixture[] = [];
afterEach(async () => {
  // Servers close their stores (closeStore default).
  await Promise.all(open.splice(0).map((f) => f.server.close()));
});

const doc = (type: string, attributes: Record<string, unknown>, id?: string) => ({
  data: { type, ...(id ? { id } : {}), attributes },
});

/** The store with every read it is asked for named in `reads`; everything else as it is. */
function counted(store: Store, reads: string[]): Store {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== 'read') return value.bind(target);
      return (fn: unknown, name?: string) => {
        reads.push(name ?? '');
        return (value as (...args: unknown[]) => unknown).call(target, fn, name);
      };
    },
  });
}

export async function startPages(options: PagesOptions = {}): Promise<PagesFixture> {
  const store = await openStore(await freshStoreLocation(options.engine ?? ENGINE), {
    poolSize: TEST_POOL_SIZE,
    busyMs: options.busyMs,
  });
  const reads: string[] = [];
  // The serve's clock, as the CLI gives it: the store's clock over a fixed time.
  const clock = new StoreClock(fixedClock(options.now ?? TEST_NOW));
  const made = await createAccount(store, clock, 'sportclub');
  if (!made.ok) {
    await store.close();
    throw new Error(`account: ${JSON.stringify(made.failure)}`);
  }
  const lines: string[] = [];
  // No due-work timer (the test's time stands still); loopback webhook targets allowed.
  const server = await startServer({
    store: counted(store, reads),
    clock,
    host: '127.0.0.1',
    port: 0,
    dueEveryMs: 0,
    allowPrivateWebhooks: true,
    log: (line) => lines.push(line),
    pageGuesses: options.guesses,
  });
  const { account, apiKey: key } = made.value;
  const ctx: CoreContext = { store, clock, account, baseUrl: server.baseUrl };

  async function api(method: string, path: string, body?: unknown) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        'x-authorization': key,
        ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  }
  const created = async (path: string, type: string, attributes: Record<string, unknown>) => {
    const answer = await api('POST', path, doc(type, attributes));
    if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${JSON.stringify(answer.json)}`);
    return answer.json.data;
  };

  const fixture: PagesFixture = {
    store,
    clock,
    server,
    account,
    key,
    lines,
    reads,
    ctx,
    api,
    async plan(attributes = { name: 'Lidmaatschap Goud', amount: '12.50', frequency: 'monthly' }) {
      const result = await createPlan(ctx, attributes);
      if (!result.ok) throw new Error(`plan: ${JSON.stringify(result.failure)}`);
      return result.value.id;
    },
    async customer(attributes = {}) {
      const data = await created('/customers', 'customer', {
        first_name: 'Jan',
        last_name: 'Jansen',
        email: 'jan@example.com',
        iban: VALID_IBAN,
        bank_holder: 'J. Jansen',
        ...attributes,
      });
      return data.id as string;
    },
    async subscription(attributes) {
      const data = await created('/subscriptions', 'subscription', attributes);
      return { id: data.id as string, confirmationPage: data.attributes.confirmation_page as string };
    },
    rows: (table, subscriptionId) =>
      Promise.resolve(
        store.read(() =>
          all((q) => {
            const query = q.selectFrom(table).selectAll();
            const column = table === 'subscriptions' ? 'id' : 'subscription_id';
            return (
              subscriptionId === undefined ? query : query.where(column as never, '=', subscriptionId as never)
            ).orderBy('id' as never);
          }),
        ),
      ),
  };
  open.push(fixture);
  return fixture;
}

/** An invoice on the subscription with the given lines, finalised: its hosted_invoice_url. */
export async function finalisedInvoice(
  f: PagesFixture,
  subscriptionId: string,
  lines: Record<string, unknown>[],
): Promise<{ id: string; url: string; attributes: any }> {
  const invoice = await f.api('POST', '/invoices', doc('invoice', { subscription_id: subscriptionId }));
  if (invoice.status !== 201) throw new Error(`invoice: ${JSON.stringify(invoice.json)}`);
  const id = invoice.json.data.id as string;
  for (const line of lines) {
    const answer = await f.api('POST', '/invoice-lines', doc('invoice-line', { invoice_id: Number(id), ...line }));
    if (answer.status !== 201) throw new Error(`line: ${JSON.stringify(answer.json)}`);
  }
  const done = await f.api('PATCH', `/invoices/${id}/finalise`);
  if (done.status !== 200) throw new Error(`finalise: ${JSON.stringify(done.json)}`);
  return { id, url: done.json.data.attributes.hosted_invoice_url as string, attributes: done.json.data.attributes };
}

/** Text with non-breaking spaces as plain ones: money and rates are written with them. */
export const plain = (text: string): string => text.replace(/[\u00a0\u202f]/g, ' ');
