import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { accountRuntime, printObject, settingsOf } from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<name>', 'account name')
    .addHelpText('after', examples('billing accounts show default', 'billing accounts show acme --json'))
    .action((name: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const { runtime, accounts } = await accountRuntime(deps, 'show', false);
        await printObject(deps, settingsOf(await accounts.showAccount(runtime, name)));
      }),
    );
}
