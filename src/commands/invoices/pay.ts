import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId, runWrite } from '../../lib/command/resource.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'invoice id')
    .addHelpText(
      'after',
      prose(
        'For an invoice paid outside the service (a bank transfer, cash): an open or charged-back invoice becomes paid, and its transaction, if not yet collected, is canceled. Refused while its collection has succeeded and its funds are settling (it becomes paid when they settle) and while it is in a collection batch.',
      ),
    )
    .addHelpText('after', examples('billing invoices pay 12', 'billing invoices pay 12 --json'))
    .action((idText: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        await runWrite(deps, {
          method: 'PATCH',
          path: `${INVOICE.path}/${id}/pay`,
          type: INVOICE.type,
          id,
          done: 'recorded the payment of invoice',
        });
      }),
    );
}
