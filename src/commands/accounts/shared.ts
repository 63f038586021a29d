// What the account verbs share: the runtime, and the two output shapes.
import type { Command } from 'commander';
import { UsageError } from '../../lib/cli/errors.js';
import { embeddedOnly, type Deps } from '../../lib/command/deps.js';
import { renderPlain } from '../../lib/output/render.js';
import type * as AccountsModule from '../../lib/runtime/accounts.js';
import type { Account } from '../../lib/runtime/accounts.js';
import { redact } from '../../lib/runtime/locations.js';
import type { Runtime } from '../../lib/runtime/runtime.js';
import { textOf } from '../../lib/schemas/json.js';

/** The runtime; `accounts list` and `accounts show` only read (the store must exist), the others may create it. */
export async function accountRuntime(
  deps: Deps,
  verb: string,
  write: boolean,
): Promise<{ runtime: Runtime; accounts: typeof AccountsModule }> {
  const runtime = await deps.runtime(`accounts ${verb}`, { write });
  return { runtime, accounts: await import('../../lib/runtime/accounts.js') };
}

/**
 * --dry-run: what the verb would change, as one JSON document on stdout, never a key. Nothing is
 * opened (a missing store is not made), but remote mode is refused as in a real run.
 */
export function printDryRun(deps: Deps, verb: string, would: string, details: Record<string, unknown> = {}): void {
  if (deps.settings.mode === 'remote') throw embeddedOnly(`accounts ${verb}`, deps.settings.baseUrl);
  deps.io.out(
    `${JSON.stringify({ dry_run: true, would, ...details, store: redact(deps.settings.dbPath) }, null, 2)}\n`,
  );
}

/** Whether the account has any SEPA setting: then they are all shown (a simulated account without any shows as it always has). */
const setUpForSepa = (account: Account): boolean =>
  account.collection !== 'simulated' ||
  account.creditor_id !== null ||
  account.creditor_name !== null ||
  account.creditor_iban !== null ||
  account.creditor_bic !== null ||
  account.prenotification_days !== 14;

export const settingsOf = (account: Account) => ({
  name: account.name,
  invoice_prefix: account.invoice_prefix,
  time_zone: account.time_zone,
  webhook_secret: account.webhook_secret,
  ...(setUpForSepa(account)
    ? {
        collection: account.collection,
        creditor_id: account.creditor_id,
        creditor_name: account.creditor_name,
        creditor_iban: account.creditor_iban,
        creditor_bic: account.creditor_bic,
        prenotification_days: account.prenotification_days,
      }
    : {}),
});

/** Prints one object in the chosen format; as a table, a field/value table. */
export async function printObject(deps: Deps, value: Record<string, unknown>): Promise<void> {
  await renderPlain(value, deps.globals, deps.io, async () => {
    const { resourceTable, viewOf } = await import('../../lib/output/table.js');
    const { name, ...rest } = value;
    return resourceTable(
      { type: 'account', id: String(name), attributes: rest },
      viewOf(deps.globals, deps.io),
      'name',
    );
  });
}

/** The key is printed once; a person is told to keep it. */
export async function printKey(deps: Deps, name: string, apiKey: string): Promise<void> {
  if (deps.globals.output === 'table' && !deps.globals.quiet)
    deps.io.err(`API key of account "${name}" (shown only now; store it safely):\n`);
  await printObject(deps, { name, api_key: apiKey });
}

export const settingsOptions = (cmd: Command): Command =>
  cmd
    .option('--invoice-prefix <prefix>', 'prefix of invoice references (default INV-)')
    .option('--time-zone <tz>', 'IANA time zone of dates and days (default Europe/Amsterdam)');

/** How the account collects (SEPA Direct Debit), for accounts update. */
export const sepaOptions = (cmd: Command): Command =>
  cmd
    .option(
      '--collection <mode>',
      "simulated (every due collection succeeds: the default, and the demo's) or sepa (batches, pain.008 files, the bank's reports)",
    )
    .option('--creditor-id <id>', 'SEPA Creditor Identifier, checked by its check digits (e.g. NL57ZZZ999999999999)')
    .option('--creditor-name <name>', "the creditor's name as the debtors' banks show it (at most 70 characters)")
    .option('--creditor-iban <iban>', 'the account the collections are paid into')
    .option('--creditor-bic <bic>', 'its bank\'s BIC (optional; "" leaves it out)')
    .option(
      '--prenotification-days <n>',
      "least days between a collection's pre-notification and its date (1 to 60, default 14)",
    );

/** A whole number flag, exit 2 otherwise. */
function days(value: unknown, flag: string): number {
  const text = textOf(value).trim();
  if (!/^\d{1,3}$/.test(text)) throw new UsageError(`${flag} must be a whole number of days, not "${textOf(value)}"`);
  return Number(text);
}

export const settingsFrom = (opts: Record<string, unknown>) => ({
  ...(opts.invoicePrefix === undefined ? {} : { invoice_prefix: textOf(opts.invoicePrefix) }),
  ...(opts.timeZone === undefined ? {} : { time_zone: textOf(opts.timeZone) }),
  ...(opts.collection === undefined ? {} : { collection: textOf(opts.collection) }),
  ...(opts.creditorId === undefined ? {} : { creditor_id: textOf(opts.creditorId) }),
  ...(opts.creditorName === undefined ? {} : { creditor_name: textOf(opts.creditorName) }),
  ...(opts.creditorIban === undefined ? {} : { creditor_iban: textOf(opts.creditorIban) }),
  ...(opts.creditorBic === undefined ? {} : { creditor_bic: textOf(opts.creditorBic) }),
  ...(opts.prenotificationDays === undefined
    ? {}
    : { prenotification_days: days(opts.prenotificationDays, '--prenotification-days') }),
});
