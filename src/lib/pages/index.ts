// The pages customers see, served by billing serve beside the API: the mandate page at
// confirmation_page and the printable invoice at hosted_invoice_url. HTML, no API key: the URL's
// unguessable part is the credential, and a client that keeps guessing it is slowed (guesses.ts).
//
//   GET|HEAD|POST /mandate/accept/<subscription id>/<confirmation token>   the mandate; POST accepts it
//   GET|HEAD      /mandate/accepted/<subscription id>/<confirmation token> thank-you page after accepting
//   GET|HEAD      /invoice/<hosted token>                                 the printable invoice
//
// Everything else under /mandate/ and /invoice/ is a 404 page; /invoices (the API) is not ours.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../core/clock.js';
import { CONFIRMATION_TOKEN } from '../core/mandate.js';
import { isLockBusy, type Store } from '../store/store.js';
import { errorPage } from './errors.js';
import { clientOf, DEFAULT_GUESS_LIMITS, guessLimiter, type GuessLimits } from './guesses.js';
import { sendPage } from './html.js';
import { invoicePage } from './invoice.js';
import { mandatePages } from './mandate.js';

export interface PagesOptions {
  store: Store;
  clock: Clock;
  /** The public base URL (links and redirects), without a trailing slash. */
  baseUrl: string;
  log(line: string): void;
  /** Called after a page changed the store (an accepted mandate), so its events go out promptly. */
  changed?(): void;
  /** How many wrong secrets a client may try (default DEFAULT_GUESS_LIMITS). */
  guesses?: GuessLimits;
  /** The server's policy for webhooks to private addresses, recorded on the deliveries an accepted mandate writes. */
  allowPrivateWebhooks: boolean;
}

export interface Pages {
  /** Whether the request is for a page (its path), not for the API. */
  match(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** The path of a request target, without its query; undefined for a target that is not a path. */
const pathOf = (url: string | undefined): string | undefined => {
  if (!url || url[0] !== '/') return undefined;
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

const isPagePath = (path: string): boolean =>
  path === '/mandate' || path.startsWith('/mandate/') || path === '/invoice' || path.startsWith('/invoice/');

/** An id as the store has them: 1 to 2^53 - 1 without leading zeros; anything else finds nothing. */
const ID = /^[1-9][0-9]{0,15}$/;
const parseId = (text: string): number | undefined =>
  ID.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;

type Route =
  | { kind: 'mandate'; id: string; token: string }
  | { kind: 'thanks'; id: string; token: string }
  | { kind: 'invoice'; token: string }
  | { kind: 'none' };

function route(path: string): Route {
  const parts = path.split('/');
  // ['', 'mandate', 'accept', id, code]
  if (parts[1] === 'mandate' && parts.length === 5 && (parts[2] === 'accept' || parts[2] === 'accepted')) {
    return { kind: parts[2] === 'accept' ? 'mandate' : 'thanks', id: parts[3], token: parts[4] };
  }
  if (parts[1] === 'invoice' && parts.length === 3) return { kind: 'invoice', token: parts[2] };
  return { kind: 'none' };
}

const ALLOW = { mandate: 'GET, HEAD, POST', thanks: 'GET, HEAD', invoice: 'GET, HEAD' } as const;

/** What the log shows of a page's path: never the secret part (the confirmation or hosted token). */
function redacted(path: string): string {
  const r = route(path);
  if (r.kind === 'mandate' || r.kind === 'thanks')
    return `/mandate/${r.kind === 'mandate' ? 'accept' : 'accepted'}/${ID.test(r.id) ? r.id : '?'}/…`;
  if (r.kind === 'invoice') return '/invoice/…';
  return path.startsWith('/invoice') ? '/invoice…' : '/mandate…';
}

export function createPages(options: PagesOptions): Pages {
  const mandate = mandatePages(options);
  const invoice = invoicePage(options);
  const guesses = guessLimiter(options.guesses ?? DEFAULT_GUESS_LIMITS);

  /** The page of a secret; false when the secret was wrong (a 404 was sent). */
  type PageRoute = Exclude<Route, { kind: 'none' }>;
  function answer(req: IncomingMessage, res: ServerResponse, r: PageRoute, method: string): Promise<boolean> {
    if (r.kind === 'invoice') return invoice(req, res, r.token);
    const id = parseId(r.id);
    // The old form (a mandate code) and any other shape is refused without reading the store.
    if (id === undefined || !CONFIRMATION_TOKEN.test(r.token)) {
      sendPage(req, res, errorPage(req, 404));
      return Promise.resolve(false);
    }
    if (r.kind === 'thanks') return mandate.thanks(req, res, id, r.token);
    return method === 'POST' ? mandate.post(req, res, id, r.token) : mandate.get(req, res, id, r.token);
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const r = route(path);
    if (r.kind === 'none') return sendPage(req, res, errorPage(req, 404));
    const allow = ALLOW[r.kind];
    if (!allow.split(', ').includes(method)) return sendPage(req, res, errorPage(req, 405, { allow }));
    // Taken before the secret is looked at, given back when it was right: wrong guesses alone count.
    const client = clientOf(req.socket.remoteAddress);
    const wait = guesses.take(client);
    if (wait !== undefined) return sendPage(req, res, errorPage(req, 429, { 'retry-after': String(wait) }));
    if (await answer(req, res, r, method)) guesses.giveBack(client);
  }

  return {
    match: (req) => {
      const path = pathOf(req.url);
      return path !== undefined && isPagePath(path);
    },
    handle(req, res) {
      const started = performance.now();
      const path = pathOf(req.url) ?? '/';
      const method = req.method ?? 'GET';
      res.once('close', () => {
        const status = res.writableFinished
          ? res.statusCode
          : `${res.headersSent ? res.statusCode : '-'} (connection closed)`;
        options.log(`${method} ${redacted(path)} ${status} ${Math.round(performance.now() - started)}ms`);
      });
      // Always answered after a turn of the event loop, never inside the request event itself.
      void Promise.resolve()
        .then(() => dispatch(req, res, path))
        .catch((error: unknown) => {
          // Another process kept the store locked past the wait (an accept): nothing changed, try again.
          const busy = isLockBusy(error);
          const message = error instanceof Error ? error.message : String(error);
          if (!busy) options.log(`billing serve: internal error on ${method} ${redacted(path)}: ${message}`);
          try {
            if (res.headersSent) res.destroy();
            else sendPage(req, res, busy ? errorPage(req, 503, { 'retry-after': '1' }) : errorPage(req, 500));
          } catch {
            res.destroy();
          }
        });
    },
  };
}
