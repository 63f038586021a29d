import type { Group } from '../../lib/command/registry.js';

export const events: Group = {
  name: 'events',
  summary: 'status changes of subscriptions and transactions, as sent to the webhooks',
  examples: ['billing events list', 'billing events list --subscription-id 7', 'billing events list --all --json'],
  verbs: {
    list: {
      summary: 'list events, a page at a time (newest first; with --after, oldest first)',
      load: () => import('./list.js'),
    },
  },
};

export const EVENT = { type: 'event', path: '/events', noun: 'event' } as const;
