// The embedded door: requests go to the router of a runtime, in process. The body crosses as text,
// exactly as it would over HTTP, and the answer comes back as a copy, so both doors behave the same.
import { StoreReadOnlyError } from '../store/store.js';
import type { Runtime } from '../runtime/runtime.js';
import { target, type Transport, type TransportRequest, type TransportResponse } from './types.js';

export function embeddedTransport(runtime: Runtime): Transport {
  return {
    mode: 'embedded',
    async request(request: TransportRequest): Promise<TransportResponse> {
      // A store opened for reading that cannot be written: a change is refused here, plainly, not
      // as the 500 the router would make of the store's refusal.
      if (request.method.toUpperCase() !== 'GET') {
        if (runtime.store.writeRefusal !== undefined) throw new StoreReadOnlyError(runtime.store.writeRefusal);
        runtime.changed = true;
      }
      const { path, query } = target(request);
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      const response = await runtime.router.handle(
        { method: request.method, path, query, body, idempotencyKey: request.idempotencyKey },
        await runtime.account(),
      );
      // A copy, so a caller can never alias the router's objects.
      return {
        status: response.status,
        headers: response.headers,
        body: response.body === undefined ? undefined : structuredClone(response.body),
      };
    },
    close: () => runtime.close(),
  };
}
