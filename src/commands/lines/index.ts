import type { Group } from '../../lib/command/registry.js';

export const lines: Group = {
  name: 'lines',
  summary: 'invoice lines: what a draft invoice bills, one amount and tax rate each',
  examples: [
    'billing lines create --invoice-id 12 --description "Lunchbox" --amount 10 --tax-rate 21 --quantity 2',
    'billing lines create --invoice-id 12 --description "Loyalty discount" --amount -5 --tax-rate 21',
    'billing lines update 31 --quantity 3',
    'billing lines delete 31 --yes',
    'billing invoices lines 12',
  ],
  verbs: {
    get: { summary: 'show one invoice line', load: () => import('./get.js') },
    create: { summary: 'add a line to a draft invoice', load: () => import('./create.js') },
    update: { summary: 'change a line of a draft invoice', load: () => import('./update.js') },
    delete: { summary: 'delete a line of a draft invoice', load: () => import('./delete.js') },
  },
};

export const LINE = { type: 'invoice-line', path: '/invoice-lines', noun: 'invoice line' } as const;
