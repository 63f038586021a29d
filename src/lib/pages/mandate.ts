// The mandate page at a subscription's confirmation_page: the customer reads what they authorise
// and accepts it. The URL (subscription id and confirmation token) is the credential; no API key.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { acceptMandate, findMandate, mandateState } from '../core/mandate.js';
import type { MandateSubscription, MandateView } from '../core/mandate.js';
import { confirmationPage } from '../core/notifications.js';
import type { Frequency } from '../core/schedule.js';
import { localDate } from '../core/time.js';
import { isHttpUrl } from '../schemas/subscription.js';
import { hasBody, html, layout, originOf, sendPage, type Html, type PageAnswer } from './html.js';
import type { PagesOptions } from './index.js';
import { errorPage } from './errors.js';
import { FORMATS, MANDATE, pageLanguage, type Lang } from './words.js';

/** The most a posted form may be: it carries one token (about 90 bytes). */
export const MAX_FORM_BYTES = 8 * 1024;

// ---- CSRF ----
//
// Double submit, bound to the page: a random token lives in a cookie (HttpOnly, SameSite=Strict,
// Path=<base>/mandate/) and, with an HMAC of (subscription id, the page's confirmation token, token)
// keyed by the account's webhook_secret, in a hidden field. A POST must carry both, the same token in
// each, and a MAC only the server can make. Another site can neither read nor set the cookie
// (SameSite=Strict keeps it off cross-site posts altogether), a token taken from one subscription's
// page does not accept another's, and a form shown before the page got a new secret accepts nothing.
// The form field is the only part a page shows, and only with its cookie is it worth anything.
// Browsers that say where a post came from (Sec-Fetch-Site) are held to it too.

export const CSRF_COOKIE = 'billing_mandate_csrf';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const macOf = (secret: string, subscriptionId: number, pageToken: string, token: string): string =>
  createHmac('sha256', secret)
    .update(`billing mandate accept\n${subscriptionId}\n${pageToken}\n${token}`)
    .digest('base64url');

/** The token of the request's cookie, when it has a well-formed one. */
function cookieToken(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0 || part.slice(0, at).trim() !== CSRF_COOKIE) continue;
    const value = part.slice(at + 1).trim();
    if (TOKEN.test(value)) return value;
  }
  return undefined;
}

/** Equal strings, compared in time independent of where they differ (both are fixed-length here). */
function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function csrfValid(req: IncomingMessage, form: URLSearchParams, secret: string, sub: MandateSubscription): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site') return false;
  const cookie = cookieToken(req);
  const field = form.get('csrf') ?? '';
  const dot = field.indexOf('.');
  if (!cookie || dot < 0) return false;
  const token = field.slice(0, dot);
  const mac = field.slice(dot + 1);
  // Both checks run whatever the first says: no early answer to time.
  const sameToken = TOKEN.test(token) && same(token, cookie);
  const goodMac = same(mac, macOf(secret, sub.id, sub.confirmation_token, token));
  return sameToken && goodMac;
}

// ---- rendering ----

const fullName = (c: MandateView['customer']): string =>
  [c.first_name, c.middle_name, c.last_name].filter(Boolean).join(' ');

/** Enough of the IBAN for the customer to recognise it; the page's URL may be seen by others. */
const maskedIban = (iban: string): string => {
  const compact = iban.replace(/\s+/g, '').toUpperCase();
  return compact.length <= 8 ? compact : `${compact.slice(0, 4)} •••• ${compact.slice(-4)}`;
};

/** The creditor named in the mandate: the account's name, except the unnamed store default. */
const creditorName = (view: MandateView): string | undefined =>
  view.account.is_default === 1 && view.account.name === 'default' ? undefined : view.account.name;

const CREDITOR_FALLBACK: Record<Lang, string> = {
  nl: 'de incassant',
  'nl-be': 'de schuldeiser',
  en: 'the creditor',
  de: 'den Zahlungsempfänger',
  fr: 'le créancier',
};

function facts(lang: Lang, view: MandateView): Html {
  const w = MANDATE[lang];
  const f = FORMATS[lang];
  const { customer, plan, subscription, account } = view;
  const creditor = creditorName(view);
  const frequency = (w.frequencies as Record<string, string>)[plan.frequency] ?? plan.frequency;
  const row = (label: string, value: string | undefined | null) =>
    value ? html`<dt>${label}</dt><dd>${value}</dd>` : html``;
  return html`<dl class="facts">
${row(w.creditor, creditor)}
${row(w.customer, fullName(customer))}
${row(w.company, customer.company_name)}
${row(w.account, customer.payment_method === 'directdebit' && customer.iban ? maskedIban(customer.iban) : undefined)}
${row(w.plan, plan.name)}
${row(w.amount, f.money(plan.amount_cents))}
${row(w.frequency, frequency)}
${row(w.startDate, f.date(localDate(subscription.start_date, account.time_zone)))}
${row(w.mandateCode, subscription.mandate_code)}
</dl>`;
}

function mandateText(lang: Lang, view: MandateView): Html {
  const w = MANDATE[lang];
  const creditor = creditorName(view) ?? CREDITOR_FALLBACK[lang];
  const recurring = (view.plan.frequency as Frequency) !== 'once';
  const text =
    view.customer.payment_method === 'creditcard' ? w.card(creditor, recurring) : w.sepa(creditor, recurring);
  return html`<p class="mandate">${text}</p>${view.plan.terms ? html`<h2>${w.terms}</h2><p class="terms">${view.plan.terms}</p>` : html``}`;
}

/** Each answers, then says whether the token was right or never looked at (false: a wrong guess). */
export interface MandatePages {
  get(req: IncomingMessage, res: ServerResponse, id: number, token: string): Promise<boolean>;
  post(req: IncomingMessage, res: ServerResponse, id: number, token: string): Promise<boolean>;
  thanks(req: IncomingMessage, res: ServerResponse, id: number, token: string): Promise<boolean>;
}

export function mandatePages(options: PagesOptions): MandatePages {
  const { store, clock, baseUrl } = options;
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const secure = baseUrl.startsWith('https:');
  const find = (id: number, token: string) => store.read(() => findMandate(id, token), 'pages.mandate');
  const thanksUrl = ({ subscription: s }: MandateView) => `${baseUrl}/mandate/accepted/${s.id}/${s.confirmation_token}`;
  const formUrl = ({ subscription: s }: MandateView) => confirmationPage(baseUrl, s.id, s.confirmation_token);

  /** Where the customer goes after accepting: the subscription's success_redirect_url, else the thank-you page. */
  const nextUrl = (view: MandateView) => {
    const target = view.subscription.success_redirect_url;
    return target && isHttpUrl(target) ? target : thanksUrl(view);
  };
  /** CSP form-action covers redirects after a post: this server's public origin and the success URL's. */
  const formTargets = (view: MandateView) =>
    [originOf(baseUrl), originOf(nextUrl(view))].filter((o): o is string => o !== undefined);

  function statePage(
    lang: Lang,
    view: MandateView,
    status: number,
    title: string,
    message: string,
    link?: { href: string; text: string },
  ): PageAnswer {
    const body = html`<h1>${title}</h1><p class="notice">${message}</p>${facts(lang, view)}${link ? html`<p><a href="${link.href}">${link.text}</a></p>` : html``}`;
    return { status, body: layout(lang, title, body) };
  }

  function acceptedPage(lang: Lang, view: MandateView, thanks = false): PageAnswer {
    const w = MANDATE[lang];
    const date = view.subscription.mandate_accepted_date;
    const message = thanks
      ? w.thanks
      : w.accepted(date ? FORMATS[lang].date(localDate(date, view.account.time_zone)) : '');
    return statePage(lang, view, 200, thanks ? w.thanksTitle : w.acceptedTitle, message);
  }

  function formPage(req: IncomingMessage, lang: Lang, view: MandateView): PageAnswer {
    const w = MANDATE[lang];
    const id = view.subscription.id;
    const existing = cookieToken(req);
    // One token per browser (kept across pages and tabs), so two open forms both stay valid.
    const token = existing ?? randomBytes(32).toString('base64url');
    const field = `${token}.${macOf(view.account.webhook_secret, id, view.subscription.confirmation_token, token)}`;
    // Relative to this page's own URL, whatever host or proxy prefix the customer reached it by.
    const action = `./${view.subscription.confirmation_token}`;
    const body = html`<h1>${w.title}</h1><p>${w.intro}</p>${facts(lang, view)}${mandateText(lang, view)}
<form method="post" action="${action}"><input type="hidden" name="csrf" value="${field}"><button type="submit">${w.accept}</button></form>`;
    const headers: Record<string, string> = {};
    if (!existing)
      headers['set-cookie'] =
        `${CSRF_COOKIE}=${token}; Path=${basePath}/mandate/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
    return { status: 200, body: layout(lang, w.title, body), formTargets: formTargets(view), headers };
  }

  const cancelledPage = (lang: Lang, view: MandateView, status: number) =>
    statePage(lang, view, status, MANDATE[lang].cancelledTitle, MANDATE[lang].cancelled);

  return {
    async get(req, res, id, token) {
      const view = await find(id, token);
      if (!view) return wrongToken(req, res);
      const lang = pageLanguage(view.customer.language);
      const state = mandateState(view.subscription);
      if (state === 'cancelled') return answered(req, res, cancelledPage(lang, view, 200));
      if (state === 'accepted') return answered(req, res, acceptedPage(lang, view));
      return answered(req, res, formPage(req, lang, view));
    },

    async post(req, res, id, token) {
      const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/x-www-form-urlencoded') return answered(req, res, errorPage(req, 415));
      const text = await readForm(req, MAX_FORM_BYTES);
      if (text === undefined) return answered(req, res, errorPage(req, 413));
      const view = await find(id, token);
      if (!view) return wrongToken(req, res);
      const lang = pageLanguage(view.customer.language);
      const w = MANDATE[lang];
      if (!csrfValid(req, new URLSearchParams(text), view.account.webhook_secret, view.subscription)) {
        const back = { href: formUrl(view), text: w.backToForm };
        return answered(req, res, statePage(lang, view, 403, w.expiredTitle, w.expired, back));
      }
      const result = await acceptMandate(
        { store, clock, baseUrl, allowPrivateWebhooks: options.allowPrivateWebhooks },
        id,
        token,
      );
      if (!result.ok) {
        // not_found: the page got a new secret since it was read.
        if (result.failure.kind === 'not_found') return wrongToken(req, res);
        return answered(req, res, cancelledPage(lang, view, 409));
      }
      if (result.value.changed) options.changed?.();
      const location = nextUrl({ ...view, subscription: result.value.subscription });
      const link = html`<h1>${w.thanksTitle}</h1><p><a href="${location}">${location}</a></p>`;
      const body = layout(lang, w.thanksTitle, link);
      return answered(req, res, { status: 303, headers: { location }, body });
    },

    async thanks(req, res, id, token) {
      const view = await find(id, token);
      if (!view) return wrongToken(req, res);
      const lang = pageLanguage(view.customer.language);
      const state = mandateState(view.subscription);
      if (state === 'cancelled') return answered(req, res, cancelledPage(lang, view, 200));
      // Not accepted (yet): the form is where to go.
      if (state === 'open') return answered(req, res, { status: 303, headers: { location: formUrl(view) }, body: '' });
      return answered(req, res, acceptedPage(lang, view, true));
    },
  };
}

/** Sends the page; the token was right, or not looked at. */
function answered(req: IncomingMessage, res: ServerResponse, page: PageAnswer): true {
  sendPage(req, res, page);
  return true;
}

/** The 404 of an unknown id or a token that is not its subscription's: a wrong guess. */
function wrongToken(req: IncomingMessage, res: ServerResponse): false {
  sendPage(req, res, errorPage(req, 404));
  return false;
}

/** The body as text, or undefined when it is larger than `limit` bytes (reading stops there). */
function readForm(req: IncomingMessage, limit: number): Promise<string | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve(undefined);
  if (!hasBody(req)) return Promise.resolve('');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (value: string | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // The rest is not read; the answer closes the connection (sendPage).
        req.pause();
        return done(undefined);
      }
      chunks.push(chunk);
    };
    const onEnd = () => done(Buffer.concat(chunks).toString('utf8'));
    const onError = (error: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
