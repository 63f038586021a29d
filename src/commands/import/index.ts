import type { Group } from '../../lib/command/registry.js';

export const importing: Group = {
  name: 'import',
  summary: 'bulk import customers, subscriptions or invoices from an NDJSON or CSV file (safe to run again)',
  examples: [
    'billing import customers customers.ndjson',
    'billing import subscriptions subscriptions.csv',
    'cat invoices.ndjson | billing import invoices - --format ndjson',
    'billing --base-url https://billing.example.com import customers customers.csv --concurrency 8',
  ],
  verbs: {
    customers: {
      summary: 'import customers, one per row; rejected rows go to a rejects file beside the input',
      load: () => import('./customers.js'),
    },
    subscriptions: {
      summary: 'import subscriptions (customer_id, subscription_plan_id, ...), one per row',
      load: () => import('./subscriptions.js'),
    },
    invoices: {
      summary: 'import draft invoices, one per row, each with its lines (an NDJSON array or a JSON cell)',
      load: () => import('./invoices.js'),
    },
  },
};
