// The pieces every completion script is made of: the tree as lookups by command path. Each script
// walks the words typed so far with them (the same walk in each shell's language), so the shell
// never starts node but for ids.
import { ID_DEADLINE_SECONDS, MAX_DEADLINE_SECONDS } from './ids.js';
import type { CompletionTree, FlagSpec, NodeSpec, Values } from './tree.js';

/** A flag's or argument's values as the scripts carry them: w:WORD WORD…, i:KIND, f (files), a (anything). */
export function encode(values: Values): string {
  switch (values.kind) {
    case 'words':
      return `w:${values.words.join(' ')}`;
    case 'ids':
      return `i:${values.ids}`;
    case 'files':
      return 'f';
    case 'any':
      return 'a';
  }
}

export const pathOf = (node: NodeSpec): string => node.path.join(' ');

/** "PATH FLAG" -> encoded values, for every flag that takes one; switches named like a global flag map to ''. */
export function flagValues(tree: CompletionTree): [string, string][] {
  const globalNames = new Set(tree.globals.flatMap((flag) => flag.names));
  const entries: [string, string][] = [];
  for (const node of tree.nodes) {
    if (node.path.length === 0) continue;
    for (const flag of node.flags) {
      for (const name of flag.names) {
        if (flag.values) entries.push([`${pathOf(node)} ${name}`, encode(flag.values)]);
        else if (globalNames.has(name)) entries.push([`${pathOf(node)} ${name}`, '']);
      }
    }
  }
  return entries;
}

/** FLAG -> encoded values of the global flags that take one. */
export const globalValues = (tree: CompletionTree): [string, string][] =>
  tree.globals.flatMap((flag: FlagSpec) =>
    flag.values ? flag.names.map((name): [string, string] => [name, encode(flag.values!)]) : [],
  );

/** "PATH INDEX" -> encoded values of the arguments that have something to offer. */
export const argValues = (tree: CompletionTree): [string, string][] =>
  tree.nodes.flatMap((node) =>
    node.args.flatMap((values, index): [string, string][] =>
      values.kind === 'any' ? [] : [[`${pathOf(node)} ${index}`, encode(values)]],
    ),
  );

/** Index of the argument that repeats, or -1. */
export const varArg = (node: NodeSpec): number => (node.variadic ? node.args.length - 1 : -1);

/**
 * The hard stop the scripts put around the helper (where `timeout` exists): its own deadline, and
 * a second more. The scripts read BILLING_COMPLETION_SECONDS as the helper does (1 to 60, else
 * the default), so the two agree.
 */
export const DEFAULT_SECONDS = ID_DEADLINE_SECONDS;
export const MAX_SECONDS = MAX_DEADLINE_SECONDS;

/** Text inside single quotes for bash and zsh. */
export const shQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** Text inside single quotes for fish (which escapes \ and ' there). */
export const fishQuote = (text: string): string => `'${text.replace(/[\\']/g, '\\$&')}'`;
