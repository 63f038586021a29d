// cancel ID: DELETE /transactions/{id} (204, no body), then the transaction as it is now, so a script
// sees status canceled. Confirmed first on a terminal; --yes without one.
import type { Command } from 'commander';
import { ApiError, UsageError } from '../../lib/cli/errors.js';
import { confirmAction, moneyOf, statusOf, subject, withFacts } from '../../lib/command/confirm.js';
import type { Deps } from '../../lib/command/deps.js';
import type { ResourceLike } from '../../lib/output/columns.js';
import { formatDate } from '../../lib/output/format.js';
import { OPEN_TRANSACTION_STATUSES } from '../../lib/schemas/vocabulary.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { runGet, runWrite, send } from '../../lib/command/resource.js';
import { render, type Document } from '../../lib/output/render.js';
import { resolveTransactionId } from './ids.js';
import { TRANSACTION } from './index.js';

/**
 * The transaction as the account's list shows it (with its customer's name in meta), else as its
 * GET does (a server without that list).
 */
async function current(deps: Deps, id: string): Promise<ResourceLike> {
  try {
    const response = await send(deps, {
      method: 'GET',
      path: TRANSACTION.path,
      query: { 'filter[id_prefix]': id, 'page[size]': 1 },
    });
    const found = (response.body as { data?: ResourceLike[] }).data?.find((t) => t.id === id);
    if (found) return found;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 401) throw error;
  }
  return (await subject(deps, `${TRANSACTION.path}/${id}`)).data;
}

/**
 * "Cancel transaction ffa38848 (€ 50.60 due 2026-12-01, Jan Jansen)?"; one already collected (or
 * cancelled) is refused before asking, as the service would refuse it.
 */
async function question(deps: Deps, id: string): Promise<string> {
  const transaction = await current(deps, id);
  const status = statusOf(transaction);
  if (status !== undefined && !(OPEN_TRANSACTION_STATUSES as readonly string[]).includes(status))
    throw new UsageError(
      `transaction ${id} is ${status}: only a transaction not yet collected (queued, scheduled or rescheduled) can be cancelled (nothing changed)`,
    );
  const amount = moneyOf(transaction, 'amount');
  const due = formatDate(transaction.attributes?.due_date);
  const customer = (transaction.meta?.customer as { name?: unknown } | undefined)?.name;
  const named = withFacts(
    `transaction ${id.slice(0, 8)}`,
    [amount, due && `due ${due}`].filter(Boolean).join(' '),
    typeof customer === 'string' ? customer : undefined,
  );
  return `Cancel ${named}? This cannot be undone.`;
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'transaction id: a UUID, or its first 8 hex digits or more')
    .addHelpText(
      'after',
      prose(
        'Only a transaction not yet collected (queued, scheduled or rescheduled) can be cancelled. Asks for confirmation on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing transactions cancel ffa38848-6abc-4d22-b6b0-63fe1780969c',
        'billing transactions cancel ffa38848-6abc-4d22-b6b0-63fe1780969c --yes --json',
      ),
    )
    .action((idText: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const id = await resolveTransactionId(deps, idText);
        const path = `${TRANSACTION.path}/${id}`;
        const request = { method: 'DELETE', path, type: TRANSACTION.type, done: `canceled transaction ${id}` } as const;
        if (deps.globals.dryRun) return runWrite(deps, request);
        await confirmAction(deps, `cancel transaction ${id}`, () => question(deps, id));
        const response = await send(deps, { method: 'DELETE', path });
        if (!deps.globals.quiet) deps.io.err(`${request.done}\n`);
        // The service answers 204 without a body: the transaction is shown as a GET finds it now. A
        // server that answers with the transaction itself is taken at its word.
        const document = response.body as Document | undefined;
        if (document?.data) await render(document, deps.globals, deps.io);
        else await runGet(deps, path, { fields: {} });
      }),
    );
}
