// The prompter of a real terminal: @inquirer/prompts, imported on the first question only (it costs
// about 70 ms to load). Questions go to stderr, so stdout carries only data. Ctrl-C inside a
// question ends the command with exit 130 and nothing written.
import { InterruptedError } from '../cli/errors.js';
import type { Prompter } from './prompter.js';
import type * as InquirerModule from '@inquirer/prompts';

type Inquirer = typeof InquirerModule;

export function inquirerPrompter(): Prompter {
  let loaded: Promise<Inquirer> | undefined;
  const context = () => ({ output: process.stderr, clearPromptOnDone: false });
  const ask = async <T>(question: (inquirer: Inquirer) => Promise<T>): Promise<T> => {
    const inquirer = await (loaded ??= import('@inquirer/prompts'));
    try {
      return await question(inquirer);
    } catch (error) {
      if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError'))
        throw new InterruptedError();
      throw error;
    }
  };
  return {
    text: (q) => ask((i) => i.input({ message: q.message, default: q.default, validate: q.validate }, context())),
    password: (q) => ask((i) => i.password({ message: q.message, validate: q.validate }, context())),
    select: (q) =>
      ask((i) => i.select({ message: q.message, choices: q.choices, default: q.default, pageSize: 10 }, context())),
    confirm: (q) => ask((i) => i.confirm({ message: q.message, default: q.default ?? false }, context())),
    search: (q) =>
      ask((i) => i.search({ message: q.message, source: (term) => q.source(term ?? ''), pageSize: 10 }, context())),
    checkbox: (q) => ask((i) => i.checkbox({ message: q.message, choices: q.choices, pageSize: 15 }, context())),
  };
}
