// The printable invoice at hosted_invoice_url: <base>/invoice/<hosted token>. The token (24 random
// bytes, made when the invoice is finalised) is the credential; the invoice id is not in the URL.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Customer } from '../core/customers.js';
import { findHostedInvoice, type HostedInvoice } from '../core/invoices.js';
import { localDate } from '../core/time.js';
import { errorPage } from './errors.js';
import { html, layout, sendPage } from './html.js';
import type { PagesOptions } from './index.js';
import { FORMATS, INVOICE, pageLanguage, type Lang } from './words.js';

/** What a hosted token looks like (base64url); anything else is not looked up at all. */
export const HOSTED_TOKEN = /^[A-Za-z0-9_-]{16,128}$/;

const fullName = (c: Customer): string => [c.first_name, c.middle_name, c.last_name].filter(Boolean).join(' ');

function render(lang: Lang, data: HostedInvoice): string {
  const w = INVOICE[lang];
  const f = FORMATS[lang];
  const { invoice, lines, customer, account } = data;
  const tz = account.time_zone;
  const credit = invoice.original_invoice_id !== null;
  const title = credit ? w.creditNote : w.invoice;
  const reference = invoice.reference ?? '';
  const status = w.statuses[invoice.status] ?? invoice.status;

  // The VAT per rate as the invoice keeps it (exact cents, highest rate first), with each rate's
  // base (quantity x unit excl of the lines at that rate): both sums of integers.
  const taxRates = JSON.parse(invoice.tax_rates) as [number, number][];
  const bases = new Map<number, number>();
  for (const line of lines)
    bases.set(line.tax_rate, (bases.get(line.tax_rate) ?? 0) + line.quantity * line.unit_excl_cents);
  const total = invoice.amount_excl_cents + invoice.tax_amount_cents;

  const street = [customer.street, customer.house_number, customer.house_number_add].filter(Boolean).join(' ');
  const place = [customer.postalcode, customer.city].filter(Boolean).join(' ');
  const addressLines = [customer.company_name, fullName(customer), street, place, customer.country_iso2].filter(
    (line): line is string => Boolean(line),
  );

  const creditor = account.is_default === 1 && account.name === 'default' ? '' : account.name;
  const dateRow = (label: string, iso: string | null) =>
    iso ? html`<dt>${label}</dt><dd>${f.date(localDate(iso, tz))}</dd>` : html``;

  const body = html`<header class="invoice">
<div><div class="creditor">${creditor}</div><h1>${title} ${reference}</h1>${credit && data.originalReference ? html`<p>${w.creditFor(data.originalReference)}</p>` : html``}</div>
<dl class="facts">
<dt>${w.reference}</dt><dd>${reference}</dd>
${dateRow(w.invoiceDate, invoice.invoice_date)}
${dateRow(w.dueDate, invoice.transaction_date)}
<dt>${w.status}</dt><dd><span class="status status-${invoice.status}">${status}</span></dd>
</dl>
</header>
<section><h2>${w.billedTo}</h2><address>${addressLines.map((line, i) => html`${i > 0 ? html`<br>` : html``}${line}`)}</address>
${customer.vat_number ? html`<p>${w.vatNumber}: ${customer.vat_number}</p>` : html``}</section>
<table class="lines">
<thead><tr><th>${w.description}</th><th class="num">${w.quantity}</th><th class="num">${w.unitPrice}</th><th class="num">${w.vatRate}</th><th class="num">${w.lineAmount}</th></tr></thead>
<tbody>
${lines.map(
  (
    line,
  ) => html`<tr><td>${line.description}</td><td class="num">${line.quantity}</td><td class="num">${f.money(line.unit_excl_cents)}</td><td class="num">${f.rate(line.tax_rate)}</td><td class="num">${f.money(line.quantity * line.unit_excl_cents)}</td></tr>
`,
)}</tbody>
</table>
<table class="totals">
<tr><td>${w.subtotal}</td><td class="num">${f.money(invoice.amount_excl_cents)}</td></tr>
${taxRates.map(
  ([
    rate,
    cents,
  ]) => html`<tr class="vat"><td>${w.vatAt(f.rate(rate), f.money(bases.get(rate) ?? 0))}</td><td class="num">${f.money(cents)}</td></tr>
`,
)}<tr><td>${w.vatTotal}</td><td class="num">${f.money(invoice.tax_amount_cents)}</td></tr>
<tr class="grand"><td>${w.total}</td><td class="num">${f.money(total)}</td></tr>
</table>
<p class="hint noprint">${w.printHint}</p>`;
  return layout(lang, `${title} ${reference}`, body);
}

/** Answers, then says whether the token was an invoice's (false: a wrong guess). */
export type InvoicePage = (req: IncomingMessage, res: ServerResponse, token: string) => Promise<boolean>;

export function invoicePage(options: PagesOptions): InvoicePage {
  const { store } = options;
  return async (req, res, token) => {
    const found = HOSTED_TOKEN.test(token) ? store.read(() => findHostedInvoice(token), 'pages.invoice') : undefined;
    const data = await found;
    if (!data) {
      sendPage(req, res, errorPage(req, 404));
      return false;
    }
    sendPage(req, res, { status: 200, body: render(pageLanguage(data.customer.language), data) });
    return true;
  };
}
