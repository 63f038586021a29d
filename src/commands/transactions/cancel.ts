// cancel ID: DELETE /transactions/{id} (204, no body), then the transaction as it is now, so a script
// sees status canceled. Confirmed first on a terminal; --yes without one.
import type { Command } from 'commander';
import { confirmAction } from '../../lib/command/confirm.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { runGet, runWrite, send } from '../../lib/command/resource.js';
import { render, type Document } from '../../lib/output/render.js';
import { resolveTransactionId } from './ids.js';
import { TRANSACTION } from './index.js';

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
        await confirmAction(deps, `cancel transaction ${id}`, `Cancel transaction ${id}? This cannot be undone.`);
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
