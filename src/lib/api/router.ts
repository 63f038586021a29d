// The route table: METHOD + path to one handler, answering exactly what the HTTP API answers.
// Both doors (the embedded transport and `billing serve`) call handle(); neither adds behaviour.
import type { Clock } from '../core/clock.js';
import type { Account } from '../core/context.js';
import type { Store } from '../store/store.js';
import { simpleError } from './errors.js';
import type { ApiRequest, ApiResponse } from './http.js';
import type { RequestContext } from './handlers/context.js';
import * as customers from './handlers/customers.js';
import * as plans from './handlers/plans.js';

type Handler = (rc: RequestContext) => ApiResponse | Promise<ApiResponse>;

// Handlers that write load their module on first use, so reads never pay for the request schemas.
const customerWrites = () => import('./handlers/customer-writes.js');

/** Path patterns; `:id` matches a numeric id only, so `/customers/abc` is 404 like any unknown path. */
const ROUTES: Record<string, Partial<Record<string, Handler>>> = {
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
};

const COMPILED = Object.entries(ROUTES).map(([pattern, methods]) => ({
  regex: new RegExp(`^${pattern.replace(/:(\w+)/g, '(?<$1>[1-9][0-9]{0,15})')}/?$`),
  methods,
}));

export interface RouterOptions {
  store: Store;
  clock: Clock;
  /** Public base URL for absolute links, without a trailing slash. */
  baseUrl: string;
  /** Told of an exception a handler threw (the answer is a 500 without details either way). */
  onError?: (error: unknown) => void;
}

export interface Router {
  handle(request: ApiRequest, account: Account): Promise<ApiResponse>;
}

export function createRouter(options: RouterOptions): Router {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  return {
    async handle(request, account) {
      for (const route of COMPILED) {
        const match = route.regex.exec(request.path);
        if (!match) continue;
        const method = request.method.toUpperCase();
        const handler = route.methods[method];
        if (!handler) {
          const allow = Object.keys(route.methods).join(', ');
          return simpleError(405, `${method} is not allowed on ${request.path}; allowed: ${allow}`, { allow });
        }
        const context: RequestContext = {
          core: { store: options.store, clock: options.clock, account },
          params: match.groups ?? {},
          path: request.path,
          query: request.query,
          body: request.body,
          baseUrl,
        };
        try {
          return await handler(context);
        } catch (error) {
          // Write transactions have rolled back; the client learns nothing about the internals.
          options.onError?.(error);
          return simpleError(500, 'an internal error occurred; the request changed nothing');
        }
      }
      return simpleError(404, `no such path: ${request.path}`);
    },
  };
}
