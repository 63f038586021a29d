import type { Group } from '../../lib/command/registry.js';

export const collections: Group = {
  name: 'collections',
  summary:
    "SEPA Direct Debit: batches of what is due, their pain.008 files for the bank, and the bank's reports read back",
  examples: [
    'billing collections create',
    'billing collections export 3 --out batch-3.xml',
    'billing collections import camt054-2026-12-02.xml',
    'billing collections list',
  ],
  verbs: {
    list: { summary: 'list collection batches, newest last', load: () => import('./list.js') },
    get: {
      summary: 'show a batch: its totals, blocks and what the bank said of its collections',
      load: () => import('./get.js'),
    },
    create: {
      summary: 'put what is due into a new batch, listing what is left out and why',
      load: () => import('./create.js'),
    },
    export: {
      summary: "write a batch's pain.008 file (to upload to the bank); marks it exported",
      load: () => import('./export.js'),
    },
    import: {
      summary: "read the bank's reports (camt.054, camt.053, pain.002) and settle the collections",
      load: () => import('./import.js'),
    },
    cancel: {
      summary: 'cancel a batch before its export: its transactions are free again',
      load: () => import('./cancel.js'),
    },
  },
};

export const COLLECTION = { type: 'collection', path: '/collections', noun: 'collection' } as const;
export const BANK_REPORT = { type: 'bank-report', path: '/bank-reports', noun: 'bank report' } as const;
