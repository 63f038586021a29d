import type { Command } from 'commander';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { accountRuntime, printDryRun, printObject, settingsFrom, settingsOf, settingsOptions } from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  settingsOptions(cmd.argument('<name>', 'account name'))
    .addHelpText(
      'after',
      examples(
        'billing accounts update default --invoice-prefix ECUR-',
        'billing accounts update acme --time-zone Europe/London',
      ),
    )
    .action((name: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) => {
        const settings = settingsFrom(opts);
        if (Object.keys(settings).length === 0)
          throw new UsageError('nothing to change: give --invoice-prefix and/or --time-zone');
        if (deps.globals.dryRun) return printDryRun(deps, 'update', `update account ${name}`, { changes: settings });
        const { runtime, accounts } = await accountRuntime(deps, 'update', true);
        await printObject(deps, settingsOf(await accounts.updateAccount(runtime, name, settings)));
      }),
    );
}
