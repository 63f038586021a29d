// The columns a person needs first, per resource type, for list tables.
import { formatDate, formatValue } from './format.js';

export interface ResourceLike {
  type: string;
  id: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: unknown }>;
}

export interface Column {
  header: string;
  value(resource: ResourceLike): string;
}

const attr = (name: string, header = name.replace(/_/g, ' ')): Column => ({ header, value: (r) => formatValue(name, r.attributes?.[name]) });
const date = (name: string, header: string): Column => ({ header, value: (r) => formatDate(r.attributes?.[name]) });
const related = (name: string, header = name): Column => ({
  header,
  value: (r) => {
    const data = r.relationships?.[name]?.data as { id?: string } | null | undefined;
    return data && !Array.isArray(data) && data.id ? data.id : '';
  },
});
const id: Column = { header: 'id', value: (r) => r.id };

export const COLUMNS: Record<string, Column[]> = {
  customer: [
    id,
    { header: 'name', value: (r) => ['first_name', 'middle_name', 'last_name'].map((n) => r.attributes?.[n]).filter(Boolean).join(' ') },
    attr('email'),
    attr('payment_method', 'payment method'),
    date('created_at', 'created'),
  ],
  'subscription-plan': [id, attr('name'), attr('amount'), attr('frequency'), attr('status'), attr('mandate_authentication_method', 'mandate method')],
  account: [{ header: 'name', value: (r) => r.id }, attr('invoice_prefix', 'invoice prefix'), attr('time_zone', 'time zone'), attr('default')],
  profile: [{ header: 'name', value: (r) => r.id }, attr('base_url', 'base url'), attr('api_key', 'api key'), attr('db'), attr('current')],
  subscription: [id, related('customer'), related('subscription-plan', 'plan'), attr('status'), attr('mandate_code', 'mandate'), date('start_date', 'start')],
};

/** Columns for a type this CLI does not know yet (the hosted service may add some): id and a few attributes. */
export function columnsFor(type: string, sample: ResourceLike | undefined): Column[] {
  return COLUMNS[type] ?? [id, ...Object.keys(sample?.attributes ?? {}).slice(0, 5).map((name) => attr(name))];
}

/** Plural nouns for messages: "no customers", "47 customers". */
export const NOUNS: Record<string, [string, string]> = {
  customer: ['customer', 'customers'],
  'subscription-plan': ['plan', 'plans'],
  subscription: ['subscription', 'subscriptions'],
};

export const noun = (type: string, count: number): string => {
  const [one, many] = NOUNS[type] ?? [type, `${type}s`];
  return count === 1 ? one : many;
};
