import type { Group } from '../../lib/command/registry.js';

export const plans: Group = {
  name: 'plans',
  summary: 'subscription plans: what is collected, how much and how often',
  examples: [
    'billing plans list',
    'billing plans get 3 --json',
    'billing plans create --name "Monthly membership" --amount 12,50',
    'billing plans update 3 --amount 13,50',
    'billing plans archive 3',
  ],
  verbs: {
    list: { summary: 'list subscription plans', load: () => import('./list.js') },
    get: { summary: 'show one plan', load: () => import('./get.js') },
    subscriptions: { summary: "list a plan's subscriptions", load: () => import('./subscriptions.js') },
    create: {
      summary: 'create a plan (embedded store only; the hosted service makes plans in its dashboard)',
      load: () => import('./create.js'),
    },
    update: {
      summary: 'change a plan: name, description, amount, terms, send-invoice (embedded store only)',
      load: () => import('./update.js'),
    },
    archive: {
      summary: 'archive a plan: no new subscriptions on it, its own go on (embedded store only)',
      load: () => import('./archive.js'),
    },
  },
};

export const PLAN = { type: 'subscription-plan', path: '/subscription-plans', noun: 'plan' } as const;
