import type { Group } from '../../lib/command/registry.js';

export const profiles: Group = {
  name: 'profiles',
  summary: 'saved connections: a base URL, an API key and/or a store',
  examples: [
    'billing profiles add prod --base-url https://billing.example.com --api-key "$KEY" --use',
    'billing profiles list',
    'billing profiles remove old --yes',
  ],
  verbs: {
    list: { summary: 'list profiles (keys hidden)', load: () => import('./verbs.js').then((m) => m.list) },
    add: { summary: 'save a profile', load: () => import('./verbs.js').then((m) => m.add) },
    use: {
      summary: 'make a profile the one used when none is named',
      load: () => import('./verbs.js').then((m) => m.use),
    },
    remove: { summary: 'delete a profile', load: () => import('./verbs.js').then((m) => m.remove) },
  },
};
