import type { Group } from '../../lib/command/registry.js';

export const config: Group = {
  name: 'config',
  summary: 'defaults for every command (below flags, environment and profile)',
  examples: ['billing config set timeout 60', 'billing config list'],
  verbs: {
    get: { summary: 'print one setting', load: () => import('./verbs.js').then((m) => m.get) },
    set: { summary: 'save a setting', load: () => import('./verbs.js').then((m) => m.set) },
    unset: { summary: 'remove a setting', load: () => import('./verbs.js').then((m) => m.unset) },
    list: { summary: 'print every setting (API keys hidden)', load: () => import('./verbs.js').then((m) => m.list) },
  },
};
