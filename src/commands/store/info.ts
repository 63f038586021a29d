// store info: the engine, where the store is (password as ***), its schema version and its rows per table.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { renderPlain } from '../../lib/output/render.js';

export async function run(deps: Deps): Promise<void> {
  const runtime = await deps.runtime('store info', { write: false });
  const { storeInfo } = await import('../../lib/runtime/maintenance.js');
  // Reads only: no default account is made on an empty store.
  const info = await storeInfo(runtime);
  await renderPlain({ ...info }, deps.globals, deps.io, async () => {
    const { resourceTable, viewOf } = await import('../../lib/output/table.js');
    const { engine, counts, ...rest } = info;
    return resourceTable(
      { type: 'store', id: engine, attributes: { ...rest, ...counts } },
      viewOf(deps.globals, deps.io),
      'engine',
    );
  });
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .addHelpText(
      'after',
      examples(
        'billing store info',
        'billing --db postgres://billing:secret@db.example.com/billing store info --json',
        'billing store info --query counts.customers',
      ),
    )
    .action((_opts: unknown, command: Command) => invoke(command, run));
}
