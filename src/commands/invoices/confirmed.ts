// Writes that cannot be undone (credit, delete of an invoice or a line): confirmed on a terminal,
// --yes without one. --dry-run asks nothing: it sends nothing either.
import type { Command } from 'commander';
import { confirmAction } from '../../lib/command/confirm.js';
import type { Deps } from '../../lib/command/deps.js';
import type { Invoke } from '../../lib/command/registry.js';
import { parseId, runWrite, type ResourceInfo, type WriteRequest } from '../../lib/command/resource.js';

export async function confirmedWrite(
  deps: Deps,
  request: WriteRequest,
  what: string,
  question?: string,
): Promise<void> {
  if (!deps.globals.dryRun) await confirmAction(deps, what, question);
  await runWrite(deps, request);
}

/** delete ID: DELETE answers 204 without a body, so only `deleted … ID` is said (on stderr). */
export function configureDelete(cmd: Command, info: ResourceInfo, invoke: Invoke): Command {
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
      await confirmedWrite(
        deps,
        request,
        `delete ${info.noun} ${id}`,
        `Delete ${info.noun} ${id}? This cannot be undone.`,
      );
    }),
  );
}
