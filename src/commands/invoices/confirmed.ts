// Writes that cannot be undone (credit, delete of an invoice or a line): confirmed on a terminal,
// --yes without one. --dry-run asks nothing: it sends nothing either. The question names the
// subject as the service shows it now, and what the service would refuse is refused before it.
import type { Command } from 'commander';
import { confirmAction, customerOf, moneyOf, subject, withFacts } from '../../lib/command/confirm.js';
import type { Deps } from '../../lib/command/deps.js';
import type { Invoke } from '../../lib/command/registry.js';
import { parseId, runWrite, type ResourceInfo, type WriteRequest } from '../../lib/command/resource.js';
import type { ResourceLike } from '../../lib/output/columns.js';
import { textOf } from '../../lib/schemas/json.js';

export async function confirmedWrite(
  deps: Deps,
  request: WriteRequest,
  what: string,
  question?: Parameters<typeof confirmAction>[2],
): Promise<void> {
  if (!deps.globals.dryRun) await confirmAction(deps, what, question);
  await runWrite(deps, request);
}

/** An invoice as a question names it: "invoice INV-8 (€ 36.30, Jan Jansen)", a draft by its id. */
export async function invoiceSubject(deps: Deps, id: number): Promise<{ invoice: ResourceLike; named: string }> {
  const { data } = await subject(deps, `/invoices/${id}`);
  const reference = textOf(data.attributes?.reference ?? '');
  const name = reference && reference !== 'DRAFT' ? `invoice ${reference}` : `draft invoice ${id}`;
  const customer = await customerOf(deps, data, `/invoices/${id}/customer`);
  return { invoice: data, named: withFacts(name, moneyOf(data, 'amount_incl'), customer) };
}

/** delete ID: DELETE answers 204 without a body, so only `deleted … ID` is said (on stderr). */
export function configureDelete(
  cmd: Command,
  info: ResourceInfo,
  invoke: Invoke,
  question: (deps: Deps, id: number) => Promise<string>,
): Command {
  return cmd.argument('<id>', `${info.noun} id`).action((idText: string, _opts: unknown, command: Command) =>
    invoke(command, async (deps) => {
      const id = parseId(idText);
      const request = {
        method: 'DELETE',
        path: `${info.path}/${id}`,
        type: info.type,
        id,
        done: `deleted ${info.noun}`,
      } as const;
      await confirmedWrite(deps, request, `delete ${info.noun} ${id}`, () => question(deps, id));
    }),
  );
}
