import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { renderPlain } from '../../lib/output/render.js';
import { accountRuntime } from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .addHelpText('after', examples('billing accounts list', 'billing accounts list --json'))
    .action((_opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const { runtime, accounts } = await accountRuntime(deps, 'list', false);
        const rows = (await accounts.listAccounts(runtime)).map((a) => ({
          name: a.name,
          invoice_prefix: a.invoice_prefix,
          time_zone: a.time_zone,
          default: a.is_default === 1,
        }));
        await renderPlain(rows, deps.globals, deps.io, async () => {
          const { listTable, viewOf } = await import('../../lib/output/table.js');
          return listTable(
            rows.map(({ name, ...attributes }) => ({ type: 'account', id: name, attributes })),
            'account',
            viewOf(deps.globals, deps.io),
          );
        });
      }),
    );
}
