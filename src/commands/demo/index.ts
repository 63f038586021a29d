// `billing demo [--size N]`: fills an empty embedded store with a realistic sample (half a year of
// history, played by play.ts), then shows it. Running it again on a store that has customers only
// shows them.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose, refusesDryRun } from '../../lib/command/registry.js';
import { runList, send } from '../../lib/command/resource.js';
import { textOf } from '../../lib/schemas/json.js';

const DEFAULT_SIZE = 20;
const MAX_SIZE = 1_000_000;

export function sizeFlag(value: unknown): number {
  if (value === undefined) return DEFAULT_SIZE;
  const text = textOf(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_SIZE)
    throw new UsageError(`--size must be a whole number from 1 to ${MAX_SIZE}, not "${textOf(value)}"`);
  return Number(text);
}

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export async function run(opts: Record<string, unknown>, deps: Deps): Promise<void> {
  const size = sizeFlag(opts.size);
  const runtime = await deps.runtime('demo', { write: true });
  const existing = (await send(deps, { method: 'GET', path: '/customers', query: { 'page[size]': 1 } })).body as {
    meta: { total: number };
  };
  let next: string[];
  if (existing.meta.total > 0) {
    if (!deps.globals.quiet)
      deps.io.err(
        `the store already has ${existing.meta.total} customers; showing them (store: ${runtime.store.location})\n`,
      );
    next = ['billing subscriptions list --status paused', 'billing invoices list --status open', 'billing clock show'];
  } else {
    const { play } = await import('../../lib/runtime/demo/play.js');
    const played = await play(runtime, size);
    const { playClub } = await import('../../lib/runtime/demo/club.js');
    const club = await playClub(runtime);
    if (!deps.globals.quiet) {
      const added = `${count(played.plans, 'plan')}, ${count(played.customers, 'customer')}, ${count(played.subscriptions, 'subscription')} and ${count(played.invoices, 'invoice')}`;
      deps.io.err(`added ${added}, with their history since ${played.since}, to ${runtime.store.location}\n`);
      const batch = club?.collection;
      if (club && batch)
        deps.io.err(
          `account ${club.account} collects by SEPA Direct Debit: ${count(club.members, 'member')}; collection ${batch.id} of ${count(batch.transactions, 'transaction')} (${batch.controlSum} EUR) exported, ${batch.leftOut} left out (see docs/sepa.md)\n`,
        );
    }
    // Customer 5 has a collection that failed after its retries, customer 8 a draft invoice (stories.ts).
    const failed = played.ids(5).subscription;
    const draft = played.ids(8).invoice;
    next = [
      'billing customers get 1',
      'billing subscriptions list --status paused',
      ...(failed ? [`billing transactions list --subscription-id ${failed}`] : []),
      ...(draft ? [`billing invoices finalise ${draft}`] : []),
      ...(club?.collection ? [`billing --account ${club.account} collections get ${club.collection.id}`] : []),
      'billing clock advance P1M',
    ];
  }
  // With --json the output stays one document: the customers.
  if (deps.globals.output === 'table') {
    await runList(deps, '/subscription-plans', 'subscription-plan', { fields: {}, all: true });
    await runList(deps, '/subscriptions', 'subscription', { fields: {}, all: false, pageSize: 20 });
    await runList(deps, '/invoices', 'invoice', { fields: {}, all: false, pageSize: 20 });
  }
  await runList(deps, '/customers', 'customer', { fields: {}, all: false, pageSize: 20 });
  if (!deps.globals.quiet && deps.globals.output === 'table') deps.io.err(`next: ${next.join(' · ')}\n`);
}

export function configure(cmd: Command, invoke: Invoke): void {
  refusesDryRun(cmd, 'it writes a whole sample; try it on a throwaway store instead: billing --db /tmp/try.db demo')
    .option(
      '--size <n>',
      `customers to make, 1 to ${MAX_SIZE} (default ${DEFAULT_SIZE}); every size has the same mix of statuses`,
    )
    .addHelpText(
      'after',
      prose(
        "Fills an empty store with six plans (weekly to yearly, and one collected once) and customers in the Netherlands and Belgium, with half a year of history played on the service itself: collections fulfilled, charged back and retried, some failed for good; subscriptions active, paused, cancelled and awaiting their mandate; invoices draft, open, paid, charged back, cancelled and credited. The store's clock is left as it was. On a store that has customers, it only shows them.",
      ),
    )
    .addHelpText(
      'after',
      examples('billing demo', 'billing --db /tmp/try.db demo', 'billing demo --size 10000', 'billing demo --json'),
    )
    .action((opts: Record<string, unknown>, command: Command) => invoke(command, (deps) => run(opts, deps)));
}
