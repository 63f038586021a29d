import type { Command } from 'commander';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import {
  accountRuntime,
  printDryRun,
  printObject,
  sepaOptions,
  settingsFrom,
  settingsOf,
  settingsOptions,
} from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  sepaOptions(settingsOptions(cmd.argument('<name>', 'account name')))
    .addHelpText(
      'after',
      prose(
        "Collecting for real: --collection sepa puts the account's due transactions into batches (billing collections create) whose pain.008 files you upload to your bank, and settles them by the bank's reports (billing collections import); the clock no longer collects them. It needs a creditor id, name and IBAN to export. Its customers are pre-notified of every collection when it is scheduled, at least --prenotification-days before it (the transactions scheduled before the switch, at once). See docs/sepa.md.",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing accounts update default --invoice-prefix ECUR-',
        'billing accounts update acme --time-zone Europe/London',
        'billing accounts update club --collection sepa --creditor-id NL57ZZZ999999999999 --creditor-name "Sportclub Zuid" --creditor-iban NL91ABNA0417164300',
        'billing accounts update club --prenotification-days 5',
      ),
    )
    .action((name: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) => {
        const settings = settingsFrom(opts);
        if (Object.keys(settings).length === 0)
          throw new UsageError('nothing to change: give at least one flag (see billing accounts update --help)');
        if (deps.globals.dryRun) return printDryRun(deps, 'update', `update account ${name}`, { changes: settings });
        const { runtime, accounts } = await accountRuntime(deps, 'update', true);
        await printObject(deps, settingsOf(await accounts.updateAccount(runtime, name, settings)));
      }),
    );
}
