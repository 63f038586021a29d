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
  /** Other names that run it (`finalize` for `finalise`). */
  aliases?: string[];
  load(): Promise<VerbModule>;
}

export interface Group {
  name: string;
  summary: string;
  verbs: Record<string, Verb>;
  /** Shown in the group's help, e.g. `billing customers list --search jan`. */
  examples?: string[];
}

/** "Examples:" help text, the same shape in every command. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}`;
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

/** Text wrapped at words to a width (help paragraphs: lines never break inside a word). */
export function wrapWords(text: string, width = 80): string {
  return text
    .split('\n')
    .map((line) => {
      const lines: string[] = [];
      let current = '';
      for (const word of line.split(' ')) {
        if (current && current.length + 1 + word.length > width) {
          lines.push(current);
          current = word;
        } else current = current ? `${current} ${word}` : word;
      }
      lines.push(current);
      return lines.join('\n');
    })
    .join('\n');
}

/** A help paragraph, wrapped at words to the help's width when it is shown. */
export const prose =
  (text: string) =>
  (context: { command: Command }): string => {
    const width =
      (
        context.command as unknown as { _outputConfiguration?: { getOutHelpWidth?: () => number } }
      )._outputConfiguration?.getOutHelpWidth?.() ?? 80;
    return `\n${wrapWords(text, width)}`;
  };
