import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureDelete } from '../invoices/confirmed.js';
import { LINE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureDelete(cmd, LINE, invoke)
    .addHelpText(
      'after',
      prose(
        'Only a line of a draft invoice can be deleted. Asks for confirmation on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText('after', examples('billing lines delete 31', 'billing lines delete 31 --yes'));
}
