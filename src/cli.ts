// The program: global options, command groups, and the one place where errors become exit codes.
import { Command, CommanderError } from 'commander';
import { accounts } from './commands/accounts/index.js';
import { clock } from './commands/clock/index.js';
import { collections } from './commands/collections/index.js';
import { config } from './commands/config/index.js';
import { customers } from './commands/customers/index.js';
import { importing } from './commands/import/index.js';
import { invoices } from './commands/invoices/index.js';
import { lines } from './commands/lines/index.js';
import { events } from './commands/events/index.js';
import { notifications } from './commands/notifications/index.js';
import { webhooks } from './commands/webhooks/index.js';
import { profiles } from './commands/profiles/index.js';
import { plans } from './commands/plans/index.js';
import { reports } from './commands/reports/index.js';
import { store } from './commands/store/index.js';
import { subscriptions } from './commands/subscriptions/index.js';
import { transactions } from './commands/transactions/index.js';
import { createDeps, type DepsOverrides } from './lib/command/deps.js';
import { ApiError, CliError, errorLines, UsageError } from './lib/cli/errors.js';
import { redact } from './lib/runtime/locations.js';
import { safeText } from './lib/output/format.js';
import { addGlobalOptions, readGlobals, type GlobalOptions } from './lib/cli/globals.js';
import { processIO, type IO } from './lib/cli/io.js';
import { closest, didYouMean } from './lib/cli/suggest.js';
import { dryRunRefusal, examples, wrapWords, type Group, type Invoke, type Verb } from './lib/command/registry.js';

declare const BILLING_VERSION: string;
const VERSION = typeof BILLING_VERSION === 'string' ? BILLING_VERSION : '0.0.0-dev';

const GROUPS: Group[] = [
  customers,
  plans,
  subscriptions,
  invoices,
  lines,
  transactions,
  collections,
  events,
  webhooks,
  notifications,
  reports,
  importing,
  clock,
  accounts,
  store,
  config,
  profiles,
];

/** Commands without verbs. */
const SINGLES: Record<string, Verb> = {
  api: {
    summary: 'send any request through the current mode and print the document',
    load: () => import('./commands/api/index.js'),
  },
  status: {
    summary: 'where billing points (mode, store or server, account, profile, clock) and what it finds there',
    load: () => import('./commands/status/index.js'),
  },
  listen: {
    summary: 'print events as they happen (--json: NDJSON); --forward-to posts each to a local receiver, signed',
    load: () => import('./commands/listen/index.js'),
  },
  demo: {
    summary: 'fill the embedded store with a small, realistic sample and show it',
    load: () => import('./commands/demo/index.js'),
  },
  serve: {
    summary: 'serve the embedded store over HTTP (the API, with API keys)',
    load: () => import('./commands/serve/index.js'),
  },
  completion: {
    summary: 'print the shell completion script (bash, zsh or fish)',
    load: async () =>
      (await import('./commands/completion/index.js')).completionCommand((io) =>
        buildProgram(io, noInvoke, { all: true }),
      ),
  },
};

/** Commands the completion scripts run: only made when named, so never in help, the reference or completion itself. */
const HIDDEN: Record<string, Verb> = {
  __complete: {
    summary: 'ids for the shell completion scripts',
    load: () => import('./commands/completion/complete.js'),
  },
};

/** Global options that take a value, so the words after them are not mistaken for commands. */
const VALUE_OPTIONS = new Set([
  '-o',
  '--output',
  '--db',
  '--base-url',
  '--api-key',
  '--profile',
  '--account',
  '--query',
  '--timeout',
  '--pool-size',
]);

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

const noInvoke: Invoke = () => Promise.reject(new Error('this program was built without a way to run commands'));

/**
 * The program with its groups and verbs. A verb's options, arguments and help exist only once its
 * module is loaded: with `argv`, only the command it names is made, and only the verb it names is
 * loaded (main: start-up stays fast); with `all`, every one is (the command reference, scripts/docs.ts).
 */
export async function buildProgram(
  io: IO,
  invoke: Invoke = noInvoke,
  options: { argv?: string[]; all?: boolean } = {},
): Promise<Command> {
  const width = () => Math.max(40, io.columns ?? 80);
  const program: Command = new Command('billing')
    .description(
      'Administer a recurring-billing service (SEPA direct debits and cards): on the embedded store, or against a server with --base-url.',
    )
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(safeText(text)),
      // commander's suggestion ("\n(Did you mean --search?)") in the one format of every other.
      outputError: (text, write) => write(commanderSuggestion(text)),
      getOutHelpWidth: width,
      getErrHelpWidth: width,
    })
    .showSuggestionAfterError(true)
    // Long flags (--mandate-authentication-method) leave a narrow column: wrap in it all the same.
    .configureHelp({ minWidthToWrap: 24 })
    .addHelpText(
      'after',
      examples(
        'billing demo',
        'billing customers list',
        'billing customers get 42 --json',
        'billing help customers list',
        'billing --base-url https://billing.example.com --api-key KEY customers list',
      ),
    )
    // The global options are listed once, in `billing --help`; every other help points there.
    .addHelpText('afterAll', (context: { command: Command }): string =>
      context.command === program ? '' : `\n${wrapWords(GLOBALS_POINTER, width())}\n`,
    );
  addGlobalOptions(program);

  const [first, second] = commandWords(options.argv ?? []);
  // A command line that names a command needs only that one: commander routes to it and the others
  // are never read (0.3 ms of each start, paired runs). Otherwise (`billing`,
  // `billing --help`, a word unknown here) every one is made, for the list and the suggestions.
  const named =
    !options.all &&
    first !== undefined &&
    (GROUPS.some((group) => group.name === first) || Object.hasOwn(SINGLES, first) || Object.hasOwn(HIDDEN, first));
  const made = (name: string) => !named || name === first;
  for (const group of GROUPS) {
    if (!made(group.name)) continue;
    const groupCommand = program.command(group.name).description(group.summary);
    if (group.examples) groupCommand.addHelpText('after', examples(...group.examples));
    // The group's own help (no verb, or not one of its verbs) shows every verb with its arguments.
    const groupHelp =
      first === group.name &&
      (second === undefined ||
        !Object.entries(group.verbs).some(([name, verb]) => verbNames(name, verb).includes(second)));
    for (const [name, verb] of Object.entries(group.verbs)) {
      const verbCommand = groupCommand.command(name).description(verb.summary);
      if (verb.aliases) verbCommand.aliases(verb.aliases);
      if (
        options.all ||
        groupHelp ||
        (first === group.name && second !== undefined && verbNames(name, verb).includes(second))
      )
        (await verb.load()).configure(verbCommand, invoke);
    }
  }
  for (const [name, single] of Object.entries(SINGLES)) {
    if (!made(name)) continue;
    const command = program.command(name).description(single.summary);
    if (options.all || first === name) (await single.load()).configure(command, invoke);
  }
  if (first !== undefined && Object.hasOwn(HIDDEN, first)) {
    (await HIDDEN[first].load()).configure(
      program.command(first, { hidden: true }).description(HIDDEN[first].summary),
      invoke,
    );
  }
  return program;
}

/** `error: unknown option '--serch'\n(Did you mean --search?)` as `…'--serch'; did you mean '--search'?`. */
export const commanderSuggestion = (text: string): string =>
  text
    .replace(
      /\n\(Did you mean one of (.+?)\?\)/,
      (_, list: string) =>
        `; did you mean one of ${list
          .split(', ')
          .map((o) => `'${o}'`)
          .join(', ')}?`,
    )
    .replace(/\n\(Did you mean (.+?)\?\)/, (_, one: string) => didYouMean(one));

const GLOBALS_POINTER =
  'Global options (--json, -o FORMAT, --query, --db, --base-url, --api-key, --profile, --account, --no-input, --dry-run, --yes and more): see billing --help';

/** Verbs people reach for that go by another name here: `accounts get` is `accounts show`. */
const SYNONYMS: Record<string, string[]> = {
  show: ['get', 'view', 'info'],
  get: ['show', 'view'],
  list: ['ls', 'all'],
  remove: ['rm', 'delete', 'del'],
  delete: ['rm', 'remove', 'del'],
  create: ['new', 'add'],
  add: ['new', 'create'],
  update: ['edit', 'set', 'change'],
  cancel: ['stop', 'end', 'delete', 'remove', 'rm'],
  advance: ['forward', 'move'],
  finalise: ['issue'],
};

/** A verb's name and its aliases (`finalise`, `finalize`). */
const verbNames = (name: string, verb: Verb): string[] => [name, ...(verb.aliases ?? [])];

/**
 * A first word that is no command, or a second that is no verb of its group: exit 2 with the
 * command probably meant (`accounts get` means `accounts show`), before commander parses anything.
 */
function unknownCommand(argv: string[]): string | undefined {
  const [first, second] = commandWords(argv);
  if (first === undefined) return undefined;
  const found = misnamed(first, second);
  // Checked only for a word found unknown: the probe of the global options stays off every start.
  return found !== undefined && knownOptionsBefore(argv, first) ? found : undefined;
}

function misnamed(first: string, second: string | undefined): string | undefined {
  const group = GROUPS.find((g) => g.name === first);
  if (!group) {
    if (Object.hasOwn(SINGLES, first) || Object.hasOwn(HIDDEN, first)) return undefined;
    const names = [...GROUPS.map((g) => g.name), ...Object.keys(SINGLES)];
    return `unknown command 'billing ${first}'${didYouMean(prefixed(closest(first, names)))} (see billing --help)`;
  }
  const verbs = Object.entries(group.verbs);
  if (second === undefined || verbs.some(([name, verb]) => verbNames(name, verb).includes(second))) return undefined;
  const meant =
    verbs.find(([verb]) => Object.hasOwn(SYNONYMS, verb) && SYNONYMS[verb].includes(second))?.[0] ??
    closest(
      second,
      verbs.map(([name]) => name),
    );
  return `unknown command 'billing ${group.name} ${second}'${didYouMean(prefixed(meant, group.name))} (see billing ${group.name} --help)`;
}

/** Whether every option before the first command word is a global one (else commander names the unknown option). */
function knownOptionsBefore(argv: string[], first: string): boolean {
  const probe = new Command();
  addGlobalOptions(probe);
  const known = new Set(probe.options.flatMap((option) => [option.short, option.long]));
  known.add('-h').add('--help').add('-V').add('--version');
  for (const token of argv.slice(0, argv.indexOf(first))) {
    if (token.startsWith('-') && !known.has(token.split('=')[0])) return false;
  }
  return true;
}

const prefixed = (meant: string | undefined, group?: string): string | undefined =>
  meant === undefined ? undefined : `billing ${group === undefined ? '' : `${group} `}${meant}`;

/**
 * `billing help customers list` and `billing customers help list` are `billing customers list --help`;
 * `billing` and `billing customers` alone print their help on stdout (exit 0), as gh does.
 */
export function helpArgv(argv: string[]): string[] {
  const asksHelp = argv.some((t) => t === '-h' || t === '--help' || t === '-V' || t === '--version');
  // The positions of the first two words that are not options or option values.
  const positions: number[] = [];
  for (let i = 0; i < argv.length && positions.length < 3; i++) {
    if (argv[i] === '--') break;
    if (argv[i].startsWith('-')) {
      if (VALUE_OPTIONS.has(argv[i])) i++;
      continue;
    }
    positions.push(i);
  }
  const helpAt = positions.slice(0, 2).find((i) => argv[i] === 'help');
  if (helpAt !== undefined) return [...argv.slice(0, helpAt), ...argv.slice(helpAt + 1), '--help'];
  if (asksHelp) return argv;
  if (positions.length === 0) return [...argv, '--help'];
  if (positions.length === 1 && GROUPS.some((g) => g.name === argv[positions[0]])) return [...argv, '--help'];
  return argv;
}

export async function main(
  argv: string[],
  io: IO = processIO(),
  env: NodeJS.ProcessEnv = process.env,
  overrides: DepsOverrides = {},
): Promise<number> {
  let globals: GlobalOptions | undefined;
  let hint: ((error: unknown) => string | undefined) | undefined;
  const invoke: Invoke = async (command, body) => {
    globals = readGlobals(command.optsWithGlobals(), env);
    const refusal = globals.dryRun ? dryRunRefusal(command) : undefined;
    if (refusal !== undefined)
      throw new UsageError(
        `billing ${command.parent?.name() === 'billing' ? '' : `${command.parent?.name()} `}${command.name()} cannot --dry-run: ${refusal}`,
      );
    globals.color &&= io.stdoutIsTTY || (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0');
    if (globals.query !== undefined) await (await import('./lib/output/render.js')).checkQuery(globals.query);
    const deps = createDeps(io, globals, env, overrides);
    hint = (error) => nextStep(error, deps.settings);
    try {
      await body(deps);
    } finally {
      await deps.close();
    }
  };

  argv = helpArgv(argv);
  const unknown = unknownCommand(argv);
  if (unknown) {
    io.err(`error: ${safeText(unknown)}\n`);
    return 2;
  }
  const program = await buildProgram(io, invoke, { argv });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    // Messages can carry data (a name the service echoes, an argument typed): never a control character.
    // Not a spread of io: that would read its lazy properties (stdin's and stderr's terminal checks).
    const lines = { out: (text: string) => io.out(text), err: (text: string) => io.err(safeText(text)) };
    const code = report(error, lines, globals ?? fallbackGlobals(argv));
    const next = globals?.output === 'json' ? undefined : (carriedHint(error) ?? safeHint(hint, error));
    if (next) io.err(`hint: ${safeText(next)}\n`);
    return code;
  }
}

/** What to do next after a remote refusal or failure, when it is clear. */
function nextStep(
  error: unknown,
  settings: { mode: string; apiKey?: string; baseUrl?: string; profile?: string },
): string | undefined {
  if (settings.mode !== 'remote') return undefined;
  if (error instanceof ApiError && error.status === 401) {
    return settings.apiKey
      ? `${settings.baseUrl} did not accept the API key; check it (--api-key, BILLING_API_KEY${settings.profile ? ` or profile ${settings.profile}` : ''}) or get a new one`
      : 'no API key was sent: use --api-key, BILLING_API_KEY or `billing profiles add NAME --base-url URL --api-key KEY`';
  }
  return undefined;
}

/** A hint a command attached to its error (`activate` refused for the mandate: give its date). */
function carriedHint(error: unknown): string | undefined {
  const hint = error instanceof CliError ? (error as CliError & { hint?: unknown }).hint : undefined;
  return typeof hint === 'string' ? hint : undefined;
}

/** A hint must never turn one error into two (settings that cannot be resolved). */
function safeHint(hint: ((error: unknown) => string | undefined) | undefined, error: unknown): string | undefined {
  try {
    return hint?.(error);
  } catch {
    return undefined;
  }
}

/** Output choice when parsing failed before the globals were read. */
function fallbackGlobals(argv: string[]): Pick<GlobalOptions, 'output' | 'verbose'> {
  const json = argv.some(
    (token, i) =>
      token === '--json' ||
      /^(-o|--output)=?json$/.test(token) ||
      (/^(-o|--output)$/.test(token) && argv[i + 1] === 'json'),
  );
  return { output: json ? 'json' : 'table', verbose: argv.includes('--verbose') };
}

function report(
  error: unknown,
  io: Pick<IO, 'out' | 'err'>,
  globals: Pick<GlobalOptions, 'output' | 'verbose'>,
): number {
  // A runtime operation's refusal is the service's refusal made in process: printed the same way.
  if (error instanceof Error && error.name === 'Refusal')
    error = new ApiError(
      (error as Error & { status: number }).status,
      (error as Error & { document: unknown }).document,
    );
  if (error instanceof CommanderError) {
    // --help, --version and `billing help` end with exit code 0; everything else is usage.
    if (error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
      return 0;
    return 2; // commander has printed the problem (unknown command or option, missing argument)
  }
  if (error instanceof ApiError) {
    if (globals.output === 'json' && error.document !== undefined)
      io.out(`${JSON.stringify(error.document, null, 2)}\n`);
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
  const byName: Record<string, number> = Object.assign(Object.create(null) as Record<string, number>, {
    UnknownAccountError: 2,
    UnknownProfileError: 2,
    ConfigFileError: 2,
    ConfigLockError: 1,
    ConflictingSettingsError: 2,
    UnsendableKeyError: 2,
    StoreOpenError: 2,
    StoreMissingError: 2,
    StoreReadOnlyError: 2,
    StoreUnreachableError: 3,
    StoreAuthError: 4,
    // A SQLite store another process kept locked past the wait (PostgreSQL: conflicts past every retry).
    StoreBusyError: 1,
    ServiceUnreachableError: 3,
    ProtocolError: 1,
  });
  if (error instanceof Error && byName[error.name] !== undefined) {
    io.err(`error: ${redact(error.message)}\n`);
    return byName[error.name];
  }
  const message =
    error instanceof Error ? (globals.verbose ? (error.stack ?? error.message) : error.message) : String(error);
  io.err(`error: unexpected failure: ${redact(message)}\n`);
  return 1;
}
