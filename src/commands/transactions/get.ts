import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addReadOptions, readOptions, runGet } from '../../lib/command/resource.js';
import { parseTransactionId } from './ids.js';
import { TRANSACTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addReadOptions(cmd.argument('<id>', 'transaction id (a UUID)'), []).action(
    (idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) => runGet(deps, `${TRANSACTION.path}/${parseTransactionId(idText)}`, readOptions(opts))),
  );
  cmd.addHelpText(
    'after',
    examples(
      'billing transactions get ffa38848-6abc-4d22-b6b0-63fe1780969c',
      'billing transactions get ffa38848-6abc-4d22-b6b0-63fe1780969c --json',
    ),
  );
}
