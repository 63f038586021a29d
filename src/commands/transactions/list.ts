// transactions list --subscription-id ID: transactions have no collection of their own in the API;
// they are listed per subscription (GET /subscriptions/{id}/transactions).
import type { Command } from 'commander';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, parseId, runList } from '../../lib/command/resource.js';
import { addTransactionFindOptions, transactionFind } from '../subscriptions/find.js';
import { TRANSACTION } from './index.js';
import { textOf } from '../../lib/schemas/json.js';

export function configure(cmd: Command, invoke: Invoke): void {
  addTransactionFindOptions(
    addListOptions(cmd.option('--subscription-id <n>', 'the subscription whose transactions to list (required)'), []),
  ).action((opts: Record<string, unknown>, command: Command) =>
    invoke(command, async (deps) => {
      if (opts.subscriptionId === undefined) throw new UsageError('missing required flag: --subscription-id');
      const id = parseId(textOf(opts.subscriptionId), '--subscription-id');
      await runList(deps, `/subscriptions/${id}/transactions`, TRANSACTION.type, {
        ...listOptions(opts),
        find: transactionFind(opts),
      });
    }),
  );
  cmd.addHelpText(
    'after',
    examples(
      'billing transactions list --subscription-id 7',
      'billing transactions list --subscription-id 7 --status failed',
      'billing transactions list --subscription-id 7 --sort due_date --all --json',
    ),
  );
}
