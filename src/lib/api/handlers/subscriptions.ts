// Subscription handlers (the subscriptions issue adds the routes); shared pieces for now.
import { subscriptionsByIds } from '../../core/subscriptions.js';
import type { Unit } from '../../store/unit.js';
import { subscriptionResource, type Rendering, type ResourceObject } from '../documents.js';
import type { RequestContext } from './context.js';

/** The `included` array for `include=subscriptions` on customers or plans, or undefined. */
export function* includedSubscriptions(rc: RequestContext, include: string[], idLists: Iterable<number[]>, r: Rendering): Unit<ResourceObject[] | undefined> {
  if (!include.includes('subscriptions')) return undefined;
  return (yield* subscriptionsByIds(rc.core, [...idLists].flat())).map((s) => subscriptionResource(s, r));
}
