// transactions list: the account's transactions (GET /transactions, an extension of billing serve),
// newest due date first, found by status, reason code, due date and customer: failed collections in
// one place. With --subscription-id alone, one subscription's (GET /subscriptions/{id}/transactions,
// which the hosted service has too).
import type { Command } from 'commander';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { addListOptions, listOptions, runList } from '../../lib/command/resource.js';
import { DAY_MESSAGE, isDay } from '../../lib/schemas/reports.js';
import { textOf } from '../../lib/schemas/json.js';
import { addTransactionFindOptions, idFilter, idFlag, transactionFind } from '../subscriptions/find.js';
import { TRANSACTION } from './index.js';

/** A day flag (--due-from 2026-11-01), or undefined when it was not given. */
function dayFlag(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const day = textOf(value).trim();
  if (!isDay(day)) throw new UsageError(`${flag} ${DAY_MESSAGE}, not "${textOf(value)}"`);
  return day;
}

function reasonCodeFlag(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const code = textOf(value).trim();
  if (!/^[A-Za-z0-9]{4}$/.test(code))
    throw new UsageError(`--reason-code must be a SEPA reason code, 4 letters and digits (e.g. AM04), not "${code}"`);
  return code.toUpperCase();
}

/** The filters only the account's list has. */
function accountFind(opts: Record<string, unknown>): Record<string, string | undefined> {
  const dueFrom = dayFlag(opts.dueFrom, '--due-from');
  const dueTo = dayFlag(opts.dueTo, '--due-to');
  if (dueFrom !== undefined && dueTo !== undefined && dueFrom > dueTo)
    throw new UsageError(`--due-from ${dueFrom} is after --due-to ${dueTo}: nothing could be found`);
  return {
    'filter[reason_code]': reasonCodeFlag(opts.reasonCode),
    'filter[due_from]': dueFrom,
    'filter[due_to]': dueTo,
    'filter[customer_id]': idFilter(opts.customerId, '--customer-id'),
  };
}

export function configure(cmd: Command, invoke: Invoke): void {
  addTransactionFindOptions(
    addListOptions(cmd, [])
      .option('--reason-code <code>', 'only transactions whose last SEPA reason code is this one (e.g. AM04)')
      .option('--due-from <day>', 'only transactions due on or after this day, YYYY-MM-DD')
      .option('--due-to <day>', 'only transactions due on or before this day, YYYY-MM-DD')
      .option('--customer-id <n>', "only this customer's transactions")
      .option('--subscription-id <n>', "only this subscription's transactions"),
  ).action((opts: Record<string, unknown>, command: Command) =>
    invoke(command, async (deps) => {
      const subscription = idFlag(opts.subscriptionId, '--subscription-id');
      const find = { ...transactionFind(opts), ...accountFind(opts) };
      const accountWide = Object.entries(find).some(
        ([name, value]) => value !== undefined && name !== 'filter[status]' && name !== 'sort',
      );
      // A subscription's own list is the hosted service's too: used whenever it can answer.
      if (subscription !== undefined && !accountWide)
        return runList(deps, `/subscriptions/${subscription}/transactions`, TRANSACTION.type, {
          ...listOptions(opts),
          find,
        });
      await runList(deps, TRANSACTION.path, TRANSACTION.type, {
        ...listOptions(opts),
        find: { ...find, 'filter[subscription_id]': subscription?.toString() },
      });
    }),
  );
  cmd.addHelpText(
    'after',
    examples(
      'billing transactions list --status charged_back --status failed --due-from 2026-11-01',
      'billing transactions list --reason-code AM04 --customer-id 42',
      'billing transactions list --subscription-id 7 --sort due_date --all --json',
    ),
  );
}
