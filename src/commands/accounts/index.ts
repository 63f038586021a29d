import type { Group } from '../../lib/command/registry.js';

export const accounts: Group = {
  name: 'accounts',
  summary: 'accounts of the embedded store, their settings and API keys (embedded only)',
  examples: [
    'billing accounts list',
    'billing accounts create acme --json',
    'billing accounts update acme --invoice-prefix ACME-',
    'billing accounts rotate-key acme --yes',
  ],
  verbs: {
    list: { summary: 'list accounts', load: () => import('./list.js') },
    show: { summary: "show an account's settings", load: () => import('./show.js') },
    create: { summary: 'create an account and its first API key (shown once)', load: () => import('./create.js') },
    update: {
      summary: "change an account's invoice prefix, time zone or how it collects (SEPA)",
      load: () => import('./update.js'),
    },
    'rotate-key': {
      summary: 'replace the API keys of an account with a new one (shown once)',
      load: () => import('./rotate-key.js'),
    },
    'rotate-webhook-secret': {
      summary: "replace the secret an account's webhook deliveries are signed with",
      load: () => import('./rotate-webhook-secret.js'),
    },
  },
};
