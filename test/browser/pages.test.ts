// The customers' pages in a real browser: Debian's headless Chromium, driven by playwright-core
// (never a downloaded browser). A person accepts the mandate and lands on the success URL; the
// invoice is printed to PDF and its totals read back from the PDF's text. Loopback only.
import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { finalisedInvoice, plain, startPages } from './fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const WAIT_MS = 15_000;

let browser: Browser;
beforeAll(async () => {
  // No browser is ever downloaded: without Debian's Chromium these tests fail, they do not skip.
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium); the browser tests need it`,
    );
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: WAIT_MS });
});
afterAll(async () => {
  await browser?.close();
});

const pages: Page[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.context().close()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A fresh browser context (no cookies from another test) with its page; CSP reports collected. */
async function newPage(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  pages.push(page);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { page, problems };
}

/** The shop's thank-you page: a tiny server on 127.0.0.1 that answers 200 "thanks" and remembers what came. */
async function shop(): Promise<{ url: string; requests: { url: string; headers: IncomingHttpHeaders }[] }> {
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end('thanks');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/done?order=42`, requests };
}

/** The text of every page of a PDF, page by page, with plain spaces. */
async function pdfText(pdf: Buffer): Promise<{ pages: string[]; size: number[] }> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, useSystemFonts: false })
    .promise;
  try {
    const texts: string[] = [];
    let size: number[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      if (n === 1) size = page.view;
      const content = await page.getTextContent();
      texts.push(plain(content.items.map((item) => ('str' in item ? item.str : '')).join(' ')).replace(/\s+/g, ' '));
    }
    return { pages: texts, size };
  } finally {
    await doc.destroy();
  }
}

describe('a customer in a browser', () => {
  it('opens the mandate page, clicks accept, lands on the success URL; the subscription is then active', async () => {
    const f = await startPages();
    const target = await shop();
    const plan = await f.plan();
    const customer = await f.customer({ first_name: 'Anna', last_name: 'de Vries', email: 'anna@example.com' });
    const sub = await f.subscription({
      customer_id: Number(customer),
      subscription_plan_id: plan,
      success_redirect_url: target.url,
    });

    const { page, problems } = await newPage();
    const shown = await page.goto(sub.confirmationPage);
    expect(shown?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Machtiging voor automatische incasso');
    expect(plain(await page.locator('main').innerText())).toContain('€ 12,50');

    await Promise.all([
      page.waitForURL(target.url, { timeout: WAIT_MS }),
      page.getByRole('button', { name: 'Ik ga akkoord met de machtiging' }).click(),
    ]);
    expect(await page.locator('body').innerText()).toBe('thanks');
    // The shop learned nothing of the page's URL (the mandate code): no referrer.
    // (The browser may also ask the shop for its favicon.)
    const arrivals = target.requests.filter((r) => r.url.startsWith('/done'));
    expect(arrivals).toHaveLength(1);
    expect(arrivals[0].url).toBe('/done?order=42');
    expect(arrivals[0].headers.referer).toBeUndefined();
    expect(problems).toEqual([]);

    const [row] = await f.rows('subscriptions', Number(sub.id));
    expect(row).toMatchObject({ status: 'active', mandate_accepted: 1 });
    expect(row.mandate_accepted_date).not.toBeNull();
    expect(await f.rows('transactions', Number(sub.id))).toHaveLength(1);

    // Back on the page: accepted, no form.
    await page.goto(sub.confirmationPage);
    expect(await page.locator('h1').innerText()).toBe('Machtiging al gegeven');
    expect(await page.locator('form').count()).toBe(0);
  });

  it('lands on the thank-you page in the customer’s language when there is no success URL', async () => {
    const f = await startPages();
    const plan = await f.plan();
    const customer = await f.customer({
      language: 'de',
      email: 'max@example.de',
      first_name: 'Max',
      last_name: 'Müller',
    });
    const sub = await f.subscription({ customer_id: Number(customer), subscription_plan_id: plan });
    const { page, problems } = await newPage();
    await page.goto(sub.confirmationPage);
    await Promise.all([
      page.waitForURL(/\/mandate\/accepted\//, { timeout: WAIT_MS }),
      page.getByRole('button', { name: 'Mandat erteilen' }).click(),
    ]);
    expect(await page.locator('h1').innerText()).toBe('Vielen Dank');
    expect(problems).toEqual([]);
    const [row] = await f.rows('subscriptions', Number(sub.id));
    expect(row.status).toBe('active');
  });

  it('prints the invoice to an A4 PDF whose text carries the totals and the VAT per rate', async () => {
    const f = await startPages();
    const plan = await f.plan();
    const customer = await f.customer({
      company_name: 'De Vries & Co',
      street: 'Dorpsstraat',
      house_number: '7',
      postalcode: '9711 AA',
      city: 'Groningen',
    });
    const sub = await f.subscription({ customer_id: Number(customer), subscription_plan_id: plan, status: 'active' });
    const invoice = await finalisedInvoice(f, sub.id, [
      { description: 'Lunchbox', amount: '10.00', tax_rate: '21', quantity: 2 },
      { description: 'Boek', amount: '13.46', tax_rate: '9', tax_included: true, quantity: 3 },
    ]);
    // 3 x 13.46 incl. 9%: unit excl 12.35, tax 1.11; with 2 x 10.00 + 21%.
    expect(invoice.attributes).toMatchObject({ amount_excl: '57.05', tax_amount: '7.53', amount_incl: '64.58' });

    const { page, problems } = await newPage();
    const shown = await page.goto(invoice.url);
    expect(shown?.status()).toBe(200);
    await page.emulateMedia({ media: 'print' });
    const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
    expect(problems).toEqual([]);
    const { pages: texts, size } = await pdfText(pdf);
    expect(texts).toHaveLength(1);
    // A4 in points, as the page's @page asks.
    expect(Math.round(size[2])).toBe(595);
    expect(Math.round(size[3])).toBe(842);
    const text = texts[0];
    expect(text).toContain(`Factuur ${invoice.attributes.reference}`);
    expect(text).toContain('De Vries & Co');
    expect(text).toMatch(/Totaal excl\. btw € 57,05/);
    expect(text).toMatch(/Btw 21% over € 20,00 € 4,20/);
    expect(text).toMatch(/Btw 9% over € 37,05 € 3,33/);
    expect(text).toMatch(/Totaal btw € 7,53/);
    expect(text).toMatch(/Totaal incl\. btw € 64,58/);
    // The screen-only hint is not printed.
    expect(text).not.toContain('afdrukfunctie');
  });
});
