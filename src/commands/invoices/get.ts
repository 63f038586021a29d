import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureGet } from '../../lib/command/resource.js';
import { INVOICE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureGet(cmd, INVOICE, [], invoke);
  cmd.addHelpText(
    'after',
    examples(
      'billing invoices get 12',
      'billing invoices get 12 --json',
      'billing invoices get 12 --query data.attributes.reference',
    ),
  );
}
