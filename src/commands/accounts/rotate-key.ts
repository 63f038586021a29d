import type { Command } from 'commander';
import { confirmAction } from '../../lib/command/confirm.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { accountRuntime, printDryRun, printKey } from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<name>', 'account name')
    .addHelpText(
      'after',
      prose(
        'Replacing the key of an account that has one is asked about on a terminal, and needs --yes elsewhere: whoever still uses the old key is refused from then on.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing accounts rotate-key default',
        'billing accounts rotate-key acme --yes --json   # {"name": "acme", "api_key": "..."}',
      ),
    )
    .action((name: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        if (deps.globals.dryRun) return printDryRun(deps, 'rotate-key', `rotate the API key of account ${name}`);
        const { runtime, accounts } = await accountRuntime(deps, 'rotate-key', true);
        if (await accounts.hasKey(runtime, name)) {
          await confirmAction(
            deps,
            `rotate the API key of account ${name}`,
            `Replace the API key of account ${name}? Whoever still uses the current key is refused from then on.`,
          );
        }
        const { account, apiKey } = await accounts.rotateKey(runtime, name);
        await printKey(deps, account.name, apiKey);
      }),
    );
}
