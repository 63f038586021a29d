// What the shell can complete, read from the program itself (every verb configured): its commands,
// their flags and arguments, and the values of each. The completion scripts are written from this,
// so a new verb or flag is completed without anyone touching them.
import type { Argument, Command, Option } from 'commander';
import { idKindOfFlag, idKindOfGroup } from './ids.js';

/** What a flag or an argument takes. */
export type Values =
  | { kind: 'words'; words: readonly string[] }
  /** Ids from the store or server, through `billing __complete ids KIND`. */
  | { kind: 'ids'; ids: string }
  | { kind: 'files' }
  /** Anything: nothing to offer. */
  | { kind: 'any' };

export interface FlagSpec {
  /** `-o`, `--output`. */
  names: string[];
  description: string;
  /** Absent for a switch. */
  values?: Values;
}

export interface NodeSpec {
  /** The command words, e.g. ['customers', 'list']; [] for the program. */
  path: string[];
  commands: { name: string; description: string }[];
  /** Its own flags; the program's are the global flags, taken after any command too. */
  flags: FlagSpec[];
  args: Values[];
  /** The last argument repeats. */
  variadic: boolean;
}

export interface CompletionTree {
  name: string;
  nodes: NodeSpec[];
  /** The program's flags but help and version: accepted after any command. */
  globals: FlagSpec[];
  /** Global flags that choose the store or server: passed on to `__complete` as typed. */
  context: string[];
}

/** Global flags that decide which store or server the ids come from. */
const CONTEXT_FLAGS = ['--db', '--base-url', '--api-key', '--profile', '--account'];

/** Commander's own flags of every command, which the global flags leave out. */
const OWN_FLAGS = new Set(['-h', '--help', '-V', '--version']);

// Names and values are written into shell code unquoted in places: nothing a shell would read.
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const FLAG = /^--?[A-Za-z0-9][A-Za-z0-9-]*$/;
const WORD = /^[A-Za-z0-9_.@+/:-]+$/;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The list of values a help text spells out, e.g. "(weekly, monthly, …)" or "charged_back or
 * failed": the longest of `lists` written there whole (a list inside a longer one is not it).
 * The flags' help is written from these very lists, so they are the one source of both.
 */
export function listIn(text: string, lists: readonly (readonly string[])[]): readonly string[] | undefined {
  let found: readonly string[] | undefined;
  for (const list of lists) {
    if (list.length < 2 || (found && found.length >= list.length)) continue;
    const pattern = new RegExp(
      `(?<![\\w-]|,\\s*|\\sor\\s+)${list.map(escapeRegExp).join('(?:,? or |, |\\s*\\|\\s*)')}(?![\\w-]|,\\s*[\\w-]|\\s+or\\s)`,
    );
    if (pattern.test(text)) found = list;
  }
  return found;
}

function flagSpec(option: Option, lists: readonly (readonly string[])[]): FlagSpec {
  const names = [option.short, option.long].filter((n): n is string => n !== undefined);
  for (const name of names) if (!FLAG.test(name)) throw new Error(`cannot complete the flag ${name}`);
  const spec: FlagSpec = { names, description: menuLine(option.description) };
  if (option.required || option.optional) spec.values = optionValues(option, lists);
  return spec;
}

function optionValues(option: Option, lists: readonly (readonly string[])[]): Values {
  const listed = option.argChoices ?? listIn(option.description, lists);
  // A sort is by FIELD or, descending, -FIELD.
  if (listed) return words(option.long === '--sort' ? [...listed, ...listed.map((field) => `-${field}`)] : listed);
  const ids = option.long === undefined ? undefined : idKindOfFlag(option.long);
  if (ids) return { kind: 'ids', ids };
  if (/path|file/i.test(option.flags.replace(/^[^<[]*/, ''))) return { kind: 'files' };
  return { kind: 'any' };
}

function argumentValues(argument: Argument, group: string | undefined, lists: readonly (readonly string[])[]): Values {
  const listed = argument.argChoices ?? listIn(argument.description, lists);
  if (listed) return words(listed);
  const ids = argument.name() === 'id' && group !== undefined ? idKindOfGroup(group) : undefined;
  if (ids) return { kind: 'ids', ids };
  // `<file>`, never `<path>`: the path of `billing api` is a URL's.
  return /file/i.test(argument.name()) ? { kind: 'files' } : { kind: 'any' };
}

function words(list: readonly string[]): Values {
  for (const word of list) if (!WORD.test(word)) throw new Error(`cannot complete the value "${word}"`);
  return { kind: 'words', words: [...list] };
}

/** One line, short enough for a completion menu. */
function menuLine(text: string): string {
  const line = text.replace(/\p{Cc}+/gu, ' ').trim();
  if (line.length <= 80) return line;
  return `${line.slice(0, 79).replace(/\s+\S*$/, '')}…`;
}

/**
 * The tree of a program whose verbs are all configured. `lists` are the enumerations flags may take
 * (the vocabulary's, the schemas' enums, the output formats): a flag takes the one its help spells out.
 */
export function completionTree(program: Command, lists: readonly (readonly string[])[]): CompletionTree {
  const nodes: NodeSpec[] = [];
  const visit = (cmd: Command, path: string[]) => {
    const help = cmd.createHelp();
    // A verb's `<id>` is one of its group's resources.
    const group = path.length === 2 ? path[0] : undefined;
    const subcommands = help.visibleCommands(cmd);
    for (const sub of subcommands)
      if (!NAME.test(sub.name())) throw new Error(`cannot complete the command ${sub.name()}`);
    const args = cmd.registeredArguments.map((argument) => argumentValues(argument, group, lists));
    nodes.push({
      path,
      commands: subcommands.map((sub) => ({
        name: sub.name(),
        description: menuLine(sub.summary() || sub.description()),
      })),
      flags: help.visibleOptions(cmd).map((option) => flagSpec(option, lists)),
      args,
      variadic: cmd.registeredArguments.at(-1)?.variadic ?? false,
    });
    for (const sub of cmd.commands) if (subcommands.includes(sub)) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  const globals = nodes[0].flags.filter((flag) => !flag.names.some((name) => OWN_FLAGS.has(name)));
  for (const flag of CONTEXT_FLAGS) {
    if (!globals.some((spec) => spec.names.includes(flag) && spec.values))
      throw new Error(`the program has no global flag ${flag} with a value`);
  }
  return { name: program.name(), nodes, globals, context: CONTEXT_FLAGS };
}
