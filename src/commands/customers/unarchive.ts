import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { configureArchiving } from './archiving.js';

export const configure = (cmd: Command, invoke: Invoke): void => configureArchiving(cmd, invoke, false);
