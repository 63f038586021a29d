// The pages customers see, served by billing serve beside the API: the mandate page at
// confirmation_page and the printable invoice at hosted_invoice_url. HTML, no API key: the URL's
// unguessable part is the credential.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../core/clock.js';
import type { Store } from '../store/store.js';

export interface PagesOptions {
  store: Store;
  clock: Clock;
  /** The public base URL (links and redirects), without a trailing slash. */
  baseUrl: string;
  log(line: string): void;
  /** Called after a page changed the store (an accepted mandate), so its events go out promptly. */
  changed?(): void;
}

export interface Pages {
  /** Whether the request is for a page (its path), not for the API. */
  match(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

export function createPages(_options: PagesOptions): Pages {
  return { match: () => false, handle: (_req, res) => void res.end() };
}
