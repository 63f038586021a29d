import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureList } from '../../lib/command/resource.js';
import { COLLECTION } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureList(cmd, COLLECTION, [], invoke);
  cmd.addHelpText('after', examples('billing collections list', 'billing collections list --all --json'));
}
