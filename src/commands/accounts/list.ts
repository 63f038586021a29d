import type { Command } from 'commander';
import { listAccounts } from '../../lib/core/accounts.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { accountCore } from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd.addHelpText('after', examples('billing accounts list', 'billing accounts list --json')).action((_opts: unknown, command: Command) =>
    invoke(command, async (deps) => {
      const core = await accountCore(deps, 'list');
      core.account(); // the default account exists from first use on
      const rows = listAccounts(core.store).map((a) => ({ name: a.name, invoice_prefix: a.invoice_prefix, time_zone: a.time_zone, default: a.is_default === 1 }));
      if (deps.globals.output !== 'table') {
        deps.io.out(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      const { listTable } = await import('../../lib/output/table.js');
      deps.io.out(listTable(rows.map(({ name, ...attributes }) => ({ type: 'account', id: name, attributes })), 'account', deps.globals.color));
    }),
  );
}
