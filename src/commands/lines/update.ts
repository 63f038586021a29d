import type { Command } from 'commander';
import { lineUpdateShape } from '../../lib/schemas/invoice.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureUpdate } from '../../lib/command/resource-writes.js';
import { LINE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureUpdate(cmd, LINE, lineUpdateShape, invoke);
  cmd
    .addHelpText('after', prose("Only a line of a draft invoice can be changed; the invoice's amounts follow."))
    .addHelpText(
      'after',
      examples(
        'billing lines update 31 --quantity 3',
        'billing lines update 31 --amount 9,95 --tax-rate 9',
        'billing lines update 31 --description "Lunchbox (large)"',
      ),
    );
}
