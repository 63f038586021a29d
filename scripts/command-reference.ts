// The command line reference (docs/commands.md), generated from the program itself: every group
// and verb configured (buildProgram with `all`), read through Commander's own data and its Help
// class. Deterministic: registration order (the order of `billing --help`), no colour, a fixed help
// width, nothing from the environment. Written by scripts/docs.ts; test/docs.test.ts checks it.
import { type Argument, type Command, type Help, type Option } from 'commander';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../src/cli.js';
import type { IO } from '../src/lib/cli/io.js';

export const REFERENCE_PATH = fileURLToPath(new URL('../docs/commands.md', import.meta.url));

/** Help width for Commander's own help text (read only to find the text added after it). */
const HELP_WIDTH = 100;

const silentIO: IO = {
  out: () => {},
  err: () => {},
  stdinIsTTY: false,
  stdoutIsTTY: false,
  readStdin: () => Promise.resolve(Buffer.alloc(0)),
};

/** The reference as Markdown, from a program with every verb configured. */
export async function commandReference(): Promise<string> {
  return renderReference(await buildProgram(silentIO, undefined, { all: true }));
}

/** Text that Markdown shows as written. */
function escape(text: string): string {
  return text
    .replace(/[\\`*[\]<>]/g, (c) => `\\${c}`)
    .replace(/(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, '\\_')
    .replace(/&(?=#?\w+;)/g, '&amp;')
    .replace(
      /^(\s*)([#+=-]|\d+[.)])/gm,
      (_, space: string, mark: string) => `${space}${mark.replace(/[#+=\-.)]/, (c) => `\\${c}`)}`,
    );
}

/** A code span that holds any text, backticks included. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** A fenced block that holds any text. */
function block(language: string, lines: string[]): string {
  const longest = Math.max(2, ...lines.flatMap((line) => line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${lines.join('\n')}\n${fence}`;
}

/** "billing customers create", the heading of a command and, as GitHub makes it, its anchor. */
function fullName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
const anchor = (cmd: Command): string =>
  `#${fullName(cmd)
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-')}`;

function helper(cmd: Command): Help {
  const help = cmd.createHelp();
  help.prepareContext({ helpWidth: HELP_WIDTH, outputHasColors: false });
  return help;
}

/** Subcommands as `billing --help` lists them, without Commander's implicit `help` command. */
function subcommands(cmd: Command): Command[] {
  return helper(cmd)
    .visibleCommands(cmd)
    .filter((sub) => cmd.commands.includes(sub));
}

/** The text added around Commander's help with addHelpText: [before, after]. */
function addedHelpText(cmd: Command): [string, string] {
  let written = '';
  const write = (text: string) => {
    written += text;
  };
  cmd.configureOutput({
    writeOut: write,
    writeErr: write,
    getOutHelpWidth: () => HELP_WIDTH,
    getErrHelpWidth: () => HELP_WIDTH,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  });
  const information = cmd.helpInformation();
  cmd.outputHelp();
  const at = written.indexOf(information);
  if (at < 0) throw new Error(`${fullName(cmd)}: the help printed does not contain the help information`);
  return [written.slice(0, at), written.slice(at + information.length)];
}

/** Help text as Markdown: "Examples:" with "  $ command" lines as a shell block, the rest as paragraphs. */
function helpText(text: string): string[] {
  const parts: string[] = [];
  const lines = text.replace(/\s+$/, '').split('\n');
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length) parts.push(escape(paragraph.map((line) => line.trim()).join('\n')));
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\S.*:$/.test(line.trim()) && /^\s*\$ /.test(lines[i + 1] ?? '')) {
      endParagraph();
      const examples: string[] = [];
      while (/^\s*\$ /.test(lines[i + 1] ?? '')) examples.push(lines[++i].replace(/^\s*\$ /, ''));
      parts.push(`**${escape(line.trim().replace(/:$/, ''))}**`, block('sh', examples));
    } else if (line.trim() === '') endParagraph();
    else paragraph.push(line);
  }
  endParagraph();
  return parts;
}

function argumentTerm(argument: Argument): string {
  const name = `${argument.name()}${argument.variadic ? '...' : ''}`;
  return argument.required ? `<${name}>` : `[${name}]`;
}

const GLOBAL_OPTIONS = 'Global options';

const item = (term: string, description: string): string =>
  description ? `- ${code(term)}: ${escape(description)}` : `- ${code(term)}`;

/** One command's section: usage, description, arguments, options, subcommands, help text. */
function section(cmd: Command, level: number): string[] {
  const help = helper(cmd);
  const isRoot = cmd.parent === null;
  const [before, after] = addedHelpText(cmd);
  const parts: string[] = [`${'#'.repeat(level)} ${fullName(cmd)}`];
  parts.push(...helpText(before));
  const description = help.commandDescription(cmd);
  if (description) parts.push(escape(description));
  parts.push(block('text', [`Usage: ${help.commandUsage(cmd)}`]));

  if (cmd.registeredArguments.length) {
    parts.push(
      '**Arguments**',
      cmd.registeredArguments
        .map((argument) => item(argumentTerm(argument), help.argumentDescription(argument)))
        .join('\n'),
    );
  }
  // Every command has -h, --help; it is listed once, with the global options.
  const options: Option[] = help.visibleOptions(cmd).filter((option) => isRoot || option.long !== '--help');
  if (options.length) {
    parts.push(isRoot ? `${'#'.repeat(level + 1)} ${GLOBAL_OPTIONS}` : '**Options**');
    if (isRoot) parts.push('Accepted by every command, before or after it.');
    parts.push(options.map((option) => item(help.optionTerm(option), help.optionDescription(option))).join('\n'));
  }
  const commands = subcommands(cmd);
  if (commands.length) {
    parts.push(
      '**Commands**',
      commands
        .map(
          (sub) => `- [${code(help.subcommandTerm(sub))}](${anchor(sub)}): ${escape(help.subcommandDescription(sub))}`,
        )
        .join('\n'),
    );
  }
  parts.push(...helpText(after));
  return parts;
}

/** The whole reference: the program, then each command in the order `billing --help` lists them. */
export function renderReference(program: Command): string {
  const parts: string[] = [
    '<!-- Generated from the commands by `npm run docs` (scripts/docs.ts). Do not edit: change the commands and run it again. -->',
    '# Command line reference',
    [
      'Every command of `billing`, with its arguments, options and examples: what `billing <command> --help` prints.',
      `The [global options](#global-options) are accepted by every command, before or after it;`,
      'modes, where settings come from, output formats and exit codes are in [Modes, output and exit codes](exit-codes-and-output.md).',
    ].join('\n'),
  ];
  const contents: string[] = [];
  const sections: string[] = [];
  // The program and its groups are level-2 headings, verbs level 3.
  const visit = (cmd: Command, depth: number) => {
    contents.push(`${'  '.repeat(Math.max(0, depth - 1))}- [${fullName(cmd)}](${anchor(cmd)})`);
    if (depth === 0) contents.push(`  - [${GLOBAL_OPTIONS}](#global-options)`);
    sections.push(...section(cmd, Math.max(2, depth + 1)));
    for (const sub of subcommands(cmd)) visit(sub, depth + 1);
  };
  visit(program, 0);
  parts.push('**Contents**', contents.join('\n'), ...sections);
  return `${parts.join('\n\n')}\n`;
}
