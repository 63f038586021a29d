import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureDelete } from './confirmed.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureDelete(cmd, INVOICE, invoke)
    .addHelpText(
      'after',
      prose(
        'Only a draft can be deleted; its lines go with it. A finalised invoice is undone by crediting it (billing invoices credit). Asks for confirmation on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText('after', examples('billing invoices delete 12', 'billing invoices delete 12 --yes'));
}
