// Failures to HTTP answers, in one place. Every error body is a JSON:API error document.
import type { Failure } from '../core/result.js';
import { JSONAPI, type ApiResponse } from './http.js';

export interface ErrorObject {
  status: string;
  title: string;
  detail: string;
  source?: { pointer?: string; parameter?: string; header?: string };
}

export function errorResponse(
  status: number,
  errors: ErrorObject[],
  extra: { headers?: Record<string, string>; original?: unknown } = {},
): ApiResponse {
  const body: Record<string, unknown> = { errors };
  if (status === 400) body.meta = { original: extra.original ?? null };
  return { status, headers: { 'content-type': JSONAPI, ...extra.headers }, body };
}

export const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  500: 'Internal Error',
  503: 'Service Unavailable',
};

export function simpleError(status: number, detail: string, headers?: Record<string, string>): ApiResponse {
  return errorResponse(status, [{ status: String(status), title: TITLES[status], detail }], { headers });
}

/** An attribute name as one JSON Pointer segment (RFC 6901): `~` as `~0`, `/` as `~1`. */
const pointerSegment = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');

export function failureResponse(failure: Failure, original: unknown): ApiResponse {
  switch (failure.kind) {
    case 'not_found':
      return simpleError(404, failure.detail ?? 'no such resource');
    case 'invalid_attribute':
      return errorResponse(
        400,
        failure.problems.map((p) => ({
          status: '400',
          title: 'Invalid Attribute',
          detail: `${[p.attribute, ...(p.path ?? [])].join('/')} ${p.detail}`,
          source: {
            pointer: `/data/attributes/${[p.attribute, ...(p.path ?? [])].map((s) => pointerSegment(String(s))).join('/')}`,
          },
        })),
        { original },
      );
    case 'invalid_state':
      return errorResponse(
        400,
        [
          {
            status: '400',
            title: 'Invalid State',
            detail: failure.detail,
            source: { pointer: failure.attribute ? `/data/attributes/${failure.attribute}` : '/data' },
          },
        ],
        { original },
      );
    case 'invalid_document':
      return errorResponse(
        400,
        [{ status: '400', title: 'Invalid Document', detail: failure.detail, source: { pointer: failure.pointer } }],
        { original },
      );
    case 'conflict':
      return errorResponse(409, [
        { status: '409', title: TITLES[409], detail: failure.detail, source: { pointer: failure.pointer } },
      ]);
    case 'forbidden':
      return errorResponse(403, [
        { status: '403', title: TITLES[403], detail: failure.detail, source: { pointer: failure.pointer } },
      ]);
    case 'invalid_parameter':
      return errorResponse(
        400,
        [
          {
            status: '400',
            title: 'Invalid Parameter',
            detail: failure.detail,
            source: { parameter: failure.parameter },
          },
        ],
        { original },
      );
  }
}
