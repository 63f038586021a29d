// The customers' pages of `billing serve` (the mandate page at confirmation_page, the printable
// invoice at hosted_invoice_url), fetched over loopback as a browser would, on the run's engine.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { finalisedInvoice, plain, startPages as startFixture, type PagesFixture } from '../browser/fixture.js';
import type { GuessLimits } from '../../src/lib/pages/guesses.js';
import { ENGINE } from '../helpers/engine.js';
import { TEST_NOW } from '../helpers/store.js';

// test/server/ runs in the sqlite project only: these suites run on both engines from here (and
// on PostgreSQL alone, should the postgres project ever include them).
const ENGINES = ENGINE === 'postgres' ? (['postgres'] as const) : (['sqlite', 'postgres'] as const);

/** A page fetched without following redirects; the body as text with plain spaces. */
async function page(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const raw = await response.text();
  return { status: response.status, headers: response.headers, raw, text: plain(raw) };
}

/** A GET sent from another loopback address (127.0.0.0/8 is all this machine's): status and Retry-After. */
function getFrom(localAddress: string, url: string): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/** 64 random hex digits: a guess at a confirmation token. */
const randomToken = () => Array.from({ length: 64 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');

/** The secret at the end of a mandate page's URL. */
const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

/** The form's CSRF field and the cookie the page set (or the one given back). */
function formOf(answer: { raw: string; headers: Headers }): { field: string; cookie: string | undefined } {
  const field = /name="csrf" value="([^"]+)"/.exec(answer.raw)?.[1];
  if (!field) throw new Error(`no form on the page:\n${answer.raw}`);
  const setCookie = answer.headers.get('set-cookie');
  return { field, cookie: setCookie?.split(';')[0] };
}

const post = (url: string, form: Record<string, string>, cookie?: string, headers: Record<string, string> = {}) =>
  page(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
    body: new URLSearchParams(form).toString(),
  });

/** An unverified subscription of a customer (Dutch unless told), with the page's URL. */
async function arrange(
  f: PagesFixture,
  customer: Record<string, unknown> = {},
  subscription: Record<string, unknown> = {},
) {
  const plan = await f.plan();
  const customerId = await f.customer(customer);
  const sub = await f.subscription({ customer_id: Number(customerId), subscription_plan_id: plan, ...subscription });
  return { plan, customerId, ...sub, subId: Number(sub.id) };
}

/** Everything a refused accept must leave as it was. */
const snapshot = async (f: PagesFixture, subId: number) => ({
  subscription: await f.rows('subscriptions', subId),
  events: await f.rows('events', subId),
  transactions: await f.rows('transactions', subId),
  deliveries: await f.rows('webhook_deliveries'),
});

function expectSecurityHeaders(headers: Headers) {
  expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  const csp = headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("base-uri 'none'");
  expect(csp).toMatch(/form-action 'self'/);
  expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
  expect(csp).not.toContain('unsafe');
}

describe.each(ENGINES)('the mandate page (%s)', (engine) => {
  const startPages = (options: { now?: string; guesses?: GuessLimits } = {}) => startFixture({ ...options, engine });
  it('shows a Dutch customer the mandate in Dutch: name, company, plan, amount, frequency, code, creditor, SEPA text and a form', async () => {
    const f = await startPages();
    const { confirmationPage, subId } = await arrange(f, { company_name: 'Jansen & Zn' });
    expect(confirmationPage).toMatch(new RegExp(`^${f.server.baseUrl}/mandate/accept/${subId}/[0-9a-f]{64}$`));
    const answer = await page(confirmationPage);
    expect(answer.status).toBe(200);
    expectSecurityHeaders(answer.headers);
    expect(answer.raw).toContain('<html lang="nl">');
    for (const text of [
      'Machtiging voor automatische incasso',
      'Jan Jansen',
      'Jansen &amp; Zn',
      'Lidmaatschap Goud',
      '€ 12,50',
      'per maand',
      `MNDT-${subId}`,
      'sportclub',
      'NL91 •••• 4300',
    ]) {
      expect(answer.text).toContain(text);
    }
    expect(answer.text).toContain(
      'Door akkoord te geven op deze machtiging geeft u toestemming aan sportclub om doorlopende incasso-opdrachten te sturen',
    );
    expect(answer.text).toContain('binnen 8 weken');
    expect(answer.raw).toContain(`<form method="post" action="./${tokenOf(confirmationPage)}">`);
    expect(answer.raw).toMatch(/<form [^>]+><input type="hidden" name="csrf" value="[\w-]{43}\.[\w-]{43}">/);
    expect(answer.raw).not.toMatch(/<script/i);
    // The CSRF cookie: only for these pages, never sent cross-site, not readable by scripts.
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^billing_mandate_csrf=[A-Za-z0-9_-]{43}; Path=\/mandate\/; HttpOnly; SameSite=Strict$/);
    // The full IBAN is not on the page (its URL may be seen by others).
    expect(answer.text).not.toContain('NL91ABNA0417164300');
  });

  it('speaks French to a French customer, and German, English and Belgian Dutch to theirs', async () => {
    const f = await startPages();
    const fr = await arrange(f, { language: 'fr', first_name: 'Amélie', last_name: 'Dupont', email: 'a@example.fr' });
    const answer = await page(fr.confirmationPage);
    expect(answer.status).toBe(200);
    expect(answer.raw).toContain('<html lang="fr">');
    for (const text of [
      'Mandat de prélèvement SEPA',
      'Amélie Dupont',
      '12,50 €',
      'par mois',
      'En acceptant ce mandat, vous autorisez (A) sportclub',
      "J'accepte le mandat".replace("'", '&#39;'),
    ]) {
      expect(answer.text).toContain(text);
    }
    const expected: Record<string, string[]> = {
      de: ['SEPA-Lastschriftmandat', '12,50 €', 'monatlich', 'Ich ermächtige sportclub'],
      en: ['Direct debit mandate', '€12.50', 'per month', 'you authorise (A) sportclub'],
      'nl-be': ['Mandaat voor Europese domiciliëring', '€ 12,50', 'per maand', 'Door dit mandaat goed te keuren'],
    };
    for (const [language, texts] of Object.entries(expected)) {
      const sub = await arrange(f, { language, email: `${language}@example.com` });
      const text = (await page(sub.confirmationPage)).text;
      for (const t of texts) expect(text, language).toContain(t);
    }
  });

  it('answers 404 for unknown ids, old URLs, wrong and near-miss tokens, others’ tokens, bad ids; never 500', async () => {
    // This test counts pages, not guesses: the limit on wrong guesses is raised out of its way.
    const f = await startPages({ guesses: { burst: 1_000, perMinute: 1_000, maxClients: 10 } });
    const a = await arrange(f);
    const b = await arrange(f, { email: 'b@example.com' });
    const ta = tokenOf(a.confirmationPage);
    const tb = tokenOf(b.confirmationPage);
    const flip = (token: string, at: number) =>
      token.slice(0, at) + (token[at] === '0' ? '1' : '0') + token.slice(at + 1);
    const base = f.server.url;
    const paths = [
      `/mandate/accept/999999/${ta}`,
      // The old form: the mandate code where the secret is now.
      `/mandate/accept/${a.subId}/MNDT-${a.subId}`,
      `/mandate/accepted/${a.subId}/MNDT-${a.subId}`,
      `/mandate/accept/${a.subId}/mndt-${a.subId}`,
      // Near misses: a digit off at either end, one short or one long, upper case, percent-encoded.
      `/mandate/accept/${a.subId}/${flip(ta, 0)}`,
      `/mandate/accept/${a.subId}/${flip(ta, 63)}`,
      `/mandate/accept/${a.subId}/${ta.slice(0, -1)}`,
      `/mandate/accept/${a.subId}/${ta}0`,
      `/mandate/accept/${a.subId}/${ta.toUpperCase()}`,
      `/mandate/accept/${a.subId}/%${ta.charCodeAt(0).toString(16)}${ta.slice(1)}`,
      `/mandate/accepted/${a.subId}/${flip(ta, 31)}`,
      // Another subscription's secret, on this one's id, and this one's on another id.
      `/mandate/accept/${a.subId}/${tb}`,
      `/mandate/accept/${b.subId}/${ta}`,
      `/mandate/accepted/${a.subId}/${tb}`,
      `/mandate/accept/abc/${ta}`,
      `/mandate/accept/0${a.subId}/${ta}`,
      `/mandate/accept/99999999999999999999999/${ta}`,
      `/mandate/accept/9007199254740993/${ta}`,
      `/mandate/accept/-1/${ta}`,
      `/mandate/accept/${a.subId}/%E0%A4%A`,
      `/mandate/accept/${a.subId}`,
      `/mandate/accept/${a.subId}/${ta}/extra`,
      `/mandate`,
      `/mandate/`,
      `/invoice/`,
      `/invoice/not-a-token`,
      `/invoice/${'A'.repeat(32)}`,
      `/invoice/<script>`,
      `/invoice/${'A'.repeat(32)}/more`,
    ];
    for (const path of paths) {
      const answer = await page(`${base}${path}`);
      expect(answer.status, path).toBe(404);
      expectSecurityHeaders(answer.headers);
      expect(answer.text).toContain('Pagina niet gevonden');
    }
    // The real pages still answer.
    expect((await page(a.confirmationPage)).status).toBe(200);
    expect((await page(b.confirmationPage)).status).toBe(200);
    // The error page speaks the visitor's language when it knows no customer.
    expect((await page(`${base}/invoice/nope`, { headers: { 'accept-language': 'fr-FR,fr;q=0.9' } })).text).toContain(
      'Page introuvable',
    );
    // A POST to an unknown page is a 404 too, with a valid form or without, and changes nothing.
    const form = formOf(await page(a.confirmationPage));
    const before = await snapshot(f, a.subId);
    for (const wrong of [`MNDT-${a.subId}`, flip(ta, 7), tb]) {
      const path = `/mandate/accept/${a.subId}/${wrong}`;
      expect((await post(`${base}${path}`, { csrf: 'x.y' })).status, path).toBe(404);
      expect((await post(`${base}${path}`, { csrf: form.field }, form.cookie)).status, path).toBe(404);
    }
    expect(await snapshot(f, a.subId)).toEqual(before);
    // The API's own paths are not the pages'.
    expect((await page(`${base}/invoices`)).status).toBe(401);
    // The log never shows the secret part of a page's URL.
    const logged = f.lines.filter((line) => /^(GET|POST) \/(mandate|invoice)/.test(line));
    expect(logged.length).toBeGreaterThan(10);
    for (const line of logged) {
      expect(line).not.toMatch(/MNDT|AAAA/);
      for (const token of [ta, tb]) expect(line).not.toContain(token.slice(0, 16));
    }
  });

  it('answers 405 with Allow for other methods, and HEAD with the headers only', async () => {
    const f = await startPages();
    const { confirmationPage, id } = await arrange(f);
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const answer = await page(confirmationPage, { method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, HEAD, POST');
      expectSecurityHeaders(answer.headers);
    }
    const thanks = confirmationPage.replace('/accept/', '/accepted/');
    expect((await page(thanks, { method: 'POST' })).headers.get('allow')).toBe('GET, HEAD');
    const head = await page(confirmationPage, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.raw).toBe('');
    expectSecurityHeaders(head.headers);
    // And the invoice page allows GET and HEAD only.
    await f.api('PATCH', `/subscriptions/${id}`, {
      data: {
        type: 'subscription',
        id,
        attributes: { status: 'active', mandate_accepted: true, mandate_accepted_date: '2026-11-21' },
      },
    });
    const invoice = await finalisedInvoice(f, id, [{ description: 'x', amount: '1.00', tax_rate: '21', quantity: 1 }]);
    const refused = await page(invoice.url, { method: 'POST' });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('GET, HEAD');
  });

  it('escapes every value: a customer named <script> is shown as text', async () => {
    const f = await startPages();
    const { confirmationPage } = await arrange(f, {
      first_name: '<script>alert(1)</script>',
      last_name: '"Quote\' & <b>',
      company_name: '<img src=x onerror=alert(2)>',
    });
    const answer = await page(confirmationPage);
    expect(answer.status).toBe(200);
    expect(answer.raw).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(answer.raw).toContain('&quot;Quote&#39; &amp; &lt;b&gt;');
    expect(answer.raw).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(answer.raw).not.toMatch(/<script|<img|<b>/i);
  });

  it('refuses a post without a valid CSRF token (403) and changes nothing', async () => {
    const f = await startPages();
    const a = await arrange(f);
    const b = await arrange(f, { email: 'b@example.com' });
    const formA = formOf(await page(a.confirmationPage));
    const formB = formOf(await page(b.confirmationPage));
    const before = await snapshot(f, a.subId);
    const [token, mac] = formA.field.split('.') as [string, string];
    const otherToken = 'A'.repeat(43);
    const refusals: [string, Record<string, string>, string | undefined, Record<string, string>?][] = [
      ['no cookie', { csrf: formA.field }, undefined],
      ['no field', {}, formA.cookie],
      ['empty field', { csrf: '' }, formA.cookie],
      ['a cookie of another token', { csrf: formA.field }, `billing_mandate_csrf=${otherToken}`],
      ['a forged mac', { csrf: `${token}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}` }, formA.cookie],
      ['a field without mac', { csrf: token }, formA.cookie],
      ['another subscription’s form', { csrf: formB.field }, formB.cookie],
      ['a cross-site post', { csrf: formA.field }, formA.cookie, { 'sec-fetch-site': 'cross-site' }],
    ];
    for (const [what, form, cookie, headers] of refusals) {
      const answer = await post(a.confirmationPage, form, cookie, headers);
      expect(answer.status, what).toBe(403);
      expectSecurityHeaders(answer.headers);
      expect(answer.text, what).toContain('Formulier verlopen');
    }
    expect(await snapshot(f, a.subId)).toEqual(before);
    expect(before.subscription[0]).toMatchObject({
      status: 'unverified',
      mandate_accepted: 0,
      mandate_accepted_date: null,
    });
  });

  it('refuses bodies that are too large (413) or not a form (415)', async () => {
    const f = await startPages();
    const a = await arrange(f);
    const form = formOf(await page(a.confirmationPage));
    const before = await snapshot(f, a.subId);
    const big = await post(a.confirmationPage, { csrf: form.field, pad: 'x'.repeat(9 * 1024) }, form.cookie);
    expect(big.status).toBe(413);
    const json = await page(a.confirmationPage, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: form.cookie! },
      body: JSON.stringify({ csrf: form.field }),
    });
    expect(json.status).toBe(415);
    expect(await snapshot(f, a.subId)).toEqual(before);
  });

  it('accepts: mandate_accepted and its date, active, the first transaction scheduled, an event and its webhook; a second accept changes nothing', async () => {
    const f = await startPages();
    const a = await arrange(f, {}, { subscription_webhook_url: 'http://127.0.0.1:9/hooks/subscriptions' });
    const form = formOf(await page(a.confirmationPage));
    const eventsBefore = await f.rows('events', a.subId);
    expect(eventsBefore.map((e) => e.status)).toEqual(['unverified']);

    const accepted = await post(a.confirmationPage, { csrf: form.field }, form.cookie);
    expect(accepted.status).toBe(303);
    expectSecurityHeaders(accepted.headers);
    const thanks = `${f.server.baseUrl}/mandate/accepted/${a.subId}/${tokenOf(a.confirmationPage)}`;
    expect(accepted.headers.get('location')).toBe(thanks);

    const [sub] = await f.rows('subscriptions', a.subId);
    expect(sub).toMatchObject({ status: 'active', mandate_accepted: 1 });
    expect(new Date(sub.mandate_accepted_date).toISOString()).toBe(TEST_NOW);
    const transactions = await f.rows('transactions', a.subId);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({ origin: 'plan', amount_cents: 1250, description: 'Lidmaatschap Goud' });
    expect(['queued', 'scheduled']).toContain(transactions[0].status);
    const events = await f.rows('events', a.subId);
    expect(events.map((e) => [e.name, e.status])).toContainEqual(['subscription.status', 'active']);
    const deliveries = (await f.rows('webhook_deliveries')).filter(
      (d) => d.url === 'http://127.0.0.1:9/hooks/subscriptions',
    );
    expect(deliveries.map((d) => JSON.parse(d.body))).toContainEqual({
      subscription_id: String(a.subId),
      status: 'active',
    });
    // The API shows it the same.
    const viaApi = await f.api('GET', `/subscriptions/${a.subId}`);
    expect(viaApi.json.data.attributes).toMatchObject({ status: 'active', mandate_accepted: true });

    // The thank-you page, in the customer's language.
    const thanksPage = await page(thanks);
    expect(thanksPage.status).toBe(200);
    expectSecurityHeaders(thanksPage.headers);
    expect(thanksPage.text).toContain('Bedankt');

    // Accepting again: the same answer, nothing written.
    const after = await snapshot(f, a.subId);
    const again = await post(a.confirmationPage, { csrf: form.field }, form.cookie);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(thanks);
    expect(await snapshot(f, a.subId)).toEqual(after);

    // The page now says it was accepted, and has no form.
    const shown = await page(a.confirmationPage);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Machtiging al gegeven');
    expect(shown.text).toContain('21 november 2026');
    expect(shown.raw).not.toContain('<form');
  });

  it('sends the customer to success_redirect_url, which the page’s CSP allows as a form target', async () => {
    const f = await startPages();
    const target = 'https://shop.example.com/thanks?order=42&x=<y>';
    const a = await arrange(f, { language: 'en' }, { success_redirect_url: target });
    const shown = await page(a.confirmationPage);
    expect(shown.headers.get('content-security-policy')).toContain(
      `form-action 'self' ${f.server.baseUrl} https://shop.example.com;`,
    );
    const form = formOf(shown);
    const accepted = await post(a.confirmationPage, { csrf: form.field }, form.cookie);
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe(target);
  });

  it('keeps the date of a mandate accepted by other means, and activates the unverified subscription', async () => {
    const f = await startPages();
    const a = await arrange(f, {}, { mandate_accepted: true, mandate_accepted_date: '2026-11-01' });
    const form = formOf(await page(a.confirmationPage));
    expect((await post(a.confirmationPage, { csrf: form.field }, form.cookie)).status).toBe(303);
    const [sub] = await f.rows('subscriptions', a.subId);
    expect(sub.status).toBe('active');
    expect(new Date(sub.mandate_accepted_date).toISOString()).toBe('2026-10-31T23:00:00.000Z');
  });

  it('refuses to accept the mandate of a cancelled subscription: the page says so, a post changes nothing', async () => {
    const f = await startPages();
    const a = await arrange(f, { language: 'fr' });
    const form = formOf(await page(a.confirmationPage));
    const cancelled = await f.api('PATCH', `/subscriptions/${a.id}`, {
      data: { type: 'subscription', id: a.id, attributes: { status: 'cancelled' } },
    });
    expect(cancelled.status).toBe(200);
    const shown = await page(a.confirmationPage);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Abonnement résilié');
    expect(shown.text).toContain('ne peut plus être accepté');
    expect(shown.raw).not.toContain('<form');
    const before = await snapshot(f, a.subId);
    const refused = await post(a.confirmationPage, { csrf: form.field }, form.cookie);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('Abonnement résilié');
    expect(await snapshot(f, a.subId)).toEqual(before);
    expect(before.subscription[0]).toMatchObject({ status: 'cancelled', mandate_accepted: 0 });
  });

  it('serves the page of a supplied mandate code with SEPA punctuation, which is not in the URL', async () => {
    const f = await startPages();
    const code = "LID/2026 (A)+1?:.,'-";
    const a = await arrange(f, {}, { mandate_code: code });
    expect(a.confirmationPage).toMatch(new RegExp(`/mandate/accept/${a.subId}/[0-9a-f]{64}$`));
    const shown = await page(a.confirmationPage);
    expect(shown.status).toBe(200);
    expect(shown.raw).toContain('LID/2026 (A)+1?:.,&#39;-');
    // Before accepting, the thank-you page sends the customer to the form.
    const thanks = a.confirmationPage.replace('/accept/', '/accepted/');
    const early = await page(thanks);
    expect(early.status).toBe(303);
    expect(early.headers.get('location')).toBe(a.confirmationPage);
    const form = formOf(shown);
    const accepted = await post(a.confirmationPage, { csrf: form.field }, form.cookie);
    expect(accepted.headers.get('location')).toBe(thanks);
    expect((await page(thanks)).status).toBe(200);
    // The code in the URL, as the page's address was before it had a secret: 404.
    expect((await page(`${f.server.url}/mandate/accept/${a.subId}/${encodeURIComponent(code)}`)).status).toBe(404);
    expect((await page(`${f.server.url}/mandate/accept/${a.subId}/LID/2026`)).status).toBe(404);
  });

  it('slows a guesser: of 1,000 wrong secrets from one address 20 are looked at, the rest 429 unread', async () => {
    const f = await startPages();
    const a = await arrange(f);
    const b = await arrange(f, { email: 'b@example.com' });
    const ta = tokenOf(a.confirmationPage);
    const base = f.server.url;
    // Every kind of guess an attacker has: random tokens on real and unknown ids, the old form, near
    // misses of a real token, other thank-you pages and invoice tokens.
    const guess = (n: number): string => {
      switch (n % 6) {
        case 0:
          return `/mandate/accept/${a.subId}/${randomToken()}`;
        case 1:
          return `/mandate/accept/${(n % 50) + 1}/MNDT-${(n % 50) + 1}`;
        case 2:
          return `/mandate/accept/${b.subId}/${ta.slice(0, 63)}${ta[63] === 'f' ? 'e' : 'f'}`;
        case 3:
          return `/mandate/accepted/${1000 + n}/${randomToken()}`;
        case 4:
          return `/invoice/${randomToken().slice(0, 32)}`;
        default:
          return `/mandate/accept/${a.subId}/${randomToken()}`;
      }
    };
    const readsBefore = f.reads.length;
    const started = performance.now();
    const answers: { status: number; retryAfter: string | null }[] = [];
    // In rounds of 50 at once: the count is taken before each lookup, so a burst cannot slip past it.
    for (let round = 0; round < 20; round++) {
      const paths = Array.from({ length: 50 }, (_, i) => guess(round * 50 + i));
      const sent = paths.map((path) => fetch(`${base}${path}`, { redirect: 'manual' }));
      const batch = await Promise.all(sent);
      for (const response of batch) {
        await response.arrayBuffer();
        answers.push({ status: response.status, retryAfter: response.headers.get('retry-after') });
      }
    }
    const elapsed = performance.now() - started;
    // 20 at once, then one more every 3 s for as long as the guessing took.
    const allowed = 20 + Math.floor(elapsed / 3_000);
    const looked = answers.filter((x) => x.status === 404);
    const slowed = answers.filter((x) => x.status === 429);
    expect(answers).toHaveLength(1_000);
    expect(looked.length).toBeGreaterThanOrEqual(20);
    expect(looked.length).toBeLessThanOrEqual(allowed);
    expect(slowed.length).toBe(1_000 - looked.length);
    for (const x of slowed) expect(Number(x.retryAfter)).toBeGreaterThanOrEqual(1);
    for (const x of slowed) expect(Number(x.retryAfter)).toBeLessThanOrEqual(3);
    // None found a page, and the store was read for the allowed ones only.
    const pageReads = f.reads.slice(readsBefore).filter((name) => /^(pages|mandate)\./.test(name));
    expect(pageReads.length).toBeLessThanOrEqual(allowed);
    expect(await snapshot(f, a.subId)).toMatchObject({ subscription: [{ status: 'unverified', mandate_accepted: 0 }] });
    // The 429 is a page too, in the visitor's language, with the same headers. A slow machine may
    // have earned the guesser one more look (one every 3 s) since the rounds: the next guess is refused.
    let refused = await page(`${base}${guess(0)}`, { headers: { 'accept-language': 'en' } });
    if (refused.status === 404) refused = await page(`${base}${guess(0)}`, { headers: { 'accept-language': 'en' } });
    expect(refused.status).toBe(429);
    expectSecurityHeaders(refused.headers);
    expect(refused.text).toContain('Too many attempts');
  }, 120_000); // 1,000 requests over loopback: seconds alone, far more on a loaded machine

  it('refuses a slowed address its real pages too, before looking; another address is not slowed', async () => {
    // One guess an hour after the burst: no refill can land between the requests, however slow the machine.
    const f = await startPages({ guesses: { burst: 3, perMinute: 1 / 60, maxClients: 10 } });
    const a = await arrange(f);
    const wrong = () => `${f.server.url}/mandate/accept/${a.subId}/${randomToken()}`;
    for (let i = 0; i < 3; i++) expect((await page(wrong())).status).toBe(404);
    const readsBefore = f.reads.length;
    const refused = await page(a.confirmationPage);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3_000);
    expect(f.reads.slice(readsBefore).filter((name) => /^(pages|mandate)\./.test(name))).toEqual([]);
    expect(await getFrom('127.0.0.2', a.confirmationPage)).toEqual({ status: 200, retryAfter: undefined });
    expect((await getFrom('127.0.0.2', wrong())).status).toBe(404);
    expect((await page(a.confirmationPage)).status).toBe(429);
  });

  it('never counts a customer opening their own pages, however often', async () => {
    const f = await startPages();
    const a = await arrange(f, {}, { status: 'active' });
    const invoice = await finalisedInvoice(f, a.id, [
      { description: 'x', amount: '1.00', tax_rate: '21', quantity: 1 },
    ]);
    const form = formOf(await page(a.confirmationPage));
    for (let i = 0; i < 30; i++) {
      expect((await page(a.confirmationPage)).status).toBe(200);
      expect((await page(a.confirmationPage.replace('/accept/', '/accepted/'))).status).toBe(303);
      expect((await page(invoice.url)).status).toBe(200);
    }
    // A refused post (its form is no good) is no wrong guess either: its secret was right.
    for (let i = 0; i < 25; i++) {
      expect((await post(a.confirmationPage, { csrf: 'x.y' }, form.cookie)).status).toBe(403);
    }
    // 115 requests later the address still has all its 20 wrong guesses: the 21st is the first 429.
    const wrong = `${f.server.url}/mandate/accept/${a.subId}/${randomToken()}`;
    for (let i = 0; i < 20; i++) expect((await page(wrong)).status, `guess ${i + 1}`).toBe(404);
    expect((await page(wrong)).status).toBe(429);
  });

  it('gets a new secret when confirmation_sent goes back to false: old URL and form refused, new one sent', async () => {
    const f = await startPages();
    const a = await arrange(f, {}, { confirmation_sent: true });
    const oldPage = a.confirmationPage;
    const oldForm = formOf(await page(oldPage));
    const patch = { data: { type: 'subscription', id: a.id, attributes: { confirmation_sent: false } } };
    const patched = await f.api('PATCH', `/subscriptions/${a.id}`, patch);
    expect(patched.status).toBe(200);
    const newPage = patched.json.data.attributes.confirmation_page as string;
    expect(newPage).toMatch(new RegExp(`/mandate/accept/${a.subId}/[0-9a-f]{64}$`));
    expect(newPage).not.toBe(oldPage);
    expect((await f.api('GET', `/subscriptions/${a.id}`)).json.data.attributes.confirmation_page).toBe(newPage);
    // The new confirmation, the only one (it was sent by other means before), links the new page.
    const notifications = await f.rows('notifications', a.subId);
    expect(notifications).toHaveLength(1);
    expect(notifications[0].body).toContain(newPage);

    expect((await page(oldPage)).status).toBe(404);
    expect((await page(oldPage.replace('/accept/', '/accepted/'))).status).toBe(404);
    const before = await snapshot(f, a.subId);
    expect((await post(oldPage, { csrf: oldForm.field }, oldForm.cookie)).status).toBe(404);
    // A form shown under the old secret does not accept on the new page either.
    expect((await post(newPage, { csrf: oldForm.field }, oldForm.cookie)).status).toBe(403);
    expect(await snapshot(f, a.subId)).toEqual(before);

    const form = formOf(await page(newPage));
    expect((await post(newPage, { csrf: form.field }, form.cookie)).status).toBe(303);
    expect((await f.rows('subscriptions', a.subId))[0]).toMatchObject({ status: 'active', mandate_accepted: 1 });
  });

  it('lets two accepts race: one writes, both are sent on', async () => {
    const f = await startPages();
    const a = await arrange(f);
    const form = formOf(await page(a.confirmationPage));
    const answers = await Promise.all([1, 2, 3].map(() => post(a.confirmationPage, { csrf: form.field }, form.cookie)));
    expect(answers.map((x) => x.status)).toEqual([303, 303, 303]);
    const events = await f.rows('events', a.subId);
    expect(events.filter((e) => e.status === 'active')).toHaveLength(1);
    expect(await f.rows('transactions', a.subId)).toHaveLength(1);
  });
});

describe.each(ENGINES)('the invoice page (%s)', (engine) => {
  const startPages = (options: { now?: string } = {}) => startFixture({ ...options, engine });
  async function invoiceFixture(customer: Record<string, unknown> = {}) {
    const f = await startPages();
    const a = await arrange(
      f,
      {
        street: 'Kerkstraat',
        house_number: '12',
        house_number_add: 'B',
        postalcode: '1234 AB',
        city: 'Utrecht',
        country_iso2: 'NL',
        company_name: 'Jansen BV',
        ...customer,
      },
      { status: 'active' },
    );
    const invoice = await finalisedInvoice(f, a.id, [
      { description: 'Lunchbox', amount: '10.00', tax_rate: '21', quantity: 2 },
      { description: 'Boek <deel 1>', amount: '12.35', tax_rate: '9', quantity: 3 },
    ]);
    return { f, a, invoice };
  }

  it('shows a finalised invoice: creditor, reference, dates, customer and address, lines, VAT per rate and totals, status', async () => {
    const { f, invoice } = await invoiceFixture();
    // The API's own totals, for the page to agree with.
    expect(invoice.attributes).toMatchObject({
      amount_excl: '57.05',
      tax_amount: '7.53',
      amount_incl: '64.58',
      status: 'open',
    });
    expect(invoice.url).toMatch(new RegExp(`^${f.server.baseUrl}/invoice/[A-Za-z0-9_-]{32}$`));
    const answer = await page(invoice.url);
    expect(answer.status).toBe(200);
    expectSecurityHeaders(answer.headers);
    expect(answer.headers.get('content-security-policy')).toContain("form-action 'self';");
    const t = answer.text;
    for (const text of [
      'sportclub',
      `Factuur ${invoice.attributes.reference}`,
      'Factuurdatum',
      '21 november 2026',
      'Openstaand',
      'Jansen BV',
      'Jan Jansen',
      'Kerkstraat 12 B',
      '1234 AB Utrecht',
      'Boek &lt;deel 1&gt;',
    ]) {
      expect(t).toContain(text);
    }
    // Lines: description, quantity, unit price, rate, amount.
    expect(t).toMatch(
      /<td>Lunchbox<\/td><td class="num">2<\/td><td class="num">€ 10,00<\/td><td class="num">21%<\/td><td class="num">€ 20,00<\/td>/,
    );
    expect(t).toMatch(
      /<td>Boek &lt;deel 1&gt;<\/td><td class="num">3<\/td><td class="num">€ 12,35<\/td><td class="num">9%<\/td><td class="num">€ 37,05<\/td>/,
    );
    // Totals and VAT per rate, highest rate first.
    expect(t).toContain('<td>Totaal excl. btw</td><td class="num">€ 57,05</td>');
    expect(t).toContain('<td>Btw 21% over € 20,00</td><td class="num">€ 4,20</td>');
    expect(t).toContain('<td>Btw 9% over € 37,05</td><td class="num">€ 3,33</td>');
    expect(t.indexOf('Btw 21%')).toBeLessThan(t.indexOf('Btw 9%'));
    expect(t).toContain('<td>Totaal btw</td><td class="num">€ 7,53</td>');
    expect(t).toContain('<td>Totaal incl. btw</td><td class="num">€ 64,58</td>');
    // Printable: A4, chrome hidden in print.
    expect(t).toContain('@page{size:A4');
    expect(t).toContain('@media print');
    expect(answer.raw).not.toMatch(/<script|<form/i);
  });

  it('speaks the customer’s language, escapes the customer’s name, and shows a credit note with its original', async () => {
    const { f, a, invoice } = await invoiceFixture({ language: 'fr', first_name: '<script>alert(1)</script>' });
    const answer = await page(invoice.url);
    expect(answer.raw).toContain('<html lang="fr">');
    expect(answer.raw).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(answer.raw).not.toMatch(/<script/i);
    for (const text of [
      'Facture',
      'À payer',
      'Total HT',
      '57,05 €',
      'TVA 21 % sur 20,00 €',
      '4,20 €',
      'TVA 9 % sur 37,05 €',
      'Total TTC',
      '64,58 €',
    ])
      expect(answer.text).toContain(text);
    // Its credit note: negated amounts, naming the original.
    const credit = await f.api('POST', `/invoices/${invoice.id}/credit`);
    expect([200, 201]).toContain(credit.status);
    const creditId = credit.json.data.id as string;
    const finalised = await f.api('PATCH', `/invoices/${creditId}/finalise`);
    expect(finalised.status, JSON.stringify(finalised.json)).toBe(200);
    const creditPage = await page(finalised.json.data.attributes.hosted_invoice_url);
    expect(creditPage.status).toBe(200);
    expect(creditPage.text).toContain('Avoir');
    expect(creditPage.text).toContain(`Avoir sur la facture ${invoice.attributes.reference}`);
    expect(creditPage.text).toContain('-64,58 €');
    expect(a.subId).toBeGreaterThan(0);
  });

  it('has no page for a draft, and 404s any other token', async () => {
    const { f, a, invoice } = await invoiceFixture();
    const draft = await f.api('POST', '/invoices', {
      data: { type: 'invoice', attributes: { subscription_id: a.id } },
    });
    expect(draft.json.data.attributes.hosted_invoice_url).toBeNull();
    const token = invoice.url.slice(invoice.url.lastIndexOf('/') + 1);
    const other = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect((await page(`${f.server.url}/invoice/${other}`)).status).toBe(404);
    expect(
      (
        await page(
          `${f.server.url}/invoice/${token.toLowerCase() === token ? token.toUpperCase() : token.toLowerCase()}`,
        )
      ).status,
    ).toBe(404);
    expect((await page(`${f.server.url}/invoice/${token}`)).status).toBe(200);
  });
});
