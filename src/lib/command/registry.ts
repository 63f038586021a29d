// Command groups and verbs, described cheaply; a verb's module (its flags, its run) is imported
// only when that verb is the one being run or asked for help.
import type { Command } from 'commander';
import type { Deps } from './deps.js';

/** Runs a command body with deps built from the command's options, and closes them after. */
export type Invoke = (command: Command, body: (deps: Deps) => Promise<void>) => Promise<void>;

export interface VerbModule {
  configure(cmd: Command, invoke: Invoke): void;
}

export interface Verb {
  summary: string;
  load(): Promise<VerbModule>;
}

export interface Group {
  name: string;
  summary: string;
  verbs: Record<string, Verb>;
}

/** "Examples:" help text, the same shape in every command. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

const refusals = new WeakMap<Command, string>();

/**
 * Marks a command that changes something but cannot show what it would do: --dry-run is refused
 * (exit 2, with the reason) before anything runs, never silently ignored.
 */
export function refusesDryRun(cmd: Command, reason: string): Command {
  refusals.set(cmd, reason);
  return cmd;
}

export const dryRunRefusal = (cmd: Command): string | undefined => refusals.get(cmd);
