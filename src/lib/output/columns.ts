// The columns of list tables, per resource type, and how each behaves when the terminal is narrow.
//
// priority: how much a person needs the column; 0 is kept longest (the id), the highest number is
// dropped first when the table does not fit the terminal.
// truncate: the column is flexible: long values may be cut (ending in "…") down to minWidth, and
// it is cut rather than dropped while cutting is enough. Names, emails and codes are; ids, states,
// money, dates, URLs and short enumerations are not (a cut amount or date would mislead, a cut URL
// cannot be opened; a payment method is better left out whole than cut). A URL column is whole or,
// at narrow widths, dropped: TSV, CSV and --json always have it.
// state: the value is a state (status, archived) and is coloured by its meaning on a terminal.
import { formatDate, formatMoney, formatValue, label, MONEY, timesQuantity } from './format.js';
import { textOf } from '../schemas/json.js';

export interface ResourceLike {
  type: string;
  id: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: unknown }>;
  meta?: Record<string, unknown>;
}

export interface Column {
  header: string;
  value(resource: ResourceLike): string;
  priority: number;
  align: 'left' | 'right';
  /** The narrowest a truncatable column is cut to (non-truncatable columns keep their width). */
  minWidth: number;
  truncate: boolean;
  state?: boolean;
  /** On a terminal, left out when no row has a value (TSV keeps every column, so fields stay put). */
  hideWhenEmpty?: boolean;
}

type Options = Partial<Omit<Column, 'header' | 'value'>>;

const column = (header: string, value: Column['value'], options: Options = {}): Column => ({
  header,
  value,
  priority: options.priority ?? 1,
  align: options.align ?? 'left',
  minWidth: options.minWidth ?? header.length,
  truncate: options.truncate ?? false,
  state: options.state,
  hideWhenEmpty: options.hideWhenEmpty,
});

const attr = (name: string, header: string, options: Options = {}): Column =>
  column(header, (r) => formatValue(name, r.attributes?.[name]), options);
const money = (name: string, header: string, priority: number): Column =>
  attr(name, header, { priority, align: 'right' });
const status = (priority: number): Column => attr('status', 'status', { priority, state: true });
const date = (name: string, header: string, priority: number): Column =>
  column(header, (r) => formatDate(r.attributes?.[name]), { priority });
/** A text in the resource's meta (an extension's), '' when it is absent or not text. */
const metaText = (r: ResourceLike, ...path: string[]): string => {
  let value: unknown = r.meta;
  for (const key of path)
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : '';
};

/** The id of a to-one relationship, '' when there is none. */
export const relatedId = (r: ResourceLike, name: string): string => {
  const data = r.relationships?.[name]?.data as { id?: string } | null | undefined;
  return data && !Array.isArray(data) && data.id ? data.id : '';
};
/**
 * Whose a row is, by the name the service gives in the row's meta (this server's lists do), else by
 * the related id (a server that gives no names).
 */
const named = (name: string, metaKey: string, header: string, priority: number): Column =>
  column(header, (r) => metaText(r, metaKey, 'name') || relatedId(r, name), { priority, truncate: true, minWidth: 8 });
const id = column('id', (r) => r.id, { priority: 0 });
/** Accounts and profiles are named, not numbered: the name is their id. */
const name = column('name', (r) => r.id, { priority: 0, truncate: true, minWidth: 8 });

/** A transaction's collection attempts (from its history), shown when it was retried: '' for the first. */
const attempts = (r: ResourceLike): string => {
  const history = r.attributes?.history;
  const highest = Array.isArray(history)
    ? Math.max(0, ...history.map((item) => Number((item as { attempt?: unknown } | null)?.attempt) || 0))
    : 0;
  return highest > 1 ? String(highest) : '';
};

/** An invoice line's total including tax: quantity x unit incl, exact; '' when the service gave neither. */
export const lineTotal = (r: ResourceLike): string => {
  const total = timesQuantity(r.attributes?.amount_incl, r.attributes?.quantity);
  return total === undefined ? '' : formatMoney(total);
};

/** A customer's name as lists show it: first, middle and last, else the company. */
export const personName = (r: ResourceLike): string =>
  ['first_name', 'middle_name', 'last_name']
    .map((n) => r.attributes?.[n])
    .filter(Boolean)
    .join(' ') || formatValue('company_name', r.attributes?.company_name);

export const COLUMNS: Record<string, Column[]> = {
  // The archived state gets a column of its own ("archived", or empty for a customer in use): a
  // marker inside the name would be cut off with the name, and a column keeps TSV fields stable.
  // On a terminal it shows only when a customer on the page is archived: it costs no width otherwise.
  customer: [
    id,
    column('name', personName, { priority: 1, truncate: true, minWidth: 10 }),
    attr('email', 'email', { priority: 3, truncate: true, minWidth: 10 }),
    attr('payment_method', 'payment method', { priority: 5 }),
    date('created_at', 'created', 4),
    column('state', (r) => (r.attributes?.archived === true ? 'archived' : ''), {
      priority: 2,
      state: true,
      hideWhenEmpty: true,
    }),
  ],
  'subscription-plan': [
    id,
    attr('name', 'name', { priority: 1, truncate: true, minWidth: 10 }),
    money('amount', 'amount', 2),
    attr('frequency', 'frequency', { priority: 3 }),
    status(1),
    attr('mandate_authentication_method', 'mandate method', { priority: 5 }),
  ],
  subscription: [
    id,
    named('customer', 'customer', 'customer', 1),
    named('subscription-plan', 'plan', 'plan', 2),
    status(1),
    attr('mandate_code', 'mandate', { priority: 5, truncate: true, minWidth: 7 }),
    date('start_date', 'start', 4),
  ],
  // Transaction ids are UUIDs: on a terminal each shows as its shortest start that no other row has
  // (8 characters or more; see listTable), which `transactions get` takes as git takes a commit's.
  transaction: [
    column('id', (r) => r.id, { priority: 0 }),
    status(1),
    date('due_date', 'due date', 2),
    money('amount', 'amount', 1),
    attr('payment_method', 'payment method', { priority: 5 }),
    attr('description', 'description', { priority: 4, truncate: true, minWidth: 10 }),
    column('attempts', attempts, { priority: 6, align: 'right', hideWhenEmpty: true }),
  ],
  // References are never cut (a cut one names another invoice); a draft's is DRAFT until it is finalised.
  // The customer's name is cut before the invoice date gives way (on 80 columns both fit so).
  invoice: [
    id,
    attr('reference', 'reference', { priority: 1 }),
    status(1),
    named('customer', 'customer', 'customer', 4),
    money('amount_incl', 'amount incl', 2),
    date('invoice_date', 'invoice date', 3),
    date('transaction_date', 'transaction date', 5),
  ],
  // A line's amounts are per unit (the service's amount_excl and amount_incl): said so, and its
  // total beside them, quantity x unit incl (what the invoice's total adds up).
  'invoice-line': [
    id,
    attr('description', 'description', { priority: 1, truncate: true, minWidth: 10 }),
    attr('quantity', 'quantity', { priority: 2, align: 'right' }),
    money('amount_excl', 'unit excl', 5),
    attr('tax_rate', 'tax rate', { priority: 4, align: 'right' }),
    money('amount_incl', 'unit incl', 3),
    column('total incl', lineTotal, { priority: 1, align: 'right' }),
  ],
  notification: [
    id,
    attr('kind', 'kind', { priority: 1 }),
    attr('channel', 'channel', { priority: 3 }),
    attr('recipient', 'recipient', { priority: 2, truncate: true, minWidth: 10 }),
    attr('subject', 'subject', { priority: 4, truncate: true, minWidth: 10 }),
    date('created_at', 'created', 5),
    // The day it went by email; "no (2 tries)" while it has not; empty when nothing was tried.
    column(
      'sent',
      (r) => {
        const sent = r.attributes?.sent_at;
        if (typeof sent === 'string') return formatDate(sent);
        const tries = r.attributes?.send_attempts;
        return typeof tries === 'number' && tries > 0 ? `no (${tries} ${tries === 1 ? 'try' : 'tries'})` : '';
      },
      { priority: 3, hideWhenEmpty: true },
    ),
  ],
  event: [
    id,
    attr('event', 'event', { priority: 1 }),
    attr('subscription_id', 'subscription', { priority: 2, align: 'right' }),
    attr('transaction_id', 'transaction', { priority: 4, truncate: true, minWidth: 8 }),
    date('occurred_at', 'occurred', 3),
  ],
  'webhook-delivery': [
    id,
    attr('event', 'event', { priority: 1 }),
    status(2),
    // Whole or not at all, so the first to give way: a long URL would push out the columns after it.
    attr('url', 'URL', { priority: 6 }),
    attr('attempts', 'tries', { priority: 4, align: 'right' }),
    // What the receiver last said: its status, or why there was no answer.
    column('last answer', (r) => textOf(r.attributes?.last_status ?? r.attributes?.last_error ?? ''), {
      priority: 5,
      truncate: true,
      minWidth: 8,
      hideWhenEmpty: true,
    }),
  ],
  // SEPA: batches, the bank's reports read back, and what collections create or import left aside.
  collection: [
    id,
    status(1),
    attr('message_id', 'MsgId', { priority: 3, truncate: true, minWidth: 10 }),
    attr('transactions', 'transactions', { priority: 1, align: 'right' }),
    attr('control_sum', 'control sum', { priority: 2, align: 'right' }),
    date('due_until', 'due until', 4),
    date('exported_at', 'exported', 5),
  ],
  'bank-report': [
    id,
    column('file', (r) => textOf(r.meta?.file ?? ''), {
      priority: 2,
      truncate: true,
      minWidth: 8,
      hideWhenEmpty: true,
    }),
    attr('format', 'format', { priority: 3 }),
    attr('booked', 'booked', { priority: 1, align: 'right' }),
    attr('rejected', 'rejected', { priority: 1, align: 'right' }),
    attr('returned', 'returned', { priority: 1, align: 'right' }),
    attr('unchanged', 'unchanged', { priority: 4, align: 'right' }),
    attr('unmatched', 'unmatched', { priority: 1, align: 'right' }),
  ],
  'left-out': [
    column('transaction', (r) => r.id, { priority: 0 }),
    attr('subscription_id', 'subscription', { priority: 3, align: 'right' }),
    date('due_date', 'due date', 2),
    attr('amount', 'amount', { priority: 2, align: 'right' }),
    attr('reason', 'reason', { priority: 1, truncate: true, minWidth: 16 }),
  ],
  'unmatched-entry': [
    column('EndToEndId', (r) => r.id, { priority: 0 }),
    attr('file', 'file', { priority: 4, truncate: true, minWidth: 8 }),
    attr('outcome', 'outcome', { priority: 2 }),
    attr('reason_code', 'code', { priority: 3, hideWhenEmpty: true }),
    attr('amount', 'amount', { priority: 2, align: 'right' }),
    attr('reason', 'reason', { priority: 1, truncate: true, minWidth: 16 }),
  ],
  // What moving the store's clock changed (billing clock advance): a kind of status change and how many.
  'clock-change': [
    column('change', (r) => r.id, { priority: 0 }),
    attr('count', 'count', { priority: 0, align: 'right' }),
  ],
  account: [
    name,
    attr('invoice_prefix', 'invoice prefix', { priority: 3, truncate: true, minWidth: 6 }),
    attr('time_zone', 'time zone', { priority: 2, truncate: true, minWidth: 9 }),
    attr('default', 'default', { priority: 1 }),
  ],
  profile: [
    name,
    attr('base_url', 'base URL', { priority: 2 }),
    attr('api_key', 'API key', { priority: 4 }),
    attr('db', 'db', { priority: 3 }),
    attr('current', 'current', { priority: 1 }),
  ],
};

/**
 * The account's transactions (GET /transactions) bring their customer and last reason in meta: who
 * and why are the point of that list (failed collections). On a terminal the id shows as its start
 * (see listTable), 8 wide; on 80 columns it still gives way before them (TSV, CSV and --json always
 * have it whole). A subscription's list keeps its own columns.
 */
const ACCOUNT_TRANSACTIONS: Column[] = [
  column('id', (r) => r.id, { priority: 4 }),
  status(1),
  date('due_date', 'due date', 2),
  money('amount', 'amount', 1),
  column('customer', (r) => metaText(r, 'customer', 'name'), { priority: 2, truncate: true, minWidth: 8 }),
  column('code', (r) => metaText(r, 'reason_code'), { priority: 2, hideWhenEmpty: true }),
  column('reason', (r) => metaText(r, 'reason'), { priority: 3, truncate: true, minWidth: 10, hideWhenEmpty: true }),
  attr('payment_method', 'payment method', { priority: 6 }),
  attr('description', 'description', { priority: 5, truncate: true, minWidth: 10 }),
  column('attempts', attempts, { priority: 7, align: 'right', hideWhenEmpty: true }),
];

/** Columns for a type this CLI does not know yet (the hosted service may add some): id and a few attributes. */
export function columnsFor(type: string, sample: ResourceLike | undefined): Column[] {
  if (type === 'transaction' && sample?.meta?.customer !== undefined) return ACCOUNT_TRANSACTIONS;
  return (
    COLUMNS[type] ?? [
      id,
      ...Object.keys(sample?.attributes ?? {})
        .slice(0, 5)
        .map((key, i) =>
          key === 'status'
            ? status(i + 1)
            : MONEY.has(key)
              ? money(key, label(key), i + 1)
              : attr(key, label(key), { priority: i + 1, truncate: true, minWidth: 8 }),
        ),
    ]
  );
}

/** Plural nouns for messages: "no customers", "47 customers". */
export const NOUNS: Record<string, [string, string]> = {
  customer: ['customer', 'customers'],
  'subscription-plan': ['plan', 'plans'],
  subscription: ['subscription', 'subscriptions'],
  transaction: ['transaction', 'transactions'],
  notification: ['notification', 'notifications'],
  invoice: ['invoice', 'invoices'],
  'invoice-line': ['line', 'lines'],
  'clock-change': ['change', 'changes'],
  event: ['event', 'events'],
  'webhook-delivery': ['webhook delivery', 'webhook deliveries'],
  collection: ['collection', 'collections'],
  'bank-report': ['bank report', 'bank reports'],
};

export const noun = (type: string, count: number): string => {
  const [one, many] = NOUNS[type] ?? [type, `${type}s`];
  return count === 1 ? one : many;
};
