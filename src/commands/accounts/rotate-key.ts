import type { Command } from 'commander';
import { findAccount, rotateKey } from '../../lib/core/accounts.js';
import { confirmAction } from '../../lib/command/confirm.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { get } from '../../lib/store/unit.js';
import type { EmbeddedCore } from '../../lib/transport/embedded.js';
import { accountCore, printDryRun, printKey, unwrap } from './shared.js';

/** Whether the account exists and has a key already: replacing it locks out whoever uses it. */
async function hasKey(core: EmbeddedCore, name: string): Promise<boolean> {
  return core.store.read(function* () {
    const account = yield* findAccount(name);
    if (!account) return false;
    return (yield* get((q) => q.selectFrom('api_keys').select('id').where('account_id', '=', account.id).limit(1))) !== undefined;
  });
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<name>', 'account name')
    .addHelpText('after', prose('Replacing the key of an account that has one is asked about on a terminal, and needs --yes elsewhere: whoever still uses the old key is refused from then on.'))
    .addHelpText('after', examples('billing accounts rotate-key default', 'billing accounts rotate-key acme --yes --json   # {"name": "acme", "api_key": "..."}'))
    .action((name: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        if (deps.globals.dryRun) return printDryRun(deps, 'rotate-key', `rotate the API key of account ${name}`);
        const core = await accountCore(deps, 'rotate-key');
        if (await hasKey(core, name)) {
          await confirmAction(deps, `rotate the API key of account ${name}`, `Replace the API key of account ${name}? Whoever still uses the current key is refused from then on.`);
        }
        const { account, apiKey } = await unwrap(rotateKey(core.store, core.clock, name), { name });
        await printKey(deps, account.name, apiKey);
      }),
    );
}
