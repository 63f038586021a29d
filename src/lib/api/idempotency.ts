// Idempotency keys: a POST sent with `Idempotency-Key: K` is carried out once per account and key.
// The same key within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and
// creates nothing; with another request (method, path, query or body) it is 422.
//
// Exactly once even across a crash: the key's row is inserted inside the request's own first write
// transaction (the store handed to the handler adds it to whichever write commits first), so the
// write and the key commit together or not at all. The answer is stored just after; a key whose
// write committed but whose answer is not stored yet (in flight, or lost in a crash in between) is
// 409 with Retry-After, never done twice. A request refused before writing stores no key: sent
// again, it is judged again.
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { Account } from '../core/context.js';
import { isLockBusy, skippedTurn, withoutWaiting, type Store } from '../store/store.js';
import { get, run, type Unit } from '../store/unit.js';
import { simpleError } from './errors.js';
import type { ApiRequest, ApiResponse } from './http.js';

export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

/** The first write found the key taken (another request with it committed meanwhile): answered from the row. */
export class KeyTakenError extends Error {
  override name = 'KeyTakenError';
}

interface KeyRow {
  request_hash: string;
  status: number | null;
  headers: string | null;
  body: string | null;
}

const requestHash = (request: ApiRequest): string =>
  createHash('sha256').update(`${request.method.toUpperCase()} ${request.path}?${request.query ?? ''}\n${request.body ?? ''}`).digest('hex');

/** Expired rows go in passing: at most once a minute per process, for every account. */
let lastSweep = 0;

/**
 * Answers a keyed request once. `handle` answers it against the store it is given (the router with
 * that store); it must rethrow KeyTakenError.
 */
export async function answerOnce(store: Store, clock: Clock, account: Account, request: ApiRequest, handle: (store: Store) => Promise<ApiResponse>): Promise<ApiResponse> {
  const key = request.idempotencyKey!;
  if (!VALID_KEY.test(key)) return simpleError(400, 'the Idempotency-Key header must be 1 to 255 visible ASCII characters');
  const hash = requestHash(request);
  const now = clock.now();
  const cutoff = new Date(now.getTime() - KEY_LIFETIME_MS).toISOString();
  const found = await store.read(() => findKey(account.id, key, cutoff));
  if (found) return echo(answerFrom(found, hash), key);

  let claimed = false;
  const claim = function* (): Unit<void> {
    // Inside the write: a key taken meanwhile (SQLite: by the writer before; PostgreSQL: a commit
    // this transaction now sees, or its insert conflicting) answers from that row instead.
    if (yield* findKey(account.id, key, cutoff)) throw new KeyTakenError(key);
    yield* run((q) => q.deleteFrom('idempotency_keys').where('account_id', '=', account.id).where('key', '=', key));
    try {
      yield* run((q) => q.insertInto('idempotency_keys').values({ account_id: account.id, key, request_hash: hash, status: null, headers: null, body: null, created_at: now.toISOString() }));
    } catch (error) {
      if (isUniqueViolation(error)) throw new KeyTakenError(key);
      throw error;
    }
  };
  const claiming = <T>(unit: () => Unit<T>, keep?: (value: T) => boolean) =>
    function* (): Unit<T> {
      const value = yield* unit();
      if (!keep || keep(value)) yield* claim();
      return value;
    };
  const settled = <T>(value: T, keep?: (value: T) => boolean): T => {
    if (!keep || keep(value)) claimed = true;
    return value;
  };
  const after = <T>(answer: T | Promise<T>, keep?: (value: T) => boolean): T | Promise<T> =>
    answer instanceof Promise ? answer.then((value) => settled(value, keep)) : settled(answer, keep);
  // The first write that commits carries the key; any later one of the same request runs as it is.
  const keyed: Store = Object.assign(Object.create(store) as Store, {
    write: <T>(unit: () => Unit<T>, keep?: (value: T) => boolean) => (claimed ? store.write(unit, keep) : after(store.write(claiming(unit, keep), keep), keep)),
    work: <T>(unit: () => Unit<T>, keep?: (value: T) => boolean) => (claimed ? store.work(unit, keep) : after(store.work(claiming(unit, keep), keep), keep)),
    writeOne: (build: Parameters<Store['writeOne']>[0]) => (claimed ? store.writeOne(build) : after(store.write(claiming(() => get(build))))),
  });

  let response: ApiResponse;
  try {
    response = await handle(keyed);
  } catch (error) {
    if (!(error instanceof KeyTakenError)) throw error;
    const taken = await store.read(() => findKey(account.id, key, cutoff));
    return echo(taken ? answerFrom(taken, hash) : inFlight(), key);
  }
  // The request's write has committed: from here on its answer is what it did, whatever the store
  // says. Kept from the answer by another process's lock on SQLite, the key stays in flight (409).
  if (claimed) {
    const { status, headers, body } = response;
    const answer = { status, headers: JSON.stringify(headers), body: body === undefined ? null : JSON.stringify(body) };
    try {
      await store.write(() =>
        run((q) =>
          q.updateTable('idempotency_keys').set(answer).where('account_id', '=', account.id).where('key', '=', key),
        ),
      );
    } catch (error) {
      if (!isLockBusy(error)) throw error;
    }
  }
  if (now.getTime() - lastSweep > 60_000) {
    lastSweep = now.getTime();
    try {
      const sweep = () => run((q) => q.deleteFrom('idempotency_keys').where('created_at', '<', cutoff));
      await withoutWaiting(store).write(sweep);
    } catch (error) {
      if (!skippedTurn(error)) throw error; // a sweep is never worth waiting for: the next one will do
    }
  }
  return echo(response, key);
}

function* findKey(accountId: number, key: string, cutoff: string): Unit<KeyRow | undefined> {
  return yield* get((q) =>
    q.selectFrom('idempotency_keys').select(['request_hash', 'status', 'headers', 'body']).where('account_id', '=', accountId).where('key', '=', key).where('created_at', '>=', cutoff),
  );
}

function answerFrom(row: KeyRow, hash: string): ApiResponse {
  if (row.request_hash !== hash) return simpleError(422, 'this Idempotency-Key was used with a different request (method, path or body) in the last 24 hours; use a new key for a new request');
  if (row.status === null) return inFlight();
  const replayed: ApiResponse = { status: row.status, headers: { ...(JSON.parse(row.headers ?? '{}') as Record<string, string>), 'idempotent-replayed': 'true' } };
  if (row.body !== null) replayed.body = JSON.parse(row.body);
  return replayed;
}

const inFlight = (): ApiResponse =>
  simpleError(409, 'a request with this Idempotency-Key was carried out and its answer is not stored yet; it was not done again, ask again shortly', { 'retry-after': '1' });

/** Every answer to a keyed request names the key: how a client learns that this server honours keys. */
const echo = (response: ApiResponse, key: string): ApiResponse => ({ ...response, headers: { ...response.headers, 'idempotency-key': key } });

const isUniqueViolation = (error: unknown): boolean => {
  const code = (error as { code?: string } | undefined)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
};
