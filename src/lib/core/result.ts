// Failures are values. The router maps each kind to a status code in one place (api/errors.ts).
import type { AttributeProblem } from '../schemas/common.js';

export type { AttributeProblem };

export type Failure =
  | { kind: 'not_found'; detail?: string }
  | { kind: 'invalid_attribute'; problems: AttributeProblem[] }
  | { kind: 'invalid_state'; attribute?: string; detail: string }
  | { kind: 'invalid_document'; pointer: string; detail: string }
  /** The document names another type, or another id than the path (JSON:API: 409). */
  | { kind: 'conflict'; pointer: string; detail: string }
  /** A request the API refuses as such, e.g. a create with a client-generated id (JSON:API: 403). */
  | { kind: 'forbidden'; pointer: string; detail: string }
  | { kind: 'invalid_parameter'; parameter: string; detail: string };

export type Result<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(failure: Failure): Result<T> => ({ ok: false, failure });
export const notFound = <T = never>(detail?: string): Result<T> => fail({ kind: 'not_found', detail });
export const invalidAttributes = <T = never>(problems: AttributeProblem[]): Result<T> =>
  fail({ kind: 'invalid_attribute', problems });
