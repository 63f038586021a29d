import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { configureGet } from '../../lib/command/resource.js';
import { PLAN } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureGet(cmd, PLAN, [], invoke);
  cmd.addHelpText('after', examples('billing plans get 1', 'billing plans get 1 --json'));
}
