import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, parseId, runList } from '../../lib/command/resource.js';
import { addTransactionFindOptions, transactionFind } from './find.js';
import { SUBSCRIPTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addTransactionFindOptions(addListOptions(cmd.argument('<id>', 'subscription id'), [])).action(
    (idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) =>
        runList(deps, `${SUBSCRIPTION.path}/${parseId(idText)}/transactions`, 'transaction', {
          ...listOptions(opts),
          find: transactionFind(opts),
        }),
      ),
  );
  cmd.addHelpText(
    'after',
    examples(
      'billing subscriptions transactions 7',
      'billing subscriptions transactions 7 --status charged_back',
      'billing subscriptions transactions 7 --sort due_date --all -o csv',
    ),
  );
}
