import type { Group } from '../../lib/command/registry.js';

export const subscriptions: Group = {
  name: 'subscriptions',
  summary: 'subscriptions: a customer on a plan, collected under a mandate',
  examples: [
    'billing subscriptions list --status active --customer-id 42',
    'billing subscriptions create --customer-id 42 --subscription-plan-id 1',
    'billing subscriptions activate 7 --mandate-accepted-date 2026-12-01',
    'billing subscriptions pause 7 --resume-date 2027-03-01',
    'billing subscriptions cancel 7 --on 2027-06-30',
    'billing subscriptions transactions 7',
  ],
  verbs: {
    list: { summary: 'list subscriptions, a page at a time', load: () => import('./list.js') },
    get: { summary: 'show one subscription', load: () => import('./get.js') },
    create: { summary: 'create a subscription of a customer on a plan', load: () => import('./create.js') },
    update: { summary: 'change a subscription', load: () => import('./update.js') },
    transactions: {
      summary: "list a subscription's transactions, newest due date first",
      load: () => import('./transactions.js'),
    },
    activate: {
      summary: 'activate a subscription (with the day its mandate was accepted)',
      load: () => import('./activate.js'),
    },
    pause: {
      summary: 'pause a subscription: what is not yet collected is cancelled',
      load: () => import('./pause.js'),
    },
    resume: { summary: 'resume a paused subscription', load: () => import('./resume.js') },
    cancel: { summary: 'cancel a subscription now, or on a day (--on)', load: () => import('./cancel.js') },
  },
};

export const SUBSCRIPTION = { type: 'subscription', path: '/subscriptions', noun: 'subscription' } as const;
