// The rows of idempotency keys (see api/idempotency.ts for what a key promises): found, taken by a
// request's first write, appended to by each later one, given the answer, and swept after 24 hours.
import type { Updateable } from 'kysely';
import type { IdempotencyKeyRow } from '../store/schema.js';
import { get, run, type Unit } from '../store/unit.js';

/** A write found its slot of the key taken (another run of the request recorded it first): answered from the row. */
export class KeyTakenError extends Error {
  override name = 'KeyTakenError';
}

export interface KeyRow {
  request_hash: string;
  status: number | null;
  headers: string | null;
  body: string | null;
  created_at: string;
  writes: string | null;
}

/** Which key a run is of, and when it was first seen. */
export interface KeyOf {
  accountId: number;
  key: string;
  hash: string;
  at: string;
  cutoff: string;
}

/** Sets columns of one key's row; with `writes`, only while its writes are still those. */
const updateKey = (accountId: number, key: string, set: Updateable<IdempotencyKeyRow>, writes?: string): Unit<number> =>
  run((q) => {
    const query = q.updateTable('idempotency_keys').set(set).where('account_id', '=', accountId).where('key', '=', key);
    return writes === undefined ? query : query.where('writes', '=', writes);
  });

/** A key's row, unless it expired (created before `cutoff`). */
export function* findKey(accountId: number, key: string, cutoff: string): Unit<KeyRow | undefined> {
  return yield* get((q) =>
    q
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'status', 'headers', 'body', 'created_at', 'writes'])
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('created_at', '>=', cutoff),
  );
}

/** The first write of a keyed request makes the key's row, holding that write's record (`writes`). */
export function* takeKey(the: KeyOf, writes: string): Unit<void> {
  const { accountId, key, hash, at, cutoff } = the;
  // A key taken meanwhile (SQLite: by the writer before; PostgreSQL: a commit this transaction
  // now sees, or its insert conflicting) is answered from that row instead.
  if (yield* findKey(accountId, key, cutoff)) throw new KeyTakenError(key);
  // An expired row of the same key goes: the key is free again.
  yield* run((q) => q.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key));
  const row = { account_id: accountId, key, request_hash: hash, created_at: at, writes };
  try {
    yield* run((q) => q.insertInto('idempotency_keys').values(row));
  } catch (error) {
    if (isUniqueViolation(error)) throw new KeyTakenError(key);
    throw error;
  }
}

/** A later write's record, appended only to the writes this run knows: another run that got here first wins. */
export function* appendWrites(accountId: number, key: string, known: string, writes: string): Unit<void> {
  const changed = yield* updateKey(accountId, key, { writes }, known);
  if (changed !== 1) throw new KeyTakenError(key);
}

/** The answer a keyed request gave, kept for its replays. */
export const storeAnswer = (
  accountId: number,
  key: string,
  answer: { status: number; headers: string; body: string | null },
): Unit<number> => updateKey(accountId, key, answer);

/** Expired keys go, for every account. */
export const sweepKeys = (cutoff: string): Unit<number> =>
  run((q) => q.deleteFrom('idempotency_keys').where('created_at', '<', cutoff));

const isUniqueViolation = (error: unknown): boolean => {
  const code = (error as { code?: string } | undefined)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
};
