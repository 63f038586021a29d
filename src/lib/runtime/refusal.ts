// A refusal of the core by a runtime operation, as the API would have answered it: the status and
// error document the router makes of the same failure. Commands print it like the service's own
// refusals (exit 1, the document with --json): one conversion, here, for every named operation.
import { failureResponse } from '../api/errors.js';
import type { Failure, Result } from '../core/result.js';
import type { MaybePromise } from '../store/unit.js';

export class Refusal extends Error {
  override name = 'Refusal';
  constructor(
    readonly status: number,
    readonly document: unknown,
    /** What the core said, when it was the core: a command may treat a kind its own way (the clock: going back is a usage error). */
    readonly failure?: Failure,
  ) {
    super(`refused (${status})`);
  }
}

/** The value of a use case's result, or its failure thrown as a Refusal; `original` is echoed in invalid-attribute documents. */
export async function orRefuse<T>(pending: MaybePromise<Result<T>>, original: unknown = null): Promise<T> {
  const result = await pending;
  if (result.ok) return result.value;
  const response = failureResponse(result.failure, original);
  throw new Refusal(response.status, response.body, result.failure);
}
