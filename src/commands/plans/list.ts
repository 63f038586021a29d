import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureList } from '../../lib/command/resource.js';
import { PLAN } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureList(cmd, PLAN, ['subscriptions'], invoke);
  cmd.addHelpText('after', examples('billing plans list', 'billing plans list --include subscriptions --json'));
}
