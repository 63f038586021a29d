import type { Group } from '../../lib/command/registry.js';

export const clock: Group = {
  name: 'clock',
  summary: "the embedded store's clock: real time, or a test time moved forward to see what falls due (embedded only)",
  examples: ['billing clock show', 'billing clock advance P1M', 'billing clock set 2027-01-31', 'billing clock reset'],
  verbs: {
    show: { summary: "show the store's time, and whether it is a test time", load: () => import('./show.js') },
    set: {
      summary: 'set a test time (forward only), running what falls due on the way',
      load: () => import('./set.js'),
    },
    advance: {
      summary: 'move the clock forward by an ISO 8601 duration (P1M, P10D, PT6H), running what falls due',
      load: () => import('./advance.js'),
    },
    reset: {
      summary: 'back to real time (forward only), running what falls due on the way',
      load: () => import('./reset.js'),
    },
  },
};
