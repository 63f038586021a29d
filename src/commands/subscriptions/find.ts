// The filter[…] and sort flags of subscription and transaction lists, and the helpers the other
// lists share, checked here so a mistake costs no request (exit 2 naming the flag). Free of zod:
// the read verbs load this.
import type { Command } from 'commander';
import { UsageError } from '../../lib/cli/errors.js';
import { parseId } from '../../lib/command/resource.js';
import {
  SUBSCRIPTION_SORT_FIELDS,
  SUBSCRIPTION_STATUSES,
  TRANSACTION_SORT_FIELDS,
  TRANSACTION_STATUSES,
} from '../../lib/schemas/vocabulary.js';
import { textOf } from '../../lib/schemas/json.js';

/** A flag's value from a fixed set, or undefined when the flag was not given. */
export function choiceFlag(value: unknown, flag: string, choices: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  const text = textOf(value).trim();
  if (!choices.includes(text))
    throw new UsageError(`${flag}: must be one of: ${choices.join(', ')} (not "${textOf(value)}")`);
  return text;
}

/** --sort FIELD or -FIELD, FIELD one of `fields`. */
export function sortFlag(value: unknown, fields: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  const sort = textOf(value).trim();
  if (!fields.includes(sort.replace(/^-/, ''))) {
    throw new UsageError(
      `--sort takes one of ${fields.join(', ')}, with a leading - for descending order (e.g. -${fields[fields.length - 1]}), not "${textOf(value)}"`,
    );
  }
  return sort;
}

/** An id given as a flag (--customer-id 42), or undefined when the flag was not given. */
export const idFlag = (value: unknown, flag: string): number | undefined =>
  value === undefined ? undefined : parseId(textOf(value), flag);

/** An id flag as the value of its filter[…] parameter. */
export const idFilter = (value: unknown, flag: string): string | undefined => idFlag(value, flag)?.toString();

/** --search, trimmed; empty is refused (it would find everything). */
export function searchFlag(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (!value.trim()) throw new UsageError('--search must not be empty');
  return value.trim();
}

// ---- subscriptions ----

export function addSubscriptionFindOptions(cmd: Command): Command {
  return cmd
    .option('--status <status>', `only subscriptions in this status (${SUBSCRIPTION_STATUSES.join(', ')})`)
    .option('--customer-id <n>', "only this customer's subscriptions")
    .option('--plan-id <n>', 'only subscriptions on this plan')
    .option(
      '--search <text>',
      'only subscriptions whose mandate code holds this text (in any case), or whose customer it finds (as customers list --search)',
    )
    .option(
      '--sort <field>',
      `order by ${SUBSCRIPTION_SORT_FIELDS.join(', ')}; -field for descending, e.g. -created_at (default: id)`,
    );
}

export function subscriptionFind(opts: Record<string, unknown>): Record<string, string | undefined> {
  const search = searchFlag(opts.search);
  return {
    'filter[status]': choiceFlag(opts.status, '--status', SUBSCRIPTION_STATUSES),
    'filter[customer_id]': idFilter(opts.customerId, '--customer-id'),
    'filter[subscription_plan_id]': idFilter(opts.planId, '--plan-id'),
    'filter[search]': search,
    sort: sortFlag(opts.sort, SUBSCRIPTION_SORT_FIELDS),
  };
}

// ---- transactions ----

export function addTransactionFindOptions(cmd: Command): Command {
  return cmd
    .option(
      '--status <status>',
      `only transactions in this status; repeat it for any of several (${TRANSACTION_STATUSES.join(', ')})`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--sort <field>',
      `order by ${TRANSACTION_SORT_FIELDS.join(', ')}; -field for descending (default: -due_date, newest first)`,
    );
}

/** --status, repeatable: the statuses as filter[status]'s comma-separated list. */
function statusesFlag(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const given = (Array.isArray(value) ? value : [value]).map((one) =>
    choiceFlag(one, '--status', TRANSACTION_STATUSES)!,
  );
  return [...new Set(given)].join(',');
}

export function transactionFind(opts: Record<string, unknown>): Record<string, string | undefined> {
  return {
    'filter[status]': statusesFlag(opts.status),
    sort: sortFlag(opts.sort, TRANSACTION_SORT_FIELDS),
  };
}
