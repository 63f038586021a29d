// billing listen --forward-to: an event POSTed to a receiver a developer runs, as its webhook
// delivery would be (the same body, headers and signature), so a receiver can be tested without a
// tunnel. Not a delivery of the outbox: nothing is recorded, retried or refused for its address.
import { randomUUID } from 'node:crypto';
import { eventBody } from '../core/outbox.js';
import { deliveryHeaders, TIMEOUT_MS } from './webhooks.js';

/** The attributes of an event resource (GET /events) the delivery is made from. */
export interface ForwardedEvent {
  event: string;
  subscription_id: string;
  transaction_id: string | null;
  status: string;
}

/** The receiver's status, or why there was none. */
export type ForwardResult = { status: number } | { error: string };

/**
 * Sends one event, signed with `secret`, within the webhook sender's 10 s; never throws. A fresh
 * Billing-Delivery each time: it is not one of the outbox's deliveries. Redirects are not followed.
 */
export async function forwardEvent(
  url: string,
  secret: string,
  event: ForwardedEvent,
  signal?: AbortSignal,
): Promise<ForwardResult> {
  const body = eventBody({
    subscription_id: Number(event.subscription_id),
    transaction_id: event.transaction_id,
    status: event.status,
  });
  const headers = deliveryHeaders(
    { event: event.event, deliveryId: randomUUID(), secret, body },
    Math.floor(Date.now() / 1000),
  );
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    if (timeout.aborted) return { error: `no answer within ${TIMEOUT_MS / 1000} s` };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}
