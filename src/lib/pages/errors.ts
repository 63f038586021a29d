// The pages' refusals, as small HTML pages in the visitor's language (Accept-Language): they know
// no customer, and say nothing about whether an id exists.
import type { IncomingMessage } from 'node:http';
import { html, layout, type PageAnswer } from './html.js';
import { ERRORS, languageFromHeader } from './words.js';

export type ErrorStatus = 404 | 405 | 413 | 415 | 429 | 500 | 503;

export function errorPage(req: IncomingMessage, status: ErrorStatus, headers: Record<string, string> = {}): PageAnswer {
  const lang = languageFromHeader(req.headers['accept-language']);
  const w = ERRORS[lang];
  const [title, text] =
    status === 404
      ? [w.notFoundTitle, w.notFound]
      : status === 405
        ? [w.methodTitle, w.method]
        : status === 413
          ? [w.tooLargeTitle, w.tooLarge]
          : status === 415
            ? [w.unsupportedTitle, w.unsupported]
            : status === 429
              ? [w.tooManyTitle, w.tooMany]
              : status === 503
                ? [w.busyTitle, w.busy]
                : [w.failedTitle, w.failed];
  return { status, headers, body: layout(lang, title, html`<h1>${title}</h1><p>${text}</p>`) };
}
