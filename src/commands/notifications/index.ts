import type { Group } from '../../lib/command/registry.js';

export const notifications: Group = {
  name: 'notifications',
  summary: 'messages to customers (mandate confirmations, invoices) kept by the service',
  examples: [
    'billing notifications list',
    'billing notifications list --subscription-id 7',
    'billing notifications list --customer-id 42 --json',
  ],
  verbs: {
    list: { summary: 'list notifications, a page at a time', load: () => import('./list.js') },
  },
};

export const NOTIFICATION = { type: 'notification', path: '/notifications', noun: 'notification' } as const;
