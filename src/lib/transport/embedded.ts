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
      // as the 500 the router would make of the store's refusal. A file asked for is a batch's
      // export, which marks it exported: a write too.
      if (request.method.toUpperCase() !== 'GET' || request.file) {
        if (runtime.store.writeRefusal !== undefined) throw new StoreReadOnlyError(runtime.store.writeRefusal);
        runtime.changed = true;
      }
      const { path, query } = target(request);
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      const upload = request.upload && { contentType: request.upload.contentType, body: request.upload.open() };
      const response = await runtime.router.handle(
        { method: request.method, path, query, body, idempotencyKey: request.idempotencyKey, upload },
        await runtime.account(),
      );
      // A copy, so a caller can never alias the router's objects.
      return {
        status: response.status,
        headers: response.headers,
        body: response.body === undefined ? undefined : structuredClone(response.body),
        ...(response.pipe ? { pipe: response.pipe } : {}),
      };
    },
    close: () => runtime.close(),
  };
}
