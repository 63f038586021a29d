// HTML for the customers' pages: escaping, the one layout and style sheet, and the headers every
// page goes out with. The URLs of these pages hold a secret (the mandate code, the invoice token),
// so nothing may leak them: no referrer, no caching, no framing, no scripts, no outside resources.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Lang } from './words.js';
import { FORMATS } from './words.js';
import { textOf } from '../schemas/json.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and for quoted attribute values alike. */
export const escapeHtml = (value: unknown): string => textOf(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * A template tag that escapes every interpolated value, except an Html (already-escaped markup
 * made by this tag) or an array of them: so no value can reach the page unescaped by accident.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    out += piece(values[i]) + strings[i + 1];
  }
  return new Html(out);
}

const piece = (value: unknown): string => {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
};

/** The one style sheet, screen and print (A4, no chrome); allowed by its hash, not by 'unsafe-inline'. */
export const STYLE = `
*{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1b1f24;background:#f4f5f7;line-height:1.45}
body{margin:0;padding:2rem 1rem}
main{max-width:46rem;margin:0 auto;background:#fff;border:1px solid #d8dce1;border-radius:6px;padding:2rem}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.25rem;margin:1rem 0}
dl.facts dt{color:#57606a}
dl.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
p.mandate{background:#f6f8fa;border-left:4px solid #0a66c2;padding:.75rem 1rem;font-size:.95rem}
p.terms{white-space:pre-line;font-size:.9rem;color:#333}
form{margin-top:1.5rem}
button{font:inherit;font-weight:600;color:#fff;background:#0a66c2;border:0;border-radius:6px;padding:.7rem 1.4rem;cursor:pointer}
button:focus-visible{outline:3px solid #79b8ff;outline-offset:2px}
p.notice{font-weight:600}
a{color:#0a66c2}
header.invoice{display:flex;justify-content:space-between;gap:2rem;flex-wrap:wrap;margin-bottom:1.5rem}
header.invoice .creditor{font-size:1.15rem;font-weight:700}
address{font-style:normal}
table{width:100%;border-collapse:collapse;margin:1rem 0;font-variant-numeric:tabular-nums}
th,td{padding:.4rem .5rem;border-bottom:1px solid #e1e4e8;vertical-align:top;text-align:left}
th{font-size:.85rem;color:#57606a;font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap}
table.totals{width:auto;margin-left:auto;min-width:60%}
table.totals td{border:0;padding:.2rem .5rem}
table.totals tr.grand td{border-top:2px solid #1b1f24;font-weight:700;padding-top:.4rem}
.status{display:inline-block;padding:.1rem .6rem;border-radius:999px;background:#eef1f4;font-weight:600}
.status-paid,.status-completed{background:#dafbe1;color:#116329}
.status-charged_back,.status-cancelled{background:#ffebe9;color:#a40e26}
.hint{color:#57606a;font-size:.85rem;margin-top:2rem}
@page{size:A4;margin:16mm 14mm}
@media print{
html{background:#fff;font-size:10.5pt}
body{padding:0}
main{max-width:none;border:0;border-radius:0;padding:0}
.noprint,form,.hint{display:none!important}
a{color:inherit;text-decoration:none}
tr{break-inside:avoid}
.status{border:1px solid #999;background:none!important;color:#000!important}
}
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** A whole page in a language: one <style> (allowed by hash), no script, no outside resource. */
export function layout(lang: Lang, title: string, body: Html): string {
  return `<!doctype html>\n${html`<html lang="${FORMATS[lang].htmlLang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><meta name="robots" content="noindex, nofollow"><title>${title}</title><style>${new Html(STYLE)}</style></head><body><main>${body}</main></body></html>`.text}\n`;
}

/** The origin of an http(s) URL, for a CSP source list; undefined for anything else. */
export function originOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

export interface PageAnswer {
  status: number;
  /** The whole document; none for a redirect. */
  body?: string;
  /** Origins (besides 'self') a form on the page may post to or be redirected to after posting. */
  formTargets?: readonly string[];
  headers?: Record<string, string | string[]>;
}

/**
 * The strict policy: nothing may load but the page's own style sheet (by hash); no script at all;
 * forms post to this server, and CSP also checks where a form's answer redirects, so the origin of
 * the success_redirect_url is named too; never inside a frame; no <base> rewriting.
 */
export function contentSecurityPolicy(formTargets: readonly string[] = []): string {
  const targets = ["'self'", ...new Set(formTargets)].join(' ');
  return `default-src 'none'; style-src ${STYLE_HASH}; img-src 'none'; script-src 'none'; form-action ${targets}; frame-ancestors 'none'; base-uri 'none'`;
}

/** Whether the request says a body follows. */
export const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** Writes a page (or a redirect) with the security headers; HEAD gets the headers only (node:http drops the body). */
export function sendPage(req: IncomingMessage, res: ServerResponse, answer: PageAnswer): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | string[] | number> = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'content-security-policy': contentSecurityPolicy(answer.formTargets),
    ...answer.headers,
  };
  const body = answer.body ?? '';
  headers['content-length'] = Buffer.byteLength(body);
  // A body left unread (a refused upload): the connection is not reused, so it need not be drained.
  if (!req.complete && hasBody(req)) headers.connection = 'close';
  res.writeHead(answer.status, headers);
  res.end(body);
}
