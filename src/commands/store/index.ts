import type { Group } from '../../lib/command/registry.js';

export const store: Group = {
  name: 'store',
  summary: 'the embedded store itself: what it holds, and copying it to another file or database (embedded only)',
  examples: [
    'billing store info',
    'billing store copy --to postgres://billing@db.example.com/billing',
  ],
  verbs: {
    info: { summary: "show the store's engine, location, schema version and rows per table", load: () => import('./info.js') },
    copy: { summary: 'copy the whole store into an empty store of either engine (--to PATH|URL)', load: () => import('./copy.js') },
  },
};
