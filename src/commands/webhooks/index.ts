import type { Group } from '../../lib/command/registry.js';

export const webhooks: Group = {
  name: 'webhooks',
  summary: "deliveries of events to the subscriptions' webhook URLs: list them, send one again",
  examples: ['billing webhooks list --status failed', 'billing webhooks retry 31'],
  verbs: {
    list: { summary: 'list webhook deliveries, a page at a time', load: () => import('./list.js') },
    retry: {
      summary: 'send a delivery again now (a failed one gets another day of retries)',
      load: () => import('./retry.js'),
    },
  },
};

export const DELIVERY = { type: 'webhook-delivery', path: '/webhook-deliveries', noun: 'webhook delivery' } as const;
