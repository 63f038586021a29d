import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addReadOptions, readOptions, runGet } from '../../lib/command/resource.js';
import { resolveTransactionId } from './ids.js';
import { TRANSACTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addReadOptions(cmd.argument('<id>', 'transaction id: a UUID, or its first 8 hex digits or more'), []).action(
    (idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) =>
        runGet(deps, `${TRANSACTION.path}/${await resolveTransactionId(deps, idText)}`, readOptions(opts)),
      ),
  );
  cmd.addHelpText(
    'after',
    examples(
      'billing transactions get ffa38848-6abc-4d22-b6b0-63fe1780969c',
      'billing transactions get ffa38848-6abc-4d22-b6b0-63fe1780969c --json',
      'billing transactions get ffa38848   # the start is enough when no other id has it',
    ),
  );
}
