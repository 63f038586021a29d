import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureList } from '../../lib/command/resource.js';
import { CUSTOMER } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureList(cmd, CUSTOMER, ['subscriptions'], invoke);
  cmd.addHelpText('after', examples('billing customers list', 'billing customers list --page 2 --page-size 50', 'billing customers list --all --json', 'billing customers list --fields customer=first_name,email -o csv'));
}
