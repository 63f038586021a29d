import type { Command } from 'commander';
import { customerCreateShape } from '../../lib/schemas/customer.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { configureCreate } from '../../lib/command/resource-writes.js';
import { CUSTOMER } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureCreate(cmd, CUSTOMER, customerCreateShape, invoke);
  cmd.addHelpText(
    'after',
    prose(
      'On a terminal, what is missing of the name and email is asked for, then the IBAN (an empty answer skips it) and, with an IBAN, the account holder.',
    ),
  );
  cmd.addHelpText(
    'after',
    examples(
      'billing customers create --first-name Jan --last-name Jansen --email jan@example.com',
      'billing customers create --first-name Jan --last-name Jansen --email jan@example.com --iban "NL91 ABNA 0417 1643 00" --bank-holder "J. Jansen"',
      'billing customers create --data @customer.json --json',
    ),
  );
}
