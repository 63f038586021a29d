import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureRelatedList } from '../../lib/command/resource.js';
import { PLAN } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureRelatedList(cmd, PLAN, { path: 'subscriptions', type: 'subscription' }, invoke);
  cmd.addHelpText('after', examples('billing plans subscriptions 1', 'billing plans subscriptions 1 --all -o ndjson'));
}
