// audit: every invoice of the account read through the transport (only reference and status, 100 a
// page, following links.next), then the references of the finalised ones checked (audit-check.ts).
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { CliError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { send } from '../../lib/command/resource.js';
import { renderPlain } from '../../lib/output/render.js';
import { ProtocolError } from '../../lib/transport/types.js';
import { auditReferences, auditReport, auditVerdict, type Referenced } from './audit-check.js';
import { INVOICE } from './index.js';

const PAGE_SIZE = 100;

interface Page {
  data?: { id: string; attributes?: { status?: unknown; reference?: unknown } }[];
  meta?: { total?: number };
  links?: { next?: string | null };
}

/** Every invoice's id, status and reference, page by page. */
export async function readReferences(deps: Deps): Promise<Referenced[]> {
  const invoices: Referenced[] = [];
  let page = (
    await send(deps, {
      method: 'GET',
      path: INVOICE.path,
      query: { 'page[size]': PAGE_SIZE, 'fields[invoice]': 'reference,status' },
    })
  ).body as Page;
  // The pages the first one announces (and one more for invoices finalised meanwhile), so links
  // that loop cannot keep this running.
  const total = page.meta?.total;
  let budget = total === undefined ? 10_000 : Math.ceil(total / PAGE_SIZE) + 1;
  for (;;) {
    for (const invoice of page.data ?? [])
      invoices.push({ id: invoice.id, status: invoice.attributes?.status, reference: invoice.attributes?.reference });
    const next = page.links?.next;
    if (!next) return invoices;
    if (--budget <= 0)
      throw new ProtocolError(
        'stopped following links.next: the service keeps announcing more pages of invoices than it said it has',
      );
    page = (await send(deps, { method: 'GET', path: next })).body as Page;
  }
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .addHelpText(
      'after',
      prose(
        'Reads every invoice of the account and checks the references of the finalised ones (drafts have none): each is a prefix and a number, and the numbers are exactly 1 to N, none missing and none twice, whatever the prefix. Prints what it found; exit 0 when all is well, 1 when a number is missing or given twice or a reference has no number. With --json: {"invoices", "first", "last", "gaps", "duplicates", "malformed", "ok"}.',
      ),
    )
    .addHelpText(
      'after',
      examples('billing invoices audit', 'billing invoices audit --json', 'billing invoices audit --query gaps'),
    )
    .action((_opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const audit = auditReferences(await readReferences(deps));
        await renderPlain(audit as unknown as Record<string, unknown>, deps.globals, deps.io, () =>
          Promise.resolve(auditReport(audit)),
        );
        if (!audit.ok) throw new CliError(`invoice references: ${auditVerdict(audit)}`, 1);
      }),
    );
}
