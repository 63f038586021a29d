import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { accountRuntime, printDryRun, printKey, settingsFrom, settingsOptions } from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  settingsOptions(cmd.argument('<name>', 'account name: letters, digits, _ or -'))
    .addHelpText(
      'after',
      examples(
        'billing accounts create acme',
        'billing accounts create acme --invoice-prefix ACME- --time-zone Europe/Brussels --json',
      ),
    )
    .action((name: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) => {
        const settings = settingsFrom(opts);
        if (deps.globals.dryRun)
          return printDryRun(deps, 'create', `create account ${name} and its first API key`, {
            account: { name, ...settings },
          });
        const { runtime, accounts } = await accountRuntime(deps, 'create', true);
        const { account, apiKey } = await accounts.createAccount(runtime, name, settings);
        await printKey(deps, account.name, apiKey);
      }),
    );
}
