import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureRelatedList } from '../../lib/command/resource.js';
import { CUSTOMER } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureRelatedList(cmd, CUSTOMER, { path: 'subscriptions', type: 'subscription' }, invoke);
  cmd.addHelpText(
    'after',
    examples('billing customers subscriptions 42', 'billing customers subscriptions 42 --all --json'),
  );
}
