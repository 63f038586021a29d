import type { Group } from '../../lib/command/registry.js';

export const customers: Group = {
  name: 'customers',
  summary: 'customers: the people and companies you collect from',
  examples: [
    'billing customers list --search jansen',
    'billing customers get jan@example.com',
    'billing customers create --first-name Jan --last-name Jansen --email jan@example.com',
    'billing customers update 42 --city Utrecht',
  ],
  verbs: {
    list: { summary: 'list customers, a page at a time', load: () => import('./list.js') },
    get: { summary: 'show one customer', load: () => import('./get.js') },
    create: { summary: 'create a customer', load: () => import('./create.js') },
    update: { summary: 'change a customer', load: () => import('./update.js') },
    archive: { summary: 'archive a customer', load: () => import('./archive.js') },
    unarchive: { summary: 'unarchive a customer', load: () => import('./unarchive.js') },
    subscriptions: { summary: "list a customer's subscriptions", load: () => import('./subscriptions.js') },
  },
};

export const CUSTOMER = { type: 'customer', path: '/customers', noun: 'customer' } as const;
