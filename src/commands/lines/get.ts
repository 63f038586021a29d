import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureGet } from '../../lib/command/resource.js';
import { LINE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureGet(cmd, LINE, [], invoke);
  cmd.addHelpText('after', examples('billing lines get 31', 'billing lines get 31 --json'));
}
