// Idempotency keys: a POST sent with `Idempotency-Key: K` is carried out once per account and key.
// The same key within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and
// creates nothing; with another request (method, path, query or body) it is 422.
//
// Exactly once even across a crash. Every write of a keyed request records, inside its own
// transaction, what it gave back: the first inserts the key's row, each later one appends to it
// only if nobody appended meanwhile. So a write and its record commit together or not at all. The
// answer is stored just after. A key whose answer is missing (its request still in flight, or cut
// off by a crash in between) is answered by running the request again with each recorded write
// standing in for its own: nothing recorded is done again, a write not reached is done once, and
// the answer is made from the same values at the same instant (a keyed request runs at the instant
// its key was first seen). A request refused before writing stores no key: sent again, it is
// judged again.
import { createHash } from 'node:crypto';
import { fixedClock, type Clock } from '../core/clock.js';
import type { Account } from '../core/context.js';
import {
  appendWrites,
  findKey,
  KeyTakenError,
  storeAnswer,
  sweepKeys,
  takeKey,
  type KeyOf,
  type KeyRow,
} from '../core/idempotency-keys.js';
import { isLockBusy, skippedTurn, withoutWaiting, type Store } from '../store/store.js';
import { andThen, get, type Build, type MaybePromise, type Unit } from '../store/unit.js';
import { errorResponse, simpleError } from './errors.js';
import type { ApiRequest, ApiResponse } from './http.js';

export { KeyTakenError };

export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;
/** Runs of one request in a row that another run of its key overtook (recorded a write first). */
const MAX_RUNS = 5;

const requestHash = (request: ApiRequest): string =>
  createHash('sha256')
    .update(`${request.method.toUpperCase()} ${request.path}?${request.query ?? ''}\n${request.body ?? ''}`)
    .digest('hex');

/** Expired rows go in passing: at most once a minute per process, for every account. */
let lastSweep = 0;

/**
 * Answers a keyed request once. `handle` answers it against the store and clock it is given (the
 * router with them); it must rethrow KeyTakenError.
 */
export async function answerOnce(
  store: Store,
  clock: Clock,
  account: Account,
  request: ApiRequest,
  handle: (store: Store, clock: Clock) => Promise<ApiResponse>,
): Promise<ApiResponse> {
  const key = request.idempotencyKey!;
  if (!VALID_KEY.test(key)) {
    return errorResponse(400, [
      {
        status: '400',
        title: 'Invalid Parameter',
        detail: 'the Idempotency-Key header must be 1 to 255 visible ASCII characters',
        source: { header: 'Idempotency-Key' },
      },
    ]);
  }
  const hash = requestHash(request);
  const now = clock.now();
  const cutoff = new Date(now.getTime() - KEY_LIFETIME_MS).toISOString();
  const lookup = () => store.read(() => findKey(account.id, key, cutoff));
  let found = await lookup();
  for (let runs = 1; ; runs++) {
    if (found) {
      if (found.request_hash !== hash) return echo(otherRequest(), key);
      if (found.status !== null) return echo(storedAnswer(found), key);
      // A key stored before writes were recorded has nothing to answer from: its first answer may still come.
      if (found.writes === null || runs > MAX_RUNS) return echo(inFlight(), key);
    }
    const at = found?.created_at ?? now.toISOString();
    const keyed = keyedRun(store, { accountId: account.id, key, hash, at, cutoff }, found?.writes ?? null);
    let response: ApiResponse;
    try {
      response = await handle(keyed.store, fixedClock(at));
    } catch (error) {
      if (!(error instanceof KeyTakenError)) throw error;
      found = await lookup();
      continue;
    }
    if (keyed.unreached()) return echo(diverged(), key);
    // A 5xx is no answer to keep: sent again, the request goes on from its recorded writes.
    if (keyed.recorded() && response.status < 500) {
      const answer = {
        status: response.status,
        headers: JSON.stringify(response.headers),
        body: response.body === undefined ? null : JSON.stringify(response.body),
      };
      // The request's writes have committed: its answer is what it did, whatever the store says.
      // Kept from storing it by another process's lock on SQLite, the key is answered next time
      // from its recorded writes.
      try {
        await store.write(() => storeAnswer(account.id, key, answer));
      } catch (error) {
        if (!isLockBusy(error)) throw error;
      }
    }
    if (now.getTime() - lastSweep > 60_000) {
      lastSweep = now.getTime();
      try {
        await withoutWaiting(store).write(() => sweepKeys(cutoff));
      } catch (error) {
        if (!skippedTurn(error)) throw error; // a sweep is never worth waiting for: the next one will do
      }
    }
    return echo(keyed.replayed() ? replayedAs(response) : response, key);
  }
}

/**
 * One run of a keyed request: a store whose writes record their values in the key's row (the
 * first write inserts it), and give back the values `writes` recorded instead of running again.
 */
function keyedRun(store: Store, the: KeyOf, writes: string | null) {
  const { accountId, key, hash, at, cutoff } = the;
  const recorded = writes === null ? [] : (JSON.parse(writes) as unknown[]);
  let text = writes;
  let made = 0;
  let calls = 0;
  /** The row's writes with this value appended, as the attempt now running would commit them. */
  let pending: string | null = null;

  function* record(value: unknown): Unit<void> {
    const item = JSON.stringify(value ?? null);
    const next = text === null ? `[${item}]` : `${text.slice(0, -1)},${item}]`;
    if (text === null) yield* takeKey({ accountId, key, hash, at, cutoff }, next);
    else yield* appendWrites(accountId, key, text, next);
    pending = next;
  }

  const recording = <T>(unit: () => Unit<T>, keep?: (value: T) => boolean) =>
    function* (): Unit<T> {
      const value = yield* unit();
      if (!keep || keep(value)) yield* record(value);
      return value;
    };
  const settled = <T>(value: T, keep?: (value: T) => boolean): T => {
    if (!keep || keep(value)) {
      text = pending;
      made++;
    }
    return value;
  };
  const lift = <T>(value: T): MaybePromise<T> => (store.engine === 'postgres' ? Promise.resolve(value) : value);
  type Keep<T> = ((value: T) => boolean) | undefined;
  type Write<T> = (unit: () => Unit<T>, keep: Keep<T>) => MaybePromise<T>;
  const once = <T>(unit: () => Unit<T>, keep: Keep<T>, write: Write<T>): MaybePromise<T> => {
    const n = calls++;
    if (n < recorded.length) return lift(recorded[n] as T);
    return andThen(write(recording(unit, keep), keep), (value) => settled(value, keep));
  };
  const keyed: Store = Object.assign(Object.create(store) as Store, {
    write: <T>(unit: () => Unit<T>, keep?: (value: T) => boolean) => once(unit, keep, (u, k) => store.write(u, k)),
    work: <T>(unit: () => Unit<T>, keep?: (value: T) => boolean) => once(unit, keep, (u, k) => store.work(u, k)),
    writeOne: <R>(build: Build<R>) =>
      once(
        () => get(build),
        undefined,
        (u) => store.write(u),
      ),
  });
  return {
    store: keyed,
    /** Whether the key has a row: a write of the request committed, in this run or before. */
    recorded: () => recorded.length + made > 0,
    replayed: () => recorded.length > 0,
    /** Whether this run ended before making as many writes as were recorded: it took another course. */
    unreached: () => calls < recorded.length,
  };
}

function storedAnswer(row: KeyRow): ApiResponse {
  const headers = JSON.parse(row.headers ?? '{}') as Record<string, string>;
  const answer: ApiResponse = { status: row.status!, headers };
  if (row.body !== null) answer.body = JSON.parse(row.body);
  return replayedAs(answer);
}

const replayedAs = (response: ApiResponse): ApiResponse => ({
  ...response,
  headers: { ...response.headers, 'idempotent-replayed': 'true' },
});

const otherRequest = (): ApiResponse =>
  simpleError(
    422,
    'this Idempotency-Key was used with a different request (method, path or body) in the last 24 hours; use a new key for a new request',
  );

const inFlight = (): ApiResponse =>
  simpleError(
    409,
    'a request with this Idempotency-Key was carried out and its answer is not stored yet; it was not done again, ask again shortly',
    { 'retry-after': '1' },
  );

const diverged = (): ApiResponse =>
  simpleError(
    409,
    'a request with this Idempotency-Key was carried out, but its answer cannot be made again (the request is now judged differently); it was not done again',
  );

/** Every answer to a keyed request names the key: how a client learns that this server honours keys. */
const echo = (response: ApiResponse, key: string): ApiResponse => ({
  ...response,
  headers: { ...response.headers, 'idempotency-key': key },
});
