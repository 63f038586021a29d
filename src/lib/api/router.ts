// The route table: METHOD + path to one handler, answering exactly what the HTTP API answers.
// Both doors (the embedded transport and `billing serve`) call handle(); neither adds behaviour.
import type { Clock } from '../core/clock.js';
import type { Account } from '../core/context.js';
import { isLockBusy, type KeyGuard, type Store } from '../store/store.js';
import { andThen, type MaybePromise, type Unit } from '../store/unit.js';
import { simpleError } from './errors.js';
import type { ApiRequest, ApiResponse } from './http.js';
import type { RequestContext } from './handlers/context.js';
import * as collections from './handlers/collections.js';
import * as customers from './handlers/customers.js';
import * as events from './handlers/events.js';
import * as invoices from './handlers/invoices.js';
import * as plans from './handlers/plans.js';
import * as reports from './handlers/reports.js';
import * as subscriptions from './handlers/subscriptions.js';
import * as transactions from './handlers/transactions.js';

/** A read is a unit run inside one read snapshot of the store: its rows, counts and ids agree. */
type ReadHandler = (rc: RequestContext) => Unit<ApiResponse>;
/** A write loads its module on first use (reads never pay for the request schemas) and runs its own write transaction. */
type WriteHandler = (rc: RequestContext) => Promise<ApiResponse>;
/** A GET that writes before it answers (an export marks its batch exported): run like a write, after the turn's reads. */
type LateRead = { later: WriteHandler };
type Methods = { GET?: ReadHandler | LateRead; uploads?: true } & Partial<
  Record<'POST' | 'PATCH' | 'DELETE', WriteHandler>
>;

const customerWrites = () => import('./handlers/customer-writes.js');
const subscriptionWrites = () => import('./handlers/subscription-writes.js');
const transactionWrites = () => import('./handlers/transaction-writes.js');
const invoiceWrites = () => import('./handlers/invoice-writes.js');
const invoiceFinalise = () => import('./handlers/invoice-finalise.js');
const collectionWrites = () => import('./handlers/collection-writes.js');

/**
 * Path patterns; `:id` matches a numeric id only, so `/customers/abc` is 404 like any unknown path,
 * and so is an id above 2^53 - 1 (Number.MAX_SAFE_INTEGER), which no resource can have.
 */
const ROUTES: Record<string, Methods> = {
  '/customers': {
    GET: customers.list,
    POST: async (rc) => (await customerWrites()).create(rc),
  },
  '/customers/:id': {
    GET: customers.get,
    PATCH: async (rc) => (await customerWrites()).update(rc),
  },
  '/customers/:id/subscriptions': { GET: customers.subscriptions },
  '/subscription-plans': { GET: plans.list },
  '/subscription-plans/:id': { GET: plans.get },
  '/subscription-plans/:id/subscriptions': { GET: plans.subscriptions },
  '/subscriptions': {
    GET: subscriptions.list,
    POST: async (rc) => (await subscriptionWrites()).create(rc),
  },
  '/subscriptions/:id': {
    GET: subscriptions.get,
    PATCH: async (rc) => (await subscriptionWrites()).update(rc),
  },
  '/subscriptions/:id/transactions': { GET: subscriptions.transactions },
  // Extension: GET lists the account's transactions (the hosted service lists them per subscription).
  '/transactions': {
    GET: transactions.list,
    POST: async (rc) => (await transactionWrites()).create(rc),
  },
  '/transactions/:uuid': {
    GET: transactions.get,
    DELETE: async (rc) => (await transactionWrites()).remove(rc),
  },
  '/notifications': { GET: transactions.notifications },
  '/events': { GET: events.events },
  '/webhook-deliveries': { GET: events.deliveries },
  '/webhook-deliveries/:id': { GET: events.delivery },
  '/webhook-deliveries/:id/retry': { POST: events.retry },
  '/invoices': {
    GET: invoices.list,
    POST: async (rc) => (await invoiceWrites()).create(rc),
  },
  '/invoices/:id': {
    GET: invoices.get,
    PATCH: async (rc) => (await invoiceWrites()).update(rc),
    DELETE: async (rc) => (await invoiceWrites()).remove(rc),
  },
  '/invoices/:id/finalise': { PATCH: async (rc) => (await invoiceFinalise()).finalise(rc) },
  // The reference's heading says POST, its sample and the service's own clients PATCH: both are taken.
  '/invoices/:id/credit': {
    POST: async (rc) => (await invoiceWrites()).credit(rc),
    PATCH: async (rc) => (await invoiceWrites()).credit(rc),
  },
  '/invoices/:id/pay': { PATCH: async (rc) => (await invoiceWrites()).pay(rc) },
  '/invoices/:id/refunded': { PATCH: async (rc) => (await invoiceWrites()).refunded(rc) },
  '/invoices/:id/lines': { GET: invoices.lines },
  '/invoices/:id/subscription': { GET: invoices.subscription },
  '/invoices/:id/customer': { GET: invoices.customer },
  '/invoice-lines': { POST: async (rc) => (await invoiceWrites()).createInvoiceLine(rc) },
  '/invoice-lines/:id': {
    GET: invoices.line,
    PATCH: async (rc) => (await invoiceWrites()).updateInvoiceLine(rc),
    DELETE: async (rc) => (await invoiceWrites()).removeInvoiceLine(rc),
  },
  // Extension: reports, one document of figures each (see docs/reports.md).
  '/reports/:name': { GET: reports.report },
  // Extensions: collecting by SEPA Direct Debit (batches, their pain.008 files, the bank's reports).
  '/collections': {
    GET: collections.list,
    POST: async (rc) => (await collectionWrites()).create(rc),
  },
  '/collections/:id': {
    GET: collections.get,
    PATCH: async (rc) => (await collectionWrites()).update(rc),
  },
  '/collections/:id/file': { GET: { later: async (rc) => (await collectionWrites()).file(rc) } },
  '/bank-reports': {
    GET: collections.reports,
    POST: async (rc) => (await collectionWrites()).importReport(rc),
    uploads: true,
  },
  '/bank-reports/:id': { GET: collections.report },
};

/** What a path parameter matches: ids are numeric, transaction ids UUIDs (either case). */
const PARAMETERS: Record<string, string> = {
  id: '[1-9][0-9]{0,15}',
  name: '[a-z][a-z_-]{0,39}',
  uuid: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
};

const COMPILED = Object.entries(ROUTES).map(([pattern, methods]) => ({
  pattern,
  regex: new RegExp(`^${pattern.replace(/:(\w+)/g, (_, name: string) => `(?<${name}>${PARAMETERS[name]})`)}/?$`),
  methods,
}));

/** A write another process's SQLite lock outlasted (503): what the client is told, the file left unsaid. */
const LOCKED = 'the store is busy: another process holds its write lock; the request changed nothing, send it again';
/** Whether a request to this path may carry a file (a bank report's XML) instead of a document: the door reads its body differently. */
export function takesUpload(method: string, path: string): boolean {
  return (
    method.toUpperCase() === 'POST' &&
    COMPILED.some((route) => route.methods.uploads === true && route.regex.test(path))
  );
}

export interface RouterOptions {
  store: Store;
  clock: Clock;
  /** Public base URL for absolute links, without a trailing slash. */
  baseUrl: string;
  /** Told of an exception a handler threw (the answer is a 500 without details either way). */
  onError?: (error: unknown) => void;
  /** Whether webhook URLs may name loopback and private hosts (the embedded CLI: yes; billing serve: only when started so). Default true. */
  allowPrivateWebhooks?: boolean;
  /**
   * The embedded door: a SQLite store another process kept locked past the wait ends the command
   * (the StoreBusyError, naming the file, is thrown: exit 1) instead of being answered 503.
   */
  throwWhenLocked?: boolean;
}

export interface Router {
  /**
   * The answer to one request. On SQLite a GET answers synchronously (callers may rely on it, e.g.
   * to keep the key check in the same snapshot); writes, and everything on PostgreSQL, answer
   * through a promise.
   */
  handle(request: ApiRequest, account: Account, guard?: KeyGuard): MaybePromise<ApiResponse>;
}

export function createRouter(options: RouterOptions): Router {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const store = options.store;
  // Write transactions have rolled back; the client learns nothing about the internals.
  const failed = (error: unknown): ApiResponse => {
    // A cached key found stale inside the read: the door authenticates again (billing serve).
    // So is a key found taken inside the write: the idempotency layer answers from its row.
    if (
      (error as Error | undefined)?.name === 'KeyGuardError' ||
      (error as Error | undefined)?.name === 'KeyTakenError'
    )
      throw error;
    // An upload past the door's limit, found while it was read: nothing was applied.
    if ((error as Error | undefined)?.name === 'UploadTooLargeError') return simpleError(413, (error as Error).message);
    // Concurrent writes outlasted the store's retries, or another process kept SQLite's lock past
    // the wait: nothing broke, the client may send it again.
    if (isLockBusy(error)) {
      if (options.throwWhenLocked) throw error;
      return simpleError(503, LOCKED, { 'retry-after': '1' });
    }
    if ((error as Error | undefined)?.name === 'StoreBusyError')
      return simpleError(503, 'the store is busy with concurrent writes; the request changed nothing, send it again', {
        'retry-after': '1',
      });
    options.onError?.(error);
    return simpleError(500, 'an internal error occurred; the request changed nothing');
  };
  // A keyed POST runs at the instant its key was first seen (idempotency.ts): its own store and clock.
  const dispatch = (
    request: ApiRequest,
    account: Account,
    guard: KeyGuard | undefined,
    store: Store,
    clock: Clock = options.clock,
  ): MaybePromise<ApiResponse> => {
    for (const route of COMPILED) {
      const match = route.regex.exec(request.path);
      if (!match) continue;
      // A 16-digit id above 2^53 - 1 would round to another id: no resource has it.
      const id = match.groups?.id;
      if (id !== undefined && id.length > 15 && !Number.isSafeInteger(Number(id)))
        return simpleError(404, `no such path: ${request.path}`);
      // HEAD is the GET without its body (RFC 9110), which the HTTP server leaves out; not on a batch's
      // file, whose GET marks the batch exported.
      const readable = route.methods.GET !== undefined && !('later' in route.methods.GET);
      const asked = request.method.toUpperCase();
      const method = (asked === 'HEAD' && readable ? 'GET' : asked) as 'GET' | 'POST' | 'PATCH' | 'DELETE';
      const handler = route.methods[method];
      if (!handler) {
        const allow = Object.keys(route.methods)
          .filter((name) => name !== 'uploads')
          .flatMap((name) => (name === 'GET' && readable ? ['GET', 'HEAD'] : [name]))
          .join(', ');
        return simpleError(405, `${method} is not allowed on ${request.path}; allowed: ${allow}`, { allow });
      }
      if (request.upload !== undefined && !(method === 'POST' && route.methods.uploads)) {
        return simpleError(415, `a request body must be sent as application/vnd.api+json or application/json`);
      }
      const context: RequestContext = {
        core: { store, clock, account, baseUrl, allowPrivateWebhooks: options.allowPrivateWebhooks ?? true },
        params: match.groups ?? {},
        path: request.path,
        query: request.query,
        body: request.body,
        upload: request.upload,
        baseUrl,
      };
      if (method !== 'GET') return (handler as WriteHandler)(context).catch(failed);
      // Never inside the read this GET may have arrived in (billing serve answers a turn's GETs in one snapshot).
      if ('later' in handler) return Promise.resolve(context).then(handler.later).catch(failed);
      try {
        // Reads with a query (include, pages) may make more queries than the same read without.
        const answer = store.read(
          () => (handler as ReadHandler)(context),
          request.query ? `${route.pattern}?` : route.pattern,
          guard,
        );
        return answer instanceof Promise ? answer.catch(failed) : answer;
      } catch (error) {
        return failed(error);
      }
    }
    return simpleError(404, `no such path: ${request.path}`);
  };
  return {
    handle(request, account, guard) {
      // An upload is applied once by its content (a bank report by its hash): no key is kept for it.
      if (request.idempotencyKey === undefined || request.upload !== undefined)
        return dispatch(request, account, guard, store);
      // Any request with a key gets it named in the answer (how a client learns keys are honoured); a
      // write (POST, PATCH, DELETE) is carried out once: sent again, its first answer comes back.
      const method = request.method.toUpperCase();
      if (method === 'GET' || method === 'HEAD')
        return andThen(dispatch(request, account, guard, store), (response) => ({
          ...response,
          headers: { ...response.headers, 'idempotency-key': request.idempotencyKey! },
        }));
      const keyedDispatch = async (keyed: Store, at: Clock) => dispatch(request, account, guard, keyed, at);
      return import('./idempotency.js').then(({ answerOnce }) =>
        answerOnce(store, options.clock, account, request, keyedDispatch).catch(failed),
      );
    },
  };
}
