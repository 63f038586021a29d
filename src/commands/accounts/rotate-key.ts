import type { Command } from 'commander';
import { rotateKey } from '../../lib/core/accounts.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { accountCore, printKey, unwrap } from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<name>', 'account name')
    .addHelpText('after', examples('billing accounts rotate-key default', 'billing accounts rotate-key acme --json   # {"name": "acme", "api_key": "..."}'))
    .action((name: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const core = await accountCore(deps, 'rotate-key');
        const { account, apiKey } = await unwrap(rotateKey(core.store, core.clock, name), { name });
        await printKey(deps, account.name, apiKey);
      }),
    );
}
