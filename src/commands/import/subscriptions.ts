import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { configureImport } from './run.js';

export const configure = (cmd: Command, invoke: Invoke): void => configureImport(cmd, invoke, 'subscriptions');
