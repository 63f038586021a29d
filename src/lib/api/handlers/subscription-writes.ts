// POST /subscriptions, PATCH /subscriptions/{id}. Loaded only when a request writes.
import {
  createSubscription,
  updateSubscription,
  type SubscriptionWithTransactions,
} from '../../core/subscription-writes.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { CoreContext } from '../../core/context.js';
import { hostOf, isPrivateAddress } from '../../core/webhooks.js';
import { andThen, type MaybePromise } from '../../store/unit.js';
import { singleDocument, subscriptionResource, type Rendering } from '../documents.js';
import type { ApiResponse } from '../http.js';
import { respond, unwrap, type RequestContext } from './context.js';
import { readWrite, refused } from './writes.js';

const render =
  (r: Rendering, status: number) =>
  ({ subscription, transactionIds, unchanged }: SubscriptionWithTransactions) => {
    const document = singleDocument(subscriptionResource(subscription, transactionIds, r));
    // An extension: a change to what the subscription already is says so (JSON:API's top-level meta).
    const answered = unchanged ? { ...document, meta: { unchanged: true } } : document;
    return respond(status, answered, status === 201 ? { location: document.data.links.self } : {});
  };

export function create(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'subscription');
  if (refused(request)) return request;
  const { document, rendering } = request;
  return andThen(resolved(rc, document.attributes), (core) =>
    andThen(createSubscription(core, document.attributes), (result) =>
      unwrap(result, document.original, render(rendering, 201)),
    ),
  );
}

export function update(rc: RequestContext): MaybePromise<ApiResponse> {
  const request = readWrite(rc, 'subscription', rc.params.id);
  if (refused(request)) return request;
  const { document, rendering } = request;
  return andThen(resolved(rc, document.attributes), (core) =>
    andThen(updateSubscription(core, Number(rc.params.id), document.attributes), (result) =>
      unwrap(result, document.original, render(rendering, 200)),
    ),
  );
}

/** How long a webhook URL's name may take to resolve; past it the name is let through (delivery checks again when it connects). */
const RESOLVE_MS = 2_000;

/**
 * The core context with the webhook URLs' host names that resolve to a private address, when this
 * server refuses those: a name is only as public as what it points at. A name that does not
 * resolve (yet) passes here; the sender resolves it again on every delivery and refuses it then.
 */
function resolved(rc: RequestContext, attributes: Record<string, unknown>): MaybePromise<CoreContext> {
  if (rc.core.allowPrivateWebhooks !== false) return rc.core;
  const hosts = new Set<string>();
  for (const name of ['subscription_webhook_url', 'transaction_webhook_url']) {
    const value = attributes[name];
    const host = typeof value === 'string' ? hostOf(value) : undefined;
    if (host !== undefined && isIP(host) === 0) hosts.add(host);
  }
  if (hosts.size === 0) return rc.core;
  return Promise.all(
    [...hosts].map(async (host) => {
      const timer = new Promise<[]>((resolve) => setTimeout(() => resolve([]), RESOLVE_MS).unref());
      const addresses = await Promise.race([lookup(host, { all: true, verbatim: true }).catch(() => []), timer]);
      return addresses.some((a) => isPrivateAddress(a.address)) ? host : undefined;
    }),
  ).then((found) => ({ ...rc.core, privateHosts: new Set(found.filter((h): h is string => h !== undefined)) }));
}
