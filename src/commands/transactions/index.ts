import type { Group } from '../../lib/command/registry.js';

export const transactions: Group = {
  name: 'transactions',
  summary: "transactions: the collections of a subscription's payments",
  examples: [
    'billing transactions list --status failed --due-from 2026-11-01',
    'billing transactions list --subscription-id 7',
    'billing transactions create --subscription-id 7 --amount 12,50 --due-date 2026-12-01',
    'billing transactions get ffa38848-6abc-4d22-b6b0-63fe1780969c',
    'billing transactions cancel ffa38848-6abc-4d22-b6b0-63fe1780969c --yes',
    'billing transactions simulate ffa38848-6abc-4d22-b6b0-63fe1780969c --outcome charged_back --reason-code AM04',
  ],
  verbs: {
    list: {
      summary:
        "list the account's transactions, or a subscription's, newest due date first: failed collections in one place",
      load: () => import('./list.js'),
    },
    get: { summary: 'show one transaction, with its history', load: () => import('./get.js') },
    create: {
      summary: 'create a transaction outside the plan (a one-off collection)',
      load: () => import('./create.js'),
    },
    cancel: { summary: 'cancel a transaction not yet collected', load: () => import('./cancel.js') },
    simulate: {
      summary: 'set the outcome of a collection: charged back or failed (embedded store only)',
      load: () => import('./simulate.js'),
    },
  },
};

export const TRANSACTION = { type: 'transaction', path: '/transactions', noun: 'transaction' } as const;
