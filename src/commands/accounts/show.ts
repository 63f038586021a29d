import type { Command } from 'commander';
import { DEFAULT_ACCOUNT_NAME, defaultAccount, findAccount } from '../../lib/core/accounts.js';
import { notFound } from '../../lib/core/result.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { accountCore, printObject, settingsOf, unwrap } from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<name>', 'account name')
    .addHelpText('after', examples('billing accounts show default', 'billing accounts show acme --json'))
    .action((name: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const core = await accountCore(deps, 'show');
        const account = name === DEFAULT_ACCOUNT_NAME ? await defaultAccount(core.store, core.clock) : await core.store.read(() => findAccount(name));
        await printObject(deps, settingsOf(await unwrap(account ? { ok: true, value: account } : notFound(`no account named "${name}"`), { name })));
      }),
    );
}
