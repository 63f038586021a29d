import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureRelatedList } from '../../lib/command/resource.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureRelatedList(cmd, INVOICE, { path: 'lines', type: 'invoice-line' }, invoke);
  cmd.addHelpText('after', examples('billing invoices lines 12', 'billing invoices lines 12 --all -o csv'));
}
