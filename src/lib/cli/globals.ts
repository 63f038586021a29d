// The global options every command accepts, before or after the subcommand.
import type { Command } from 'commander';
import { UsageError } from './errors.js';
import { textOf } from '../schemas/json.js';

export type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv';

export interface GlobalOptions {
  output: OutputFormat;
  /** Whether --json or -o was given (some commands pick another default). */
  outputExplicit: boolean;
  db?: string;
  baseUrl?: string;
  apiKey?: string;
  profile?: string;
  account?: string;
  /** False with --no-input. Whether a prompt may appear is decided in deps (TTY, CI too). */
  input: boolean;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
  query?: string;
  dryRun: boolean;
  yes: boolean;
  timeout?: number;
  /** PostgreSQL: the most connections the store's pool opens. */
  poolSize?: number;
  /** Sent as the Idempotency-Key of the command's write (its later writes: KEY/2, KEY/3 …). */
  idempotencyKey?: string;
  /** CSV cells exactly as the data has them (no ' before what a spreadsheet would run as a formula). */
  csvRaw: boolean;
}

export const OUTPUT_FORMATS: OutputFormat[] = ['table', 'json', 'ndjson', 'csv'];

export function addGlobalOptions(program: Command): void {
  program
    .option('--json', 'print exactly the JSON:API document the service returned (same as -o json)')
    .option('-o, --output <format>', `output format: ${OUTPUT_FORMATS.join(', ')}`)
    .option('--db <path|url>', 'embedded store: a SQLite file, or a postgres:// URL (env BILLING_DB)')
    .option('--base-url <url>', 'remote mode: the service to talk to (env BILLING_BASE_URL)')
    .option('--api-key <key>', 'remote mode: API key (env BILLING_API_KEY)')
    .option('--profile <name>', 'use a saved profile')
    .option('--account <name>', 'embedded: act as this account (default: the store default account)')
    .option('--no-input', 'never prompt (also when stdin/stdout is not a terminal, or CI is set)')
    .option('-q, --quiet', 'less output')
    .option('--verbose', 'log each request and response to stderr (API key redacted)')
    .option('--no-color', 'plain output (NO_COLOR is honoured too)')
    .option('--query <expr>', 'JMESPath expression applied to the result, printed as JSON')
    .option('--dry-run', 'for commands that change something: print the request, send nothing')
    .option(
      '-y, --yes',
      'skip the confirmation of what cannot be undone (delete, cancel, credit, rotate-key, profiles remove, store restore|reset); needed without a terminal',
    )
    .option(
      '--idempotency-key <key>',
      'for commands that change something: run again with the same key, the change is made once (the first answer comes back)',
    )
    .option('--timeout <seconds>', 'remote mode: request timeout in seconds (default 30)')
    .option('--pool-size <n>', 'PostgreSQL store: the most database connections to open (default 10)')
    .option(
      '--csv-raw',
      "CSV as the data is: no ' before a cell a spreadsheet would run as a formula (=, +, -, @); imports keep a leading ' too",
    );
}

export function readGlobals(options: Record<string, unknown>, env: NodeJS.ProcessEnv): GlobalOptions {
  const output = options.json ? 'json' : ((options.output as string | undefined) ?? 'table');
  if (!OUTPUT_FORMATS.includes(output as OutputFormat)) {
    throw new UsageError(`--output must be one of: ${OUTPUT_FORMATS.join(', ')}`);
  }
  // --query prints JSON whatever the format: an -o it would ignore is refused, never dropped silently.
  if (options.query !== undefined && options.output !== undefined && output !== 'json')
    throw new UsageError(
      `--query prints its result as JSON and cannot be combined with -o ${output}: drop one of them`,
    );
  let timeout: number | undefined;
  if (options.timeout !== undefined) {
    timeout = Number(options.timeout);
    if (!Number.isFinite(timeout) || timeout <= 0)
      throw new UsageError('--timeout must be a number of seconds above 0');
  }
  let poolSize: number | undefined;
  if (options.poolSize !== undefined) {
    poolSize = Number(options.poolSize);
    if (!/^\d+$/.test(textOf(options.poolSize).trim()) || poolSize < 1 || poolSize > 1000)
      throw new UsageError('--pool-size must be a whole number from 1 to 1000');
  }
  const idempotencyKey = options.idempotencyKey as string | undefined;
  // Printable ASCII, as a header carries it; room left for the /N of a command's later writes.
  if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,240}$/.test(idempotencyKey))
    throw new UsageError(
      '--idempotency-key must be 1 to 240 printable ASCII characters without spaces (a UUID, or a name of the step)',
    );
  return {
    output: output as OutputFormat,
    outputExplicit: Boolean(options.json) || options.output !== undefined,
    db: options.db as string | undefined,
    baseUrl: options.baseUrl as string | undefined,
    apiKey: options.apiKey as string | undefined,
    profile: options.profile as string | undefined,
    account: options.account as string | undefined,
    input: options.input !== false,
    quiet: Boolean(options.quiet),
    verbose: Boolean(options.verbose),
    color: options.color !== false && env.NO_COLOR === undefined,
    query: options.query as string | undefined,
    dryRun: Boolean(options.dryRun),
    yes: Boolean(options.yes),
    timeout,
    poolSize,
    csvRaw: Boolean(options.csvRaw),
    idempotencyKey,
  };
}
