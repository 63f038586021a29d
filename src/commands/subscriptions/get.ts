import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureGet } from '../../lib/command/resource.js';
import { SUBSCRIPTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureGet(cmd, SUBSCRIPTION, ['customer', 'subscription-plan'], invoke);
  cmd.addHelpText(
    'after',
    examples(
      'billing subscriptions get 7',
      'billing subscriptions get 7 --json',
      'billing subscriptions get 7 --include customer,subscription-plan --json',
    ),
  );
}
