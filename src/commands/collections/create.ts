// create [--until DATE]: POST /collections. Prints the batch made (if any), then every transaction
// due by the day that was left out, with the reason; --json prints the service's document, whose
// meta.left_out lists them.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { addAttributeFlags, collectAttributes } from '../../lib/command/flags.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { send } from '../../lib/command/resource.js';
import { noun, type ResourceLike } from '../../lib/output/columns.js';
import { oneLine } from '../../lib/output/format.js';
import { render, type Document } from '../../lib/output/render.js';
import { collectionCreateShape } from '../../lib/schemas/collection.js';
import { COLLECTION } from './index.js';

interface LeftOut {
  transaction_id: string;
  subscription_id: string;
  due_date: string;
  amount: string;
  reason: string;
}

type Made = Document & { meta?: { until?: string; left_out?: LeftOut[] } };

export async function run(opts: Record<string, unknown>, deps: Deps): Promise<void> {
  const attributes = await collectAttributes(opts, collectionCreateShape, deps.io);
  const body = { data: { type: COLLECTION.type, attributes } };
  if (deps.globals.dryRun) {
    deps.io.out(`${JSON.stringify({ method: 'POST', path: COLLECTION.path, body }, null, 2)}\n`);
    return;
  }
  const response = await send(deps, { method: 'POST', path: COLLECTION.path, body });
  const document = response.body as Made;
  const leftOut = document.meta?.left_out ?? [];
  const until = (document.meta?.until ?? '').slice(0, 10);
  if (deps.globals.output !== 'table' || deps.globals.query !== undefined)
    return render(document, deps.globals, deps.io);
  const { listTable, resourceTable, viewOf } = await import('../../lib/output/table.js');
  const view = viewOf(deps.globals, deps.io);
  const batch = document.data as ResourceLike | null | undefined;
  if (batch) {
    const count = Number(batch.attributes?.transactions);
    if (!deps.globals.quiet)
      deps.io.err(
        oneLine(`made collection ${batch.id}: ${count} ${noun('transaction', count)} due by ${until}`) + '\n',
      );
    deps.io.out(await resourceTable(batch, view));
  } else if (!deps.globals.quiet) deps.io.err(oneLine(`nothing to collect by ${until}: no batch was made`) + '\n');
  if (leftOut.length === 0) return;
  if (!deps.globals.quiet) deps.io.err(`left out (${leftOut.length}), each still waiting:\n`);
  const rows = leftOut.map(({ transaction_id, ...attributes }) => ({
    type: 'left-out',
    id: transaction_id,
    attributes,
  }));
  deps.io.out(await listTable(rows, 'left-out', view));
}

export function configure(cmd: Command, invoke: Invoke): void {
  addAttributeFlags(cmd, collectionCreateShape, { create: true });
  cmd
    .addHelpText(
      'after',
      prose(
        "Takes every transaction of a SEPA account (billing accounts update NAME --collection sepa) that is scheduled, or rescheduled for a storno retry, due on or before the day, and in no batch yet. Each is collected on its due date, or the first TARGET2 business day at least one business day from now; the day may be at most 14 days ahead. A transaction that cannot be collected (no IBAN, a mandate not accepted, expired or needing attention, the account's creditor not set up) is left out and listed with the reason; it waits for a later batch. Export the batch next: billing collections export ID.",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing collections create',
        'billing collections create --until 2026-12-04',
        'billing collections create --json',
      ),
    )
    .action((opts: Record<string, unknown>, command: Command) => invoke(command, (deps) => run(opts, deps)));
}
