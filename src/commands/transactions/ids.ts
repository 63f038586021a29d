import type { Deps } from '../../lib/command/deps.js';
import { ApiError, UsageError } from '../../lib/cli/errors.js';
import { send } from '../../lib/command/resource.js';
import { formatMoney } from '../../lib/output/format.js';

/** Transaction ids are UUIDs (the service makes version 4; any UUID shape is accepted). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The start of one, as git takes a commit's: 8 hex digits or more, hyphens optional. */
const PREFIX = /^(?=(?:[0-9a-f]-?){8,32}$)[0-9a-f][0-9a-f-]*$/i;

const refused = (value: string) =>
  new UsageError(
    `ID must be a transaction id: a UUID such as ffa38848-6abc-4d22-b6b0-63fe1780969c, or its first 8 hex digits or more (ffa38848), not "${value}"`,
  );

interface Candidate {
  id: string;
  attributes: { status?: string; due_date?: string; amount?: number | string };
}

/**
 * A whole id as it is, or the one transaction whose id starts with the hex digits given (as git
 * takes a commit's), looked up through GET /transactions?filter[id_prefix]. None is the service's
 * 404; several are exit 2 listing them, since a command must never act on a guess.
 */
export async function resolveTransactionId(deps: Deps, value: string): Promise<string> {
  const text = value.trim();
  if (UUID.test(text)) return text.toLowerCase();
  if (!PREFIX.test(text)) throw refused(value);
  let found: Candidate[];
  try {
    const response = await send(deps, {
      method: 'GET',
      path: '/transactions',
      query: { 'filter[id_prefix]': text, 'page[size]': 10, sort: 'created_at' },
    });
    found = (response.body as { data: Candidate[] }).data;
  } catch (error) {
    // A server without the account-wide list (the hosted service) cannot look a prefix up.
    if (error instanceof ApiError && (error.status === 404 || error.status === 400))
      throw new UsageError(
        `this server cannot find a transaction by the start of its id: give the whole id, not "${text}"`,
      );
    throw error;
  }
  if (found.length === 1) return found[0].id;
  if (found.length === 0)
    throw new ApiError(404, {
      errors: [{ status: '404', title: 'Not Found', detail: `no transaction has an id starting with ${text}` }],
    });
  const lines = found.map(
    (t) =>
      `  ${t.id}  ${t.attributes.status ?? ''}  ${t.attributes.due_date?.slice(0, 10) ?? ''}  ${t.attributes.amount === undefined ? '' : formatMoney(t.attributes.amount)}`,
  );
  throw new UsageError(
    `${text} is the start of ${found.length === 10 ? '10 or more' : found.length} transaction ids; give more of it:\n${lines.join('\n')}`,
  );
}
