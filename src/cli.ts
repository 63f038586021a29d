// The program: global options, command groups, and the one place where errors become exit codes.
import { Command, CommanderError } from 'commander';
import { accounts } from './commands/accounts/index.js';
import { config } from './commands/config/index.js';
import { customers } from './commands/customers/index.js';
import { profiles } from './commands/profiles/index.js';
import { plans } from './commands/plans/index.js';
import { store } from './commands/store/index.js';
import { createDeps, type DepsOverrides } from './lib/command/deps.js';
import { ApiError, CliError, UsageError } from './lib/command/errors.js';
import { redact } from './lib/store/store.js';
import { addGlobalOptions, readGlobals, type GlobalOptions } from './lib/command/globals.js';
import { processIO, type IO } from './lib/command/io.js';
import { dryRunRefusal, type Group, type Invoke, type Verb } from './lib/command/registry.js';

declare const BILLING_VERSION: string;
const VERSION = typeof BILLING_VERSION === 'string' ? BILLING_VERSION : '0.0.0-dev';

const GROUPS: Group[] = [customers, plans, accounts, store, config, profiles];

/** Commands without verbs. */
const SINGLES: Record<string, Verb> = {
  api: { summary: 'send any request through the current mode and print the document', load: () => import('./commands/api/index.js') },
  demo: { summary: 'fill the embedded store with a small, realistic sample and show it', load: () => import('./commands/demo/index.js') },
  serve: { summary: 'serve the embedded store over HTTP (the API, with API keys)', load: () => import('./commands/serve/index.js') },
};

/** Global options that take a value, so the words after them are not mistaken for commands. */
const VALUE_OPTIONS = new Set(['-o', '--output', '--db', '--base-url', '--api-key', '--profile', '--account', '--query', '--timeout', '--pool-size']);

/** The first two command words of argv (e.g. "customers", "get"), skipping global options and "help". */
export function commandWords(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const token = argv[i];
    if (token === '--') break;
    if (token.startsWith('-')) {
      if (VALUE_OPTIONS.has(token)) i++;
      continue;
    }
    // `billing help customers list` and `billing customers help list` show the verb's full help.
    if (token !== 'help') words.push(token);
  }
  return words;
}

const noInvoke: Invoke = async () => {
  throw new Error('this program was built without a way to run commands');
};

/**
 * The program with every group and verb. A verb's options, arguments and help exist only once its
 * module is loaded: with `argv`, only the verb it names is (main: start-up stays fast); with `all`,
 * every one is (the command reference, scripts/docs.ts).
 */
export async function buildProgram(io: IO, invoke: Invoke = noInvoke, options: { argv?: string[]; all?: boolean } = {}): Promise<Command> {
  const program = new Command('billing')
    .description('Administer a recurring-billing service (SEPA direct debits and cards): on the embedded store, or against a server with --base-url.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true })
    .addHelpText(
      'after',
      '\nExamples:\n  $ billing demo\n  $ billing customers list\n  $ billing customers get 42 --json\n  $ billing --base-url https://billing.example.com --api-key KEY customers list\n',
    );
  addGlobalOptions(program);

  const [first, second] = commandWords(options.argv ?? []);
  for (const group of GROUPS) {
    const groupCommand = program.command(group.name).description(group.summary);
    for (const [name, verb] of Object.entries(group.verbs)) {
      const verbCommand = groupCommand.command(name).description(verb.summary);
      if (options.all || (first === group.name && second === name)) (await verb.load()).configure(verbCommand, invoke);
    }
  }
  for (const [name, single] of Object.entries(SINGLES)) {
    const command = program.command(name).description(single.summary);
    if (options.all || first === name) (await single.load()).configure(command, invoke);
  }
  return program;
}

export async function main(argv: string[], io: IO = processIO(), env: NodeJS.ProcessEnv = process.env, overrides: DepsOverrides = {}): Promise<number> {
  let globals: GlobalOptions | undefined;
  const invoke: Invoke = async (command, body) => {
    globals = readGlobals(command.optsWithGlobals(), env);
    const refusal = globals.dryRun ? dryRunRefusal(command) : undefined;
    if (refusal !== undefined) throw new UsageError(`billing ${command.parent?.name() === 'billing' ? '' : `${command.parent?.name()} `}${command.name()} cannot --dry-run: ${refusal}`);
    globals.color &&= io.stdoutIsTTY || (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0');
    if (globals.query !== undefined) await (await import('./lib/output/render.js')).checkQuery(globals.query);
    const deps = createDeps(io, globals, env, overrides);
    try {
      await body(deps);
    } finally {
      await deps.close();
    }
  };

  const program = await buildProgram(io, invoke, { argv });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return report(error, io, globals ?? fallbackGlobals(argv));
  }
}

/** Output choice when parsing failed before the globals were read. */
function fallbackGlobals(argv: string[]): Pick<GlobalOptions, 'output' | 'verbose'> {
  const json = argv.some((token, i) => token === '--json' || /^(-o|--output)=?json$/.test(token) || (/^(-o|--output)$/.test(token) && argv[i + 1] === 'json'));
  return { output: json ? 'json' : 'table', verbose: argv.includes('--verbose') };
}

interface ErrorDocument {
  errors?: { title?: string; detail?: string; source?: { pointer?: string; parameter?: string } }[];
}

/** One line per error, with the field it points at. */
export function errorLines(document: unknown, status: number): string[] {
  const errors = (document as ErrorDocument | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return [`the service answered ${status} without an error document`];
  return errors.map((e) => {
    const field = e.source?.pointer?.replace(/^\/data\/attributes\//, '') ?? e.source?.parameter;
    const detail = e.detail ?? e.title ?? 'error';
    if (!field || field === '/data') return `${e.title ? `${e.title}: ` : ''}${detail}`;
    return `${field}: ${detail.startsWith(`${field} `) ? detail.slice(field.length + 1) : detail}`;
  });
}

function report(error: unknown, io: IO, globals: Pick<GlobalOptions, 'output' | 'verbose'>): number {
  if (error instanceof CommanderError) {
    // --help, --version and `billing help` end with exit code 0; everything else is usage.
    if (error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    return 2; // commander has printed the problem (unknown command or option, missing argument)
  }
  if (error instanceof ApiError) {
    if (globals.output === 'json' && error.document !== undefined) io.out(`${JSON.stringify(error.document, null, 2)}\n`);
    else {
      const prefix = error.status === 401 ? 'authentication failed: ' : '';
      for (const line of errorLines(error.document, error.status)) io.err(`error: ${prefix}${line}\n`);
    }
    return error.exitCode;
  }
  if (error instanceof CliError) {
    io.err(`error: ${redact(error.message)}\n`);
    return error.exitCode;
  }
  // Errors of layers below the command line, by name so that --help never loads their modules.
  const byName: Record<string, number> = { UnknownAccountError: 2, UnknownProfileError: 2, ConfigFileError: 2, StoreOpenError: 2, StoreUnreachableError: 3, StoreAuthError: 4, ServiceUnreachableError: 3, ProtocolError: 1 };
  if (error instanceof Error && byName[error.name] !== undefined) {
    io.err(`error: ${redact(error.message)}\n`);
    return byName[error.name];
  }
  const message = error instanceof Error ? (globals.verbose ? (error.stack ?? error.message) : error.message) : String(error);
  io.err(`error: unexpected failure: ${redact(message)}\n`);
  return 1;
}
