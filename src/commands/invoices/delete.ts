import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { UsageError } from '../../lib/cli/errors.js';
import { statusOf } from '../../lib/command/confirm.js';
import { configureDelete, invoiceSubject } from './confirmed.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureDelete(cmd, INVOICE, invoke, async (deps, id) => {
    const { invoice, named } = await invoiceSubject(deps, id);
    const status = statusOf(invoice);
    if (status !== undefined && status !== 'draft')
      throw new UsageError(
        `invoice ${id} is ${status}: only a draft can be deleted; a finalised invoice is undone by crediting it (billing invoices credit ${id}); nothing changed`,
      );
    return `Delete ${named}? This cannot be undone.`;
  })
    .addHelpText(
      'after',
      prose(
        'Only a draft can be deleted; its lines go with it. A finalised invoice is undone by crediting it (billing invoices credit). Asks for confirmation on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText('after', examples('billing invoices delete 12', 'billing invoices delete 12 --yes'));
}
