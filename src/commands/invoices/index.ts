import type { Group } from '../../lib/command/registry.js';

export const invoices: Group = {
  name: 'invoices',
  summary: 'invoices: what a subscription bills, made of lines, finalised with a reference',
  examples: [
    'billing invoices list --status open --customer-id 42',
    'billing invoices create --subscription-id 7',
    'billing lines create --invoice-id 12 --description "Lunchbox" --amount 10 --tax-rate 21 --quantity 2',
    'billing invoices finalise 12',
    'billing invoices credit 12',
    'billing invoices list --status completed --refund-due',
    'billing invoices audit',
  ],
  verbs: {
    list: { summary: 'list invoices, a page at a time', load: () => import('./list.js') },
    get: { summary: 'show one invoice', load: () => import('./get.js') },
    create: { summary: 'create a draft invoice of a subscription', load: () => import('./create.js') },
    update: { summary: 'change a draft invoice', load: () => import('./update.js') },
    finalise: {
      summary: 'finalise a draft: its reference, and a transaction for its amount',
      aliases: ['finalize'],
      load: () => import('./finalise.js'),
    },
    credit: {
      summary: 'make a draft credit invoice of an invoice, or of some of its lines (negated)',
      load: () => import('./credit.js'),
    },
    pay: { summary: 'mark an invoice paid (paid outside the service)', load: () => import('./pay.js') },
    refunded: {
      summary: 'mark a credit invoice owed to the customer as paid back',
      load: () => import('./refunded.js'),
    },
    delete: { summary: 'delete a draft invoice and its lines', load: () => import('./delete.js') },
    lines: { summary: "list an invoice's lines", load: () => import('./lines.js') },
    audit: {
      summary: 'check the references of finalised invoices for gaps and duplicates',
      load: () => import('./audit.js'),
    },
  },
};

export const INVOICE = { type: 'invoice', path: '/invoices', noun: 'invoice' } as const;
