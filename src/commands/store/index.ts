import type { Group } from '../../lib/command/registry.js';

export const store: Group = {
  name: 'store',
  summary:
    'the embedded store itself: what it holds, copying it to another file or database, snapshots of a SQLite store (embedded only)',
  examples: [
    'billing store info',
    'billing store copy --to postgres://billing@db.example.com/billing',
    'billing store snapshot before-import',
    'billing store restore before-import --yes',
  ],
  verbs: {
    info: {
      summary: "show the store's engine, location, schema version and rows per table",
      load: () => import('./info.js'),
    },
    copy: {
      summary: 'copy the whole store into an empty store of either engine (--to PATH|URL)',
      load: () => import('./copy.js'),
    },
    snapshot: {
      summary: 'keep a whole copy of the SQLite store beside it, under a name',
      load: () => import('./snapshot.js'),
    },
    snapshots: { summary: 'list the snapshots of the SQLite store', load: () => import('./snapshots.js') },
    restore: {
      summary: 'put a snapshot back: the store replaced by it (asks first)',
      load: () => import('./restore.js'),
    },
    reset: { summary: 'empty the SQLite store (asks first; snapshots are kept)', load: () => import('./reset.js') },
  },
};
