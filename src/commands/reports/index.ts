import type { Group, Verb } from '../../lib/command/registry.js';
import { REPORT_NAMES, REPORTS, type ReportName } from '../../lib/schemas/reports.js';

const verb = (name: ReportName | 'all', summary: string): Verb => ({
  summary,
  load: async () => (await import('./report.js')).verb(name),
});

export const reports: Group = {
  name: 'reports',
  summary:
    'reports: MRR and churn, collections and returns, revenue and VAT, overdue invoices (tables and charts, or a page)',
  examples: [
    'billing reports mrr',
    'billing reports vat --quarter 2027-Q1',
    'billing reports collections --from 2027-01-01 --by quarter --json',
    'billing reports all --html reports.html',
  ],
  verbs: {
    ...Object.fromEntries(REPORT_NAMES.map((name) => [name, verb(name, REPORTS[name].summary)])),
    all: verb('all', 'every report: one after the other, or one page with --html FILE'),
  },
};
