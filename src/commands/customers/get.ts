import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureGet } from '../../lib/command/resource.js';
import { CUSTOMER } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureGet(cmd, CUSTOMER, ['subscriptions'], invoke);
  cmd.addHelpText('after', examples('billing customers get 42', 'billing customers get 42 --json', 'billing customers get 42 --include subscriptions --json'));
}
