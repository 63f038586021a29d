// Ids for the shell's completion: the newest resources of one kind, each with a few words that say
// which it is. Read through a Transport, so the embedded store and a server answer alike.
import { MAX_PAGE_SIZE } from '../schemas/vocabulary.js';
import { oneLine } from '../output/format.js';
import type { Transport } from '../transport/types.js';

/** The most ids one completion offers: one page of the API, its largest. */
export const ID_LIMIT = MAX_PAGE_SIZE;

/** How long reading ids may take by default, in seconds; past it, nothing is offered. */
export const ID_DEADLINE_SECONDS = 1;
/** The most BILLING_COMPLETION_SECONDS accepted. */
export const MAX_DEADLINE_SECONDS = 60;

/**
 * BILLING_COMPLETION_SECONDS (whole seconds, 1 to 60) lengthens the read for a slow server or a
 * loaded machine. Anything else is the default: a Tab never prints an error.
 */
export function idDeadlineMs(env: NodeJS.ProcessEnv): number {
  const raw = env.BILLING_COMPLETION_SECONDS ?? '';
  const seconds = /^[1-9][0-9]?$/.test(raw) && Number(raw) <= MAX_DEADLINE_SECONDS ? Number(raw) : ID_DEADLINE_SECONDS;
  return seconds * 1000;
}

export interface Candidate {
  id: string;
  description: string;
}

interface Resource {
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: { id?: string } | null }>;
  id?: string;
  type?: string;
}

interface Collection {
  data?: Resource[];
  included?: Resource[];
}

interface IdKind {
  path: string;
  /** Query parameters beyond the page and the order: only the fields the description uses. */
  query: Record<string, string>;
  describe(resource: Resource, related: (type: string, id: string | undefined) => Resource | undefined): string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const joined = (...parts: unknown[]): string => parts.map(text).filter(Boolean).join(' ');

const customerName = (c: Resource | undefined): string => {
  const a = c?.attributes ?? {};
  const name = joined(a.first_name, a.middle_name, a.last_name);
  return a.company_name ? (name ? `${name} (${text(a.company_name)})` : text(a.company_name)) : name;
};
const CUSTOMER_FIELDS = 'first_name,middle_name,last_name,company_name';

/**
 * The kinds of ids completed, by the name the completion scripts pass (a group's name); the noun
 * (the name without its s) is how a flag names them: --customer-id, --subscription-plan-id.
 */
export const ID_KINDS: Record<string, IdKind> = {
  customers: {
    path: '/customers',
    query: { 'fields[customer]': CUSTOMER_FIELDS },
    describe: customerName,
  },
  plans: {
    path: '/subscription-plans',
    query: { 'fields[subscription-plan]': 'name,status' },
    describe: (p) => joined(p.attributes?.name, p.attributes?.status === 'inactive' ? '(inactive)' : ''),
  },
  subscriptions: {
    path: '/subscriptions',
    query: {
      include: 'customer',
      'fields[subscription]': 'status,customer,subscription-plan',
      'fields[customer]': CUSTOMER_FIELDS,
    },
    describe: (s, related) => {
      const plan = related('subscription-plan', s.relationships?.['subscription-plan']?.data?.id);
      return [
        customerName(related('customer', s.relationships?.customer?.data?.id)),
        text(plan?.attributes?.name),
        text(s.attributes?.status),
      ]
        .filter(Boolean)
        .join(' · ');
    },
  },
  invoices: {
    path: '/invoices',
    query: { 'fields[invoice]': 'reference,status' },
    // A draft's reference is a placeholder (DRAFT): its status says as much.
    describe: (i) =>
      text(i.attributes?.reference).toLowerCase() === text(i.attributes?.status)
        ? text(i.attributes?.status)
        : joined(i.attributes?.reference, i.attributes?.status),
  },
};

/** The kind a flag's name stands for (`--subscription-plan-id`: plans), if any. */
export function idKindOfFlag(long: string): string | undefined {
  const stem = /^--(.+)-id$/.exec(long)?.[1];
  return stem === undefined ? undefined : idKindOfNoun(stem.split('-').pop()!);
}

/** The kind of a group's `<id>` argument (`customers get <id>`: customers), if any. */
export const idKindOfGroup = (group: string): string | undefined =>
  Object.hasOwn(ID_KINDS, group) ? group : undefined;

const idKindOfNoun = (noun: string): string | undefined => Object.keys(ID_KINDS).find((name) => name === `${noun}s`);

/** The newest ids of a kind (newest first), described; nothing when the service refuses. */
export async function listIds(transport: Transport, kind: string): Promise<Candidate[]> {
  const wanted = ID_KINDS[kind];
  const page = { 'page[size]': ID_LIMIT };
  const get = async (path: string, query: Record<string, string>): Promise<Collection> => {
    let response = await transport.request({ method: 'GET', path, query: { ...query, ...page, sort: '-id' } });
    // A server that knows no sort or sparse fieldsets (the hosted service documents neither): one page as it comes.
    if (response.status === 400) response = await transport.request({ method: 'GET', path, query: page });
    return response.status === 200 && typeof response.body === 'object' && response.body !== null ? response.body : {};
  };
  // A subscription is told by its plan's name: the plans come alongside (one page; most services have few).
  const [main, plans] = await Promise.all([
    get(wanted.path, wanted.query),
    kind === 'subscriptions' ? get(ID_KINDS.plans.path, ID_KINDS.plans.query) : undefined,
  ]);
  const related = new Map<string, Resource>();
  for (const resource of [...(main.included ?? []), ...(plans?.data ?? [])])
    related.set(`${resource.type}/${resource.id}`, resource);
  const lookup = (type: string, id: string | undefined) =>
    id === undefined ? undefined : related.get(`${type}/${id}`);
  return (main.data ?? [])
    .filter((resource) => typeof resource.id === 'string' && /^[\w.-]+$/.test(resource.id))
    .sort((a, b) => Number(b.id) - Number(a.id) || 0)
    .slice(0, ID_LIMIT)
    .map((resource) => ({ id: resource.id!, description: oneLine(wanted.describe(resource, lookup)).trim() }));
}
