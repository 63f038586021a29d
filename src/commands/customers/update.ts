import type { Command } from 'commander';
import { customerUpdateSchema } from '../../lib/schemas/customer.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureUpdate } from '../../lib/command/resource-writes.js';
import { CUSTOMER } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureUpdate(cmd, CUSTOMER, customerUpdateSchema.shape, invoke);
  cmd.addHelpText(
    'after',
    examples(
      'billing customers update 42 --email new@example.com',
      'billing customers update 42 --iban NL91ABNA0417164300 --bank-holder "J. Jansen"',
      'billing customers update 42 --middle-name ""   # clears it',
    ),
  );
}
